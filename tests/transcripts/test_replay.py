"""Saved transcripts replayed through the loop as regression tests.

Each `*.json` here (written by `chartside ask --save-transcript` with a real key, or by
`python -m tests.transcripts.make_examples`) is played on the deterministic test cohort:
the fake API answers each model call with the recorded reply, but only if the request the
loop sends now is exactly the recorded one. A changed prompt, tool schema, tool result or a
model call more or less fails with the JSON path of the first difference.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from agent.events import DoneEvent
from agent.fake_api import FakeMessagesAPI
from agent.transcript import Replayer, Transcript, first_difference
from tests.evals import cohort
from tests.transcripts.harness import play

HERE = Path(__file__).parent
TRANSCRIPTS = sorted(HERE.glob("*.json"))


def replay(db, transcript: Transcript) -> tuple[list, list[Replayer], FakeMessagesAPI]:
    replayers = [Replayer(q["exchanges"]) for q in transcript.questions]
    with FakeMessagesAPI() as api:

        def next_question(i: int) -> None:
            api.responder = replayers[i]

        runs = play(
            db,
            api,
            patient_id=transcript.patient_id,
            role=transcript.role,
            today=transcript.today,
            questions=[q["question"] for q in transcript.questions],
            model=transcript.model,
            thinking=transcript.thinking,
            before_question=next_question,
        )
    return runs, replayers, api


@pytest.fixture()
def cohort_db(clean_db):
    cohort.build(clean_db)
    return clean_db


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_saved_transcript_replays_exactly(cohort_db, path):
    transcript = Transcript.read(path)
    runs, replayers, api = replay(cohort_db, transcript)
    for question, events, replayer in zip(transcript.questions, runs, replayers, strict=True):
        assert not replayer.mismatches, f"{path.name}: {question['question']!r}: {replayer.mismatches[0]}"
        assert replayer.served == len(question["exchanges"]), f"{question['question']!r}: fewer model calls"
        assert isinstance(events[-1], DoneEvent), events[-1]
    assert not api.violations


def test_a_changed_prompt_fails_the_replay_at_its_path(cohort_db):
    transcript = Transcript.read(HERE / "ann_five_questions.json")
    transcript.questions = transcript.questions[:1]
    edited = copy.deepcopy(transcript)
    edited.questions[0]["exchanges"][0]["request"]["system"][0]["text"] += " (an older prompt)"
    _, replayers, _ = replay(cohort_db, edited)
    assert replayers[0].mismatches and replayers[0].mismatches[0].startswith("call 1: request.system[0].text")


def test_a_parallel_turn_and_a_thinking_turn_are_in_the_example():
    transcript = Transcript.read(HERE / "ann_five_questions.json")
    first_replies = [q["exchanges"][0]["response"]["content"] for q in transcript.questions]
    assert any(sum(b["type"] == "tool_use" for b in c) >= 2 for c in first_replies)
    assert any(c[0]["type"] == "thinking" for c in first_replies)


def test_first_difference_names_the_path():
    assert (
        first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]})
        == "request.a[1].b: recorded '2', sent '3'"
    )
    assert first_difference({"a": 1}, {"a": 1}) is None
    assert "2 items recorded, 1 sent" in first_difference([1, 2], [1])


def test_unreadable_or_incomplete_transcripts_are_clear_errors(tmp_path):
    bad = tmp_path / "t.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t\.json: not a readable transcript"):
        Transcript.read(bad)
    bad.write_text('{"format": 1, "model": "m"}', encoding="utf-8")
    with pytest.raises(ValueError, match="missing field"):
        Transcript.read(bad)


def test_a_more_tools_turn_is_in_the_examples_and_grows_the_tools_offered():
    transcript = Transcript.read(HERE / "ann_more_tools.json")
    first, second, _ = transcript.questions[0]["exchanges"]
    asked = [b for b in first["response"]["content"] if b["type"] == "tool_use"]
    assert [b["name"] for b in asked] == ["more_tools"]
    before = {t["name"] for t in first["request"]["tools"]}
    after = {t["name"] for t in second["request"]["tools"]}
    assert before < after and "get_conditions" in after - before
