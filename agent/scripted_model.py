"""A deterministic stand-in for Claude's side of a conversation, served by the fake API.

Used where a plausible model is needed without the network: `chartside bench agent`'s
request-size figures, the example transcripts, and `python -m agent.fake_api --scripted` for
trying `chartside ask` against the contract-checking fake. It is not an answerer: it picks
tools by section words in the question (several sections → parallel calls in one turn),
thinks on "why / trend / compare" questions, and answers by quoting the first cited row of
each tool result with its handle, so the loop's grounding check has real handles to check.
"""

from __future__ import annotations

import re
from typing import Any

from agent.fake_api import (
    MessageReply,
    RecordedRequest,
    message,
    text_block,
    thinking_block,
    tool_use_block,
    usage,
)

# section word → the tool call a model would make
SECTION_CALLS: tuple[tuple[tuple[str, ...], str, dict[str, Any]], ...] = (
    (("condition", "diagnos", "problem"), "get_conditions", {"status": "active"}),
    (("medic", "drug", "taking", "prescri", "pill"), "get_medications", {"status": "active"}),
    (("allerg",), "get_allergies", {}),
    (
        ("a1c", "lab", "result", "cholesterol", "glucose", "blood pressure", "test"),
        "get_labs",
        {"latest_only": True},
    ),
    (("vaccin", "immuni", "shot"), "get_immunizations", {}),
    (("visit", "encounter", "seen"), "get_encounters", {"limit": 5}),
    (("procedure", "surgery", "operation"), "get_procedures", {"limit": 5}),
    (("care plan", "plan"), "get_care_plans", {"status": "active"}),
    (("appointment",), "list_appointments", {}),
)
THINK_WORDS = ("why", "trend", "compare", "changed", "over time")
_HANDLE_LINE = re.compile(r"^\s*\[(?P<handle>[A-Z]{1,2}\d+)\]\s*(?P<row>.+)$", re.MULTILINE)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def calls_for(question: str, offered: set[str]) -> list[tuple[str, dict[str, Any]]]:
    lowered = question.lower()
    calls = [(name, dict(args)) for words, name, args in SECTION_CALLS if any(w in lowered for w in words)]
    calls = [(n, a) for n, a in calls if n in offered]
    if "a1c" in lowered and any(n == "get_labs" for n, _ in calls):
        calls = [(n, {**a, "query": "A1C"} if n == "get_labs" else a) for n, a in calls]
    if not calls and "get_patient_profile" in offered:
        calls = [("get_patient_profile", {})]
    return calls


def answer_from(results: list[dict[str, Any]]) -> str:
    parts = []
    for block in results:
        content = block.get("content")
        text = content if isinstance(content, str) else _text_of(content or [])
        found = _HANDLE_LINE.search(text or "")
        if block.get("is_error") or not found:
            parts.append("The record does not show that.")
        else:
            parts.append(f"{found['row'].strip()} [{found['handle']}].")
    return " ".join(parts) or "The record does not show that."


def respond(request: RecordedRequest) -> MessageReply:
    """The reply to one Messages request: tool calls first, then a cited answer."""
    body = request.body if isinstance(request.body, dict) else {}
    messages = body.get("messages") or [{"role": "user", "content": ""}]
    last = messages[-1].get("content")
    results = (
        [b for b in last if isinstance(b, dict) and b.get("type") == "tool_result"]
        if isinstance(last, list)
        else []
    )
    in_tokens = sum(len(str(v)) for v in (body.get("system"), body.get("tools"), messages)) // 4
    if results:
        return MessageReply(
            message([text_block(answer_from(results))], "end_turn", usage_=usage(in_tokens, 60))
        )
    question = _text_of(last)
    offered = {t.get("name") for t in body.get("tools") or []}
    calls = calls_for(question, offered)
    content: list[dict[str, Any]] = []
    thinking_on = (body.get("thinking") or {}).get("type") in ("adaptive", "enabled")
    if thinking_on and any(w in question.lower() for w in THINK_WORDS):
        content.append(
            thinking_block(f"The question asks for {', '.join(n for n, _ in calls)}; look them up first.")
        )
    content += [tool_use_block(name, args) for name, args in calls]
    return MessageReply(message(content, "tool_use", usage_=usage(in_tokens, 40)))


def main() -> None:  # pragma: no cover - a developer convenience
    """`python -m agent.scripted_model --port 8765`: the contract-checking fake, answering with
    this scripted model, for `ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=fake
    chartside ask …` (prints each broken contract rule as it happens)."""
    import argparse
    import time

    from agent.fake_api import AWSCredentials, FakeMessagesAPI

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--aws",
        metavar="KEY:SECRET:REGION",
        help="test credentials: re-derive each Bedrock request's SigV4 signature",
    )
    options = parser.parse_args()
    aws = None
    if options.aws:
        key, secret, region = options.aws.split(":", 2)
        aws = AWSCredentials(access_key=key, secret_key=secret, region=region)
    api = FakeMessagesAPI(port=options.port, aws=aws)
    api.responder = respond
    with api:
        print(f"contract-checking fake Messages API (scripted model) on {api.base_url}", flush=True)
        seen = logged = 0
        try:
            while True:
                time.sleep(0.2)
                for request in api.requests[logged:]:
                    auth = request.headers.get("authorization", "")[:60]
                    print(f"{request.provider} {request.path} auth={auth}…", flush=True)
                logged = len(api.requests)
                for request, violation in api.violations[seen:]:
                    print(f"REFUSED {request.path}: [{violation.rule}] {violation.message}", flush=True)
                seen = len(api.violations)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
