"""The phase trace of `chartside bench serve` (server/trace.py): what it stamps, for whom, and
that the steps it reports add up to the time the client waited."""

from __future__ import annotations

import asyncio
import itertools

import httpx
from hypothesis import given
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.responses import StreamingResponse
from starlette.routing import Route

from server.bench import _phases
from server.trace import AUTHORISED, FIRST_BYTE, HEADERS, PHASES, RECEIVED, ROUTED, TRACE_HEADER, Tracer, mark


def _app() -> Starlette:
    async def streamed(_request):
        mark(ROUTED)
        await asyncio.sleep(0.01)
        mark(AUTHORISED)
        mark(AUTHORISED)  # the first stamp wins

        async def body():
            await asyncio.sleep(0.01)
            yield b"event: status\n\n"

        return StreamingResponse(body(), media_type="text/event-stream")

    return Starlette(routes=[Route("/s", streamed)])


async def _get(tracer: Tracer, headers: dict[str, str]) -> None:
    transport = httpx.ASGITransport(app=tracer)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.get("/s", headers=headers)).status_code == 200


def test_a_traced_request_gets_its_marks_in_order_once_and_untraced_ones_are_not_kept():
    tracer = Tracer(_app())
    asyncio.run(_get(tracer, {TRACE_HEADER: "7"}))
    asyncio.run(_get(tracer, {}))  # no id: not kept
    ((stream, marks),) = tracer.take()
    assert stream == "7"
    assert list(marks) == [RECEIVED, ROUTED, AUTHORISED, HEADERS, FIRST_BYTE]
    stamps = list(marks.values())
    assert stamps == sorted(stamps)
    assert marks[AUTHORISED] - marks[ROUTED] >= 0.009  # the route's own sleep, between its marks
    assert marks[FIRST_BYTE] - marks[HEADERS] >= 0.009  # the body's sleep: headers went first
    assert tracer.take() == []  # taken once


def test_marks_outside_a_traced_request_are_ignored():
    mark(ROUTED)  # no tracer: nothing to stamp, nothing raised


@given(
    st.lists(st.sampled_from(PHASES), unique=True),
    st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=len(PHASES) + 1, max_size=len(PHASES) + 1),
)
def test_the_steps_chain_from_the_request_to_the_client_and_add_up_to_its_wait(present, gaps):
    started, at, marks = 100.0, 100.0, {}
    for phase, gap in zip([p for p in PHASES if p in present], gaps, strict=False):
        at += gap
        marks[phase] = at
    first = at + gaps[-1]
    steps = _phases(started, first, marks)
    assert abs(sum(steps.values()) - (first - started) * 1000) < 1e-6
    names = [name.split(" → ") for name in steps]
    assert names[0][0] == "sent" and names[-1][1] == "client"
    assert all(a[1] == b[0] for a, b in itertools.pairwise(names))  # each starts where the last ended
