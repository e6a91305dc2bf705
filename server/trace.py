"""Per-request phase marks on the way to a response's first byte (`chartside bench serve`).

The answer stream's route marks where it is (`mark("authorised")`, `mark("claimed")`); the
benchmark's server wraps the app in `Tracer`, which stamps when the request reached the app,
when the response's headers and its first body bytes (an SSE stream's first event) were
handed to the server, and keeps the marks of every finished request. Without a `Tracer`
(every real server) `mark` is one context-variable lookup that finds nothing.

Stamps are `time.perf_counter()`, which on Linux is CLOCK_MONOTONIC, one clock for every
process of the machine: the benchmark's client compares them with its own.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

_marks: ContextVar[dict[str, float] | None] = ContextVar("chartside_trace", default=None)

# in the order a request passes them (those of the answer stream; others mark fewer)
RECEIVED = "received"  # the app has the request (before every middleware)
ROUTED = "routed"  # the route runs: middleware (session cookie, headers, limits) passed
AUTHORISED = "authorised"  # the opening's in-process checks: cached principal, rate, slot
FELL_BACK = "fell back"  # the opening declined: the guard's worker-thread transaction instead
CLAIMED = "claimed"  # access, audit row and claim committed (the opening's round trip or the guard)
HEADERS = "headers"  # the response's headers handed to the server
FIRST_BYTE = "first byte"  # its first body bytes: an SSE stream's first event
PHASES = (RECEIVED, ROUTED, AUTHORISED, FELL_BACK, CLAIMED, HEADERS, FIRST_BYTE)
TRACE_HEADER = "x-bench-stream"  # the client's id of a request, kept with its marks


def mark(phase: str) -> None:
    """Stamp `phase` for the request being served, once (the first stamp wins)."""
    marks = _marks.get()
    if marks is not None and phase not in marks:
        marks[phase] = time.perf_counter()


class Tracer:
    """ASGI middleware (outermost): every HTTP request's marks, by the client's `TRACE_HEADER`,
    and the server process's CPU time (`time.process_time`) when the app got the request,
    when its first body bytes left and when it ended (`take_cpu`: with one request at a time,
    what that request cost before and after its first event)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.finished: list[tuple[str, dict[str, float]]] = []
        self.cpu: list[tuple[str, float, float, float]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        marks = {RECEIVED: time.perf_counter()}
        cpu_received, cpu_first = time.process_time(), None
        stream = next((v.decode() for k, v in scope["headers"] if k == TRACE_HEADER.encode()), "")

        async def traced(message: Any) -> None:
            nonlocal cpu_first
            if message["type"] == "http.response.start":
                marks.setdefault(HEADERS, time.perf_counter())
            elif message["type"] == "http.response.body" and message.get("body") and cpu_first is None:
                marks.setdefault(FIRST_BYTE, time.perf_counter())
                cpu_first = time.process_time()
            await send(message)

        token = _marks.set(marks)
        try:
            await self.app(scope, receive, traced)
        finally:
            _marks.reset(token)
            if stream:
                self.finished.append((stream, marks))
                if cpu_first is not None:
                    self.cpu.append((stream, cpu_received, cpu_first, time.process_time()))

    def take(self) -> list[tuple[str, dict[str, float]]]:
        """The marks of the requests finished since the last call."""
        taken, self.finished = self.finished, []
        return taken

    def take_cpu(self) -> list[tuple[str, float, float, float]]:
        """(stream, CPU seconds at the request, at its first body bytes, at its end) of the
        requests finished since the last call."""
        taken, self.cpu = self.cpu, []
        return taken
