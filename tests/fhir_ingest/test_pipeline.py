"""The background committer: in order, one at a time, and a failure stops the run loudly."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fhir_ingest.pipeline import BackgroundCommitter


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers()), max_size=30))
def test_commits_and_reports_come_out_in_submission_order(items):
    committed: list[int] = []
    reported: list[tuple[str, int]] = []
    threads: set[str] = set()

    def commit(n: int) -> tuple[str, int]:
        threads.add(threading.current_thread().name)
        committed.append(n)
        return ("committed", n)

    def done(outcome: tuple[str, int]) -> None:
        threads.add(threading.current_thread().name)
        reported.append(outcome)

    with BackgroundCommitter(commit, done) as committer:
        for needs_commit, n in items:
            if needs_commit:
                committer.submit(n)
            else:
                committer.report(("unchanged", n))
    assert reported == [("committed" if c else "unchanged", n) for c, n in items]
    assert committed == [n for c, n in items if c]
    assert threads <= {"ingest-writer"}  # one thread commits and reports


def test_wait_idle_returns_only_after_everything_before_it_is_committed():
    done_items: list[int] = []
    gate = threading.Event()

    def commit(n: int) -> int:
        gate.wait(5)
        return n

    with BackgroundCommitter(commit, done_items.append) as committer:
        committer.submit(1)
        gate.set()
        committer.wait_idle()
        assert done_items == [1]


def test_an_unexpected_error_in_the_writer_is_raised_in_the_loader():
    def commit(n: int) -> int:
        if n == 2:
            raise RuntimeError("the writer broke on 2")
        return n

    reported: list[int] = []
    with (
        pytest.raises(RuntimeError, match="broke on 2"),
        BackgroundCommitter(commit, reported.append) as committer,
    ):
        for n in range(1, 50):
            committer.submit(n)
    assert reported == [1]  # nothing after the failure was committed
