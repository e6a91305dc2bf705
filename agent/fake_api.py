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

It lives in the package (not under tests/) because the benchmark command uses it too; it is
stdlib-only and binds to 127.0.0.1 on a free port.
"""

from __future__ import annotations

import itertools
import json
import select
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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


def tool_use_message(calls: Iterable[tuple[str, dict]], text: str | None = None, **kwargs: Any) -> dict:
    content = [text_block(text)] if text else []
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
    frames: list[Frame] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(msg["content"]):
        if block["type"] == "text":
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
                "usage": {"output_tokens": msg["usage"]["output_tokens"]},
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

    @property
    def streamed(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))


Responder = Callable[[RecordedRequest], Reply]


class FakeMessagesAPI:
    """Start with `with FakeMessagesAPI() as api:`; point the SDK at `api.base_url`."""

    def __init__(self) -> None:
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
        return [r for r in self.requests if r.path.startswith("/v1/messages")]

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
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
        reply = self.fake._next_reply(request)
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
            if request.streamed:
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
        self.send_response(status)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_fake_{next(_ids)}")
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
                data = (
                    frame
                    if isinstance(frame, bytes)
                    else f"event: {frame[0]}\ndata: {json.dumps(frame[1])}\n\n".encode()
                )
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


def _peer_closed(sock: socket.socket) -> bool:
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True
