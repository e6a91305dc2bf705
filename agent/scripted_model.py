"""A deterministic stand-in for Claude's side of a conversation, served by the fake API.

Used where a plausible model is needed without the network: `chartside bench agent`'s
request-size figures, the example transcripts, and `python -m agent.fake_api --scripted` for
trying `chartside ask` against the contract-checking fake. It is not an answerer: it picks
tools by section words in the question (several sections → parallel calls in one turn;
a section whose tools were not offered → `more_tools` first),
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

# section word → the tool call a model would make, and the section it is in (for more_tools)
SECTION_CALLS: tuple[tuple[tuple[str, ...], str, dict[str, Any], str], ...] = (
    (("condition", "diagnos", "problem"), "get_conditions", {"status": "active"}, "conditions"),
    (("medic", "drug", "taking", "prescri", "pill"), "get_medications", {"status": "active"}, "medications"),
    (("allerg",), "get_allergies", {}, "allergies"),
    (
        ("a1c", "lab", "result", "cholesterol", "glucose", "blood pressure", "test"),
        "get_labs",
        {"latest_only": True},
        "labs",
    ),
    (("vaccin", "immuni", "shot"), "get_immunizations", {}, "immunizations"),
    (("visit", "encounter", "seen"), "get_encounters", {"limit": 5}, "encounters"),
    (("procedure", "surgery", "operation"), "get_procedures", {"limit": 5}, "procedures"),
    (("care plan", "plan"), "get_care_plans", {"status": "active"}, "care_plans"),
    (("appointment",), "list_appointments", {}, "appointments"),
)
MORE_TOOLS = "more_tools"
THINK_WORDS = ("why", "trend", "compare", "changed", "over time")
_HANDLE_LINE = re.compile(r"^\s*\[(?P<handle>[A-Z]{1,2}\d+)\]\s*(?P<row>.+)$", re.MULTILINE)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def calls_for(question: str, offered: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """The lookups the question's words call for; tools not offered yet are asked for first
    with `more_tools` (by section), as a model would."""
    lowered = question.lower()
    wanted = [
        (name, dict(args), sec)
        for words, name, args, sec in SECTION_CALLS
        if any(w in lowered for w in words)
    ]
    missing = sorted({sec for name, _, sec in wanted if name not in offered})
    if missing and MORE_TOOLS in offered:
        return [(MORE_TOOLS, {"sections": missing})]
    calls = [(n, a) for n, a, _ in wanted if n in offered]
    if "a1c" in lowered and any(n == "get_labs" for n, _ in calls):
        calls = [(n, {**a, "query": "A1C"} if n == "get_labs" else a) for n, a in calls]
    if not calls and "get_patient_profile" in offered:
        calls = [("get_patient_profile", {})]
    return calls


def _question(messages: list[dict[str, Any]]) -> str:
    """The current question: the last user turn that is not tool results."""
    for m in reversed(messages):
        content = m.get("content")
        if m.get("role") == "user" and not (
            isinstance(content, list)
            and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        ):
            return _text_of(content)
    return ""


def _only_more_tools(messages: list[dict[str, Any]]) -> bool:
    """Was the last assistant turn only `more_tools` calls (so the lookups come next)?"""
    if len(messages) < 2 or not isinstance(messages[-2].get("content"), list):
        return False
    names = [
        b.get("name") for b in messages[-2]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    return bool(names) and all(n == MORE_TOOLS for n in names)


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
    if results and not _only_more_tools(messages):
        return MessageReply(
            message([text_block(answer_from(results))], "end_turn", usage_=usage(in_tokens, 60))
        )
    question = _question(messages)
    offered = {t.get("name") for t in body.get("tools") or []}
    calls = calls_for(question, offered)
    content: list[dict[str, Any]] = []
    thinking_on = (body.get("thinking") or {}).get("type") in ("adaptive", "enabled")
    if thinking_on and not results and any(w in question.lower() for w in THINK_WORDS):
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
