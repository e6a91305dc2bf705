"""`--agent claude` through the real SDK against the fake Messages API: the runner records
the Claude loop's tool calls, tokens, cost and model, and the report names the model."""

from __future__ import annotations

from evals.generate import GenerateOptions, generate
from evals.model import QuestionSet, write_set
from evals.pipeline import report_runs, run_set
from evals.results import read_results
from tests.evals.cohort import NOW
from tests.fakes import anthropic_server as fakes


def test_claude_runs_are_recorded_with_tokens_cost_and_tool_calls(cohort_db, settings, tmp_path):
    from evals.agents import build_eval_agent

    header, questions = generate(cohort_db, GenerateOptions(seed=7, now=NOW, categories=("lookup",)))
    chosen = [q for q in questions if q.template == "birth_date"]
    set_path = tmp_path / "set.jsonl"
    write_set(set_path, header, chosen)

    def respond(request):
        last = request.body["messages"][-1]["content"]
        answered = isinstance(last, list) and any(block.get("type") == "tool_result" for block in last)
        if not answered:
            return fakes.MessageReply(fakes.tool_use_message([("get_patient_profile", {})]))
        return fakes.MessageReply(fakes.text_message("The date of birth is on the profile [P1]."))

    with fakes.FakeMessagesAPI() as api:
        api.responder = respond
        agent = build_eval_agent("claude", settings, cohort_db, model_client=fakes.model_client_for(api))
        run_dir = tmp_path / "claude"
        run_set(
            agent,
            cohort_db,
            set_path,
            QuestionSet(header=header, questions=chosen),
            run_dir,
            agent_name="claude",
            run_id="c",
            answer_model="claude-sonnet-5-5",
        )
        calls = len(api.message_requests)

    results = read_results(run_dir)
    assert calls == 2 * len(chosen)
    for result in results:
        turn = result.final
        assert turn.mode == "claude" and turn.error_kind is None
        assert [c.name for c in turn.tool_calls] == ["get_patient_profile"] and turn.tool_calls[0].ok
        assert turn.usage.input_tokens == 200 and turn.usage.output_tokens == 40
        assert turn.cost_usd > 0
        assert [c.kind for c in turn.cited] == ["patient"]
    _, report, _ = report_runs([run_dir])
    assert report["overall"]["tokens"] == 240 * len(chosen)
    assert report["run"]["answer_model"] == "claude-sonnet-5-5"
    assert report["overall"]["recall"] == 1.0  # the profile row is the gold record of a birth-date question
