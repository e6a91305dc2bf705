"""A scriptable local stand-in for the Anthropic Messages API, spoken to by the real SDK.

The Claude API cannot be reached from development machines or CI, and mocking the SDK would
test our assumptions about the SDK instead of the SDK. So tests (and `chartside bench agent`)
point the real `anthropic` client at this small HTTP server, which answers `POST
/v1/messages` from a queue of scripted replies:

* `MessageReply(message)` — a Messages API message, sent as JSON or as SSE frames depending
  on whether the request asked to stream (so one script serves both call styles);
* `SSEReply(frames)` — exact SSE frames, for mid-stream errors, odd events, or a `Hang`
  between frames;
* `JSONReply(body, status, headers)` / `error_reply(status, type, message, ...)` — status
  codes, `retry-after(-ms)` headers, spend-limit bodies;
* `HangReply(seconds)` — accept the request and say nothing (timeouts, cancellation).

Every request is recorded (path, headers, JSON body, whether the client hung up), so tests
can assert what the agent actually sent: tool results in one user message, cache markers,
history turns. An empty queue is a test bug: the server answers 500 with `x-should-retry:
false` and records it in `unexpected`, instead of letting the SDK retry into confusion.

`POST /v1/messages/count_tokens` is answered too (after the same contract checks, which
refuse generation-only fields there) with the shared offline estimate of
`agent.token_estimate`, so the benchmark can check that what it estimates is what the SDK's
`count_tokens` request carries.

It lives in the package (not under tests/) because the benchmark command uses it too; it is
stdlib-only and binds to 127.0.0.1 on a free port.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import select
import socket
import struct
import threading
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent import contract
from agent.token_estimate import estimate_input_tokens

# answered with the shared estimate (`agent.token_estimate`) after the contract check
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"

_ids = itertools.count(1)


# --------------------------------------------------------------------------------------------
# Message builders
# --------------------------------------------------------------------------------------------


def usage(
    input_tokens: int = 100, output_tokens: int = 20, cache_read: int = 0, cache_write: int = 0
) -> dict:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def thinking_block(thinking: str, signature: str | None = None) -> dict:
    """A thinking block; its signature lets the fake check it comes back unchanged."""
    return {"type": "thinking", "thinking": thinking, "signature": signature or f"sig_{next(_ids):06d}"}


def tool_use_block(name: str, input: dict[str, Any] | None = None, id: str | None = None) -> dict:
    return {"type": "tool_use", "id": id or f"toolu_{next(_ids):04d}", "name": name, "input": input or {}}


def message(
    content: list[dict],
    stop_reason: str | None = "end_turn",
    *,
    model: str = "claude-sonnet-5-5",
    usage_: dict | None = None,
    stop_details: dict | None = None,
) -> dict:
    body = {
        "id": f"msg_{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage_ or usage(),
    }
    if stop_details is not None:
        body["stop_details"] = stop_details
    return body


def text_message(text: str, stop_reason: str = "end_turn", **kwargs: Any) -> dict:
    return message([text_block(text)], stop_reason, **kwargs)


def tool_use_message(
    calls: Iterable[tuple[str, dict]], text: str | None = None, *, thinking: str | None = None, **kwargs: Any
) -> dict:
    content = [thinking_block(thinking)] if thinking else []
    content += [text_block(text)] if text else []
    content += [tool_use_block(name, args) for name, args in calls]
    return message(content, "tool_use", **kwargs)


# --------------------------------------------------------------------------------------------
# Replies
# --------------------------------------------------------------------------------------------


@dataclass
class Hang:
    """Inside an SSE script: stop sending for `seconds` (or until the server is released)."""

    seconds: float = 3600.0


Frame = tuple[str, dict] | Hang | bytes


@dataclass
class MessageReply:
    message: dict
    headers: dict[str, str] = field(default_factory=dict)
    chunk_chars: int = 12  # text is streamed in pieces of this size


@dataclass
class SSEReply:
    frames: list[Frame]
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class JSONReply:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class HangReply:
    seconds: float = 3600.0


Reply = MessageReply | SSEReply | JSONReply | HangReply


def error_body(error_type: str, text: str, error_code: str | None = None) -> dict:
    error: dict[str, Any] = {"type": error_type, "message": text}
    if error_code:
        error["details"] = {"error_code": error_code}
    return {"type": "error", "error": error, "request_id": f"req_fake_{next(_ids)}"}


def error_reply(
    status: int,
    error_type: str,
    text: str = "fake error",
    *,
    headers: dict | None = None,
    error_code: str | None = None,
) -> JSONReply:
    return JSONReply(error_body(error_type, text, error_code), status=status, headers=headers or {})


def sse_frames(msg: dict, chunk_chars: int = 12) -> list[Frame]:
    """The wire frames the real API sends for `msg`: start, blocks with deltas, delta, stop."""
    start = dict(msg, content=[], stop_reason=None)
    start["usage"] = dict(msg["usage"], output_tokens=1)
    frames: list[Frame] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("ping", {"type": "ping"}),  # the real API sends pings (any number, anywhere)
    ]
    for index, block in enumerate(msg["content"]):
        if block["type"] == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            frames.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": opening},
                )
            )
            text = block["thinking"]
            for i in range(0, len(text), chunk_chars):
                delta = {"type": "thinking_delta", "thinking": text[i : i + chunk_chars]}
                frames.append(
                    ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                )
            delta = {"type": "signature_delta", "signature": block["signature"]}
            frames.append(
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
        elif block["type"] == "text":
            frames.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": text_block("")},
                )
            )
            text = block["text"]
            for i in range(0, len(text), chunk_chars):
                delta = {"type": "text_delta", "text": text[i : i + chunk_chars]}
                frames.append(
                    ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                )
        elif block["type"] == "tool_use":
            opening = dict(block, input={})
            frames.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": opening},
                )
            )
            raw = json.dumps(block["input"])
            for i in range(0, len(raw), chunk_chars):
                delta = {"type": "input_json_delta", "partial_json": raw[i : i + chunk_chars]}
                frames.append(
                    ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                )
        else:  # anything else arrives whole
            frames.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": block},
                )
            )
        frames.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta: dict[str, Any] = {"stop_reason": msg["stop_reason"], "stop_sequence": None}
    if "stop_details" in msg:
        delta["stop_details"] = msg["stop_details"]
    frames.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                # cumulative, and (as on the real API) more than output_tokens
                "usage": dict(msg["usage"]),
            },
        )
    )
    frames.append(("message_stop", {"type": "message_stop"}))
    return frames


def stream_error_frame(error_type: str = "overloaded_error", text: str = "Overloaded") -> Frame:
    return ("error", error_body(error_type, text))


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    disconnected: bool = False  # the client hung up while we were hanging/streaming
    raw: bytes = b""  # the exact body bytes (SigV4 signs them)

    @property
    def provider(self) -> str:
        where = contract.route(self.path, self.body)
        return where.provider if where else "unknown"

    @property
    def streamed(self) -> bool:
        where = contract.route(self.path, self.body)
        return where.streamed if where else isinstance(self.body, dict) and bool(self.body.get("stream"))


Responder = Callable[[RecordedRequest], Reply]


@dataclass(frozen=True)
class AWSCredentials:
    """What the fake needs to re-derive a Bedrock request's SigV4 signature."""

    access_key: str
    secret_key: str
    region: str
    session_token: str | None = None


class FakeMessagesAPI:
    """Start with `with FakeMessagesAPI() as api:`; point the SDK at `api.base_url`.

    With `contract=True` (the default) every request is first checked against the Messages
    API's rules (`agent.contract`); a broken rule is answered like the real API (400
    `invalid_request_error`, the rule's message), recorded in `violations`, and does not use
    up a scripted reply. The same server speaks the Bedrock (`/model/<id>/invoke…`, AWS
    event-stream framing, SigV4 re-derived when `aws` is set) and Vertex AI
    (`…/publishers/anthropic/models/<id>:streamRawPredict`) paths.
    """

    def __init__(
        self,
        *,
        contract: bool = True,
        known_models: Iterable[str] | None = None,
        bedrock_models: Iterable[str] | None = None,
        aws: AWSCredentials | None = None,
        port: int = 0,
    ) -> None:
        if known_models is None or bedrock_models is None:
            from agent.llm import sdk_model_ids
            from agent.models import MODELS

            known_models = sdk_model_ids() if known_models is None else known_models
            bedrock_models = (
                [m.bedrock_id for m in MODELS.values()] if bedrock_models is None else bedrock_models
            )
        self.contract = contract
        self.known_models = frozenset(known_models)
        self.bedrock_models = frozenset(bedrock_models)
        self.aws = aws
        self.port = port
        self.violations: list[tuple[RecordedRequest, contract.Violation]] = []
        self.issued_thinking: dict[str, str] = {}  # signature -> thinking text sent out
        self.queue: deque[Reply] = deque()
        self.requests: list[RecordedRequest] = []
        self.unexpected: list[RecordedRequest] = []
        self.responder: Responder | None = None  # used when the queue is empty (benchmarks)
        self.record = True
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -----------------------------------------------------------------------
    def enqueue(self, *replies: Reply | dict) -> FakeMessagesAPI:
        """Queue replies in order; a plain dict is a message (JSON or SSE as the request asks)."""
        for reply in replies:
            self.queue.append(MessageReply(reply) if isinstance(reply, dict) else reply)
        return self

    def release(self) -> None:
        """End every hang now (used at shutdown so no handler thread outlives the test)."""
        self._release.set()

    @property
    def message_requests(self) -> list[RecordedRequest]:
        return [
            r
            for r in self.requests
            if r.path.startswith("/v1/messages") and not r.path.startswith(COUNT_TOKENS_PATH)
        ]

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeMessagesAPI:
        api = self

        class Handler(_Handler):
            fake = api

        self._release.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="fake-messages-api", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler -------------------------------------------------------------
    def check(self, request: RecordedRequest) -> contract.Violation | None:
        """The contract rule `request` breaks (recorded), or None."""
        if not self.contract:
            return None
        violation = contract.check_request(
            request.path,
            request.headers,
            request.body,
            known_models=self.known_models,
            bedrock_models=self.bedrock_models,
            issued_thinking=self.issued_thinking,
        )
        if violation is None and request.provider == "bedrock" and self.aws is not None:
            violation = verify_sigv4(request, self.aws)
        if violation is not None:
            with self._lock:
                if self.record:
                    self.requests.append(request)
                self.violations.append((request, violation))
        return violation

    def remember_thinking(self, message: dict) -> None:
        for block in message.get("content", []):
            if block.get("type") == "thinking":
                self.issued_thinking[block["signature"]] = block["thinking"]
            elif block.get("type") == "redacted_thinking":
                self.issued_thinking[block["data"]] = block["data"]

    def _next_reply(self, request: RecordedRequest) -> Reply | None:
        with self._lock:
            if self.record:
                self.requests.append(request)
            if self.queue:
                return self.queue.popleft()
        if self.responder is not None:
            return self.responder(request)
        self.unexpected.append(request)
        return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeMessagesAPI

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def setup(self) -> None:
        super().setup()
        # SSE frames are small writes: without this, Nagle + delayed ACK add ~40 ms stalls
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        request.raw = raw
        violation = self.fake.check(request)
        if violation is not None:
            self._send_json(
                violation.status,
                error_body(violation.error_type, violation.message),
                {"x-should-retry": "false"},
            )
            return
        if request.path.split("?", 1)[0] == COUNT_TOKENS_PATH and isinstance(body, dict):
            with self.fake._lock:
                if self.fake.record:
                    self.fake.requests.append(request)
            self._send_json(200, {"input_tokens": estimate_input_tokens(body)}, {})
            return
        reply = self.fake._next_reply(request)
        if isinstance(reply, MessageReply):
            self.fake.remember_thinking(reply.message)
        elif isinstance(reply, SSEReply):
            for frame in reply.frames:
                if isinstance(frame, tuple) and frame[0] == "content_block_start":
                    block = frame[1].get("content_block", {})
                    if block.get("type") == "thinking" and block.get("signature"):
                        self.fake.issued_thinking[block["signature"]] = block.get("thinking", "")
        if reply is None:
            self._send_json(
                500,
                error_body(
                    "api_error",
                    f"fake Messages API: no reply scripted for request #{len(self.fake.requests)}",
                ),
                {"x-should-retry": "false"},
            )
        elif isinstance(reply, JSONReply):
            self._send_json(reply.status, reply.body, reply.headers)
        elif isinstance(reply, HangReply):
            if not self._hang(reply.seconds, request):
                self._send_json(
                    504, error_body("timeout_error", "fake hang ended"), {"x-should-retry": "false"}
                )
        elif isinstance(reply, MessageReply):
            if request.streamed and request.provider == "bedrock":
                self._send_eventstream(sse_frames(reply.message, reply.chunk_chars), reply.headers, request)
            elif request.streamed:
                self._send_sse(200, sse_frames(reply.message, reply.chunk_chars), reply.headers, request)
            else:
                self._send_json(200, reply.message, reply.headers)
        else:
            self._send_sse(reply.status, reply.frames, reply.headers, request)

    do_GET = do_POST

    # -- writing -------------------------------------------------------------------------
    def _send_json(self, status: int, body: Any, headers: dict[str, str]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.send_header("request-id", f"req_fake_{next(_ids)}")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(payload)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _send_sse(
        self, status: int, frames: list[Frame], headers: dict[str, str], request: RecordedRequest
    ) -> None:
        def encode(frame: tuple[str, dict] | bytes) -> bytes:
            if isinstance(frame, bytes):
                return frame
            return f"event: {frame[0]}\ndata: {json.dumps(frame[1])}\n\n".encode()

        start = {
            "content-type": "text/event-stream",
            "cache-control": "no-cache",
            "request-id": f"req_fake_{next(_ids)}",
        }
        self._send_chunked(status, {**start, **headers}, frames, encode, request)

    def _send_eventstream(
        self, frames: list[Frame], headers: dict[str, str], request: RecordedRequest
    ) -> None:
        """Bedrock's streaming framing: each SSE event's JSON as one AWS event-stream `chunk`."""
        start = {
            "content-type": "application/vnd.amazon.eventstream",
            "x-amzn-requestid": f"req_fake_{next(_ids)}",
        }
        kept = [f for f in frames if not isinstance(f, bytes)]
        self._send_chunked(200, {**start, **headers}, kept, lambda f: eventstream_chunk(f[1]), request)

    def _send_chunked(
        self,
        status: int,
        headers: dict[str, str],
        frames: list[Frame],
        encode: Callable[[Any], bytes],
        request: RecordedRequest,
    ) -> None:
        """Chunked transfer of encoded frames; a `Hang` pauses (and notices a client hanging up)."""
        self.send_response(status)
        self.send_header("transfer-encoding", "chunked")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        try:
            for frame in frames:
                if isinstance(frame, Hang):
                    self.wfile.flush()
                    if self._hang(frame.seconds, request):
                        self.close_connection = True
                        return
                    continue
                data = encode(frame)
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            request.disconnected = True
            self.close_connection = True

    def _hang(self, seconds: float, request: RecordedRequest) -> bool:
        """Wait; True when the client hung up meanwhile (then nothing more is sent)."""
        waited = 0.0
        step = 0.02
        while waited < seconds and not self.fake._release.is_set():
            if _peer_closed(self.connection):
                request.disconnected = True
                return True
            self.fake._release.wait(step)
            waited += step
        return False


def eventstream_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message: prelude (lengths + CRC), string headers, payload, CRC."""
    encoded = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        encoded += bytes([len(raw_name)]) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body))


def eventstream_chunk(event: dict) -> bytes:
    """A Bedrock `chunk` event whose `bytes` carry one Messages streaming event."""
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode()
    return eventstream_message(
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload
    )


def verify_sigv4(request: RecordedRequest, aws: AWSCredentials) -> contract.Violation | None:
    """Re-derive the request's SigV4 signature with the known test credentials (botocore)."""
    import datetime as dt

    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    auth = request.headers.get("authorization", "")
    match = re.match(
        r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request, "
        r"SignedHeaders=(?P<signed>[^,]+), Signature=(?P<sig>[0-9a-f]{64})$",
        auth,
    )
    if not match:
        return contract.Violation(
            "sigv4", "Authorization header is not a SigV4 signature", 403, "permission_error"
        )
    if match["key"] != aws.access_key or match["region"] != aws.region or match["service"] != "bedrock":
        return contract.Violation(
            "sigv4",
            f"The security token included in the request is invalid (credential scope "
            f"{match['key']}/{match['region']}/{match['service']})",
            403,
            "permission_error",
        )
    signed = match["signed"].split(";")
    host = request.headers.get("host", "")
    url = f"http://{host}{request.path}"
    headers = {name: request.headers[name] for name in signed if name in request.headers}
    aws_request = AWSRequest(method=request.method, url=url, headers=headers, data=request.raw)
    stamp = request.headers.get("x-amz-date", "")
    aws_request.context["timestamp"] = stamp
    signer = SigV4Auth(Credentials(aws.access_key, aws.secret_key, aws.session_token), "bedrock", aws.region)
    try:
        dt.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ")
        canonical = signer.canonical_request(aws_request)
        expected = signer.signature(signer.string_to_sign(aws_request, canonical), aws_request)
    except (ValueError, KeyError) as exc:
        return contract.Violation(
            "sigv4", f"could not verify the SigV4 signature: {exc}", 403, "permission_error"
        )
    if expected != match["sig"]:
        return contract.Violation(
            "sigv4",
            "The request signature we calculated does not match the signature you provided.",
            403,
            "permission_error",
        )
    return None


def _peer_closed(sock: socket.socket) -> bool:
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True
