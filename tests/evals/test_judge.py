"""The optional LLM judge: parsing, agreement statistics, and the whole path against the fake
Messages API (real SDK, no network)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evals.judge import agreement, parse_verdict
from tests.fakes import anthropic_server as fakes


def test_parse_verdict_tolerates_prose_and_rejects_garbage():
    assert parse_verdict('Sure. {"verdict": "correct", "reason": "matches"} done') == ("correct", "matches")
    assert parse_verdict('{"verdict": "ABSTAINED", "reason": "said n/a"}')[0] == "abstained"
    verdict, reason = parse_verdict("I think it is fine")
    assert verdict == "incorrect" and "unreadable" in reason
    assert parse_verdict('{"verdict": "maybe"}')[0] == "incorrect"


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_agreement_rate_and_kappa_bounds(pairs):
    a = agreement(pairs)
    assert a.n == len(pairs) and a.agree == sum(x == y for x, y in pairs)
    if a.kappa is not None:
        assert -1.0 <= a.kappa <= 1.0 + 1e-9


@given(st.lists(st.booleans(), min_size=2, max_size=60))
def test_identical_labels_agree_fully(labels):
    a = agreement([(x, x) for x in labels])
    assert a.rate == 1.0
    if len(set(labels)) == 2:
        assert a.kappa == pytest.approx(1.0)


def test_judge_against_fake_messages_api(cohort_db, tmp_path):
    from evals.generate import GenerateOptions, generate
    from evals.model import QuestionSet, write_set
    from evals.pipeline import report_runs, run_set
    from tests.evals.agents import OracleAgent
    from tests.evals.cohort import NOW

    header, questions = generate(
        cohort_db, GenerateOptions(seed=7, now=NOW, categories=("leaflet", "lookup"))
    )
    set_path = tmp_path / "set.jsonl"
    write_set(set_path, header, questions)
    planted = next(q for q in questions if q.template == "birth_date" and q.role == "patient")
    agent = OracleAgent(
        questions, cohort_db, override=lambda q: "On 1901-01-01." if q.id == planted.id else None
    )
    run_dir = tmp_path / "run"
    run_set(
        agent,
        cohort_db,
        set_path,
        QuestionSet(header=header, questions=questions),
        run_dir,
        agent_name="scripted",
        run_id="j",
    )

    with fakes.FakeMessagesAPI() as api:
        prompts = []

        def respond(request):
            prompts.append(request.body)
            return fakes.MessageReply(
                fakes.text_message(json.dumps({"verdict": "correct", "reason": "fine"}))
            )

        api.responder = respond
        factory = lambda: fakes.model_client_for(api)  # noqa: E731
        files, report, _ = report_runs(
            [run_dir], judge_client_factory=factory, judge_model="claude-haiku-5-5", judge_sample=1000
        )
        calls = len(api.message_requests)
        report_runs(
            [run_dir], judge_client_factory=factory, judge_model="claude-haiku-5-5", judge_sample=1000
        )
        assert len(api.message_requests) == calls  # cached in the run folder: no second call

    judge = report["judge"]
    free_text = [q for q in questions if q.template == "leaflet_topic"]
    assert judge["model"] == "claude-haiku-5-5" and "claude-haiku-5-5" in files.markdown.read_text()
    assert judge["free_text_judged"] == len(free_text) == judge["free_text_correct"]
    assert all(p["model"] == "claude-haiku-5-5" for p in prompts)
    # the judge says "correct" to everything; the planted wrong birth date is where it disagrees
    agree = judge["agreement"]
    assert agree["n"] >= 2 and agree["agree"] == agree["n"] - 1
    assert report["by_category"]["leaflet"]["verdicts"]["correct"] == report["by_category"]["leaflet"]["n"]
