"""Record and replay model exchanges: a run someone makes with a real key becomes a test.

`chartside ask --save-transcript FILE` writes, per question, every Messages API call exactly
as sent (the request parameters the SDK serialised) and the message that came back. Replay
serves those messages from the fake API and compares each new request with the recorded
one; the first difference (a changed prompt, tool schema, tool result, or one model call
more or less) fails with the path where they differ. Transcripts are plain JSON:

    {"format": 1, "model": …, "provider": …, "patient_id": …, "role": …, "today": "YYYY-MM-DD", "thinking": …,
     "questions": [{"question": …, "exchanges": [{"request": {…}, "response": {…}}]}]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.fake_api import JSONReply, MessageReply, RecordedRequest, error_body

FORMAT = 1


@dataclass
class Transcript:
    model: str
    provider: str
    patient_id: str
    role: str
    today: str
    thinking: str = "auto"  # the CHARTSIDE_THINKING the run used (replay uses the same)
    questions: list[dict[str, Any]] = field(default_factory=list)

    def add(self, question: str, exchanges: list[Any]) -> None:
        self.questions.append(
            {
                "question": question,
                "exchanges": [{"request": e.request, "response": e.response} for e in exchanges],
            }
        )

    def write(self, path: Path) -> None:
        data = {"format": FORMAT, **self.__dict__}
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(path)  # never a half-written transcript

    @classmethod
    def read(cls, path: Path) -> Transcript:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: not a readable transcript ({exc})") from None
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: transcript format {data.get('format')!r}, expected {FORMAT}")
        missing = [
            k for k in ("model", "provider", "patient_id", "role", "today", "questions") if k not in data
        ]
        if missing:
            raise ValueError(f"{path}: missing field(s) {', '.join(missing)}")
        for i, q in enumerate(data["questions"]):
            if not q.get("exchanges") or any(e.get("response") is None for e in q["exchanges"]):
                raise ValueError(f"{path}: questions[{i}] has an exchange without a response")
        keys = ("model", "provider", "patient_id", "role", "today", "questions")
        return cls(**{k: data[k] for k in keys}, thinking=data.get("thinking", "auto"))


def first_difference(recorded: Any, sent: Any, where: str = "request") -> str | None:
    """The path of the first place two JSON values differ, with both sides (shortened)."""
    if isinstance(recorded, dict) and isinstance(sent, dict):
        for key in sorted(set(recorded) | set(sent)):
            if key not in sent:
                return f"{where}.{key}: recorded but not sent"
            if key not in recorded:
                return f"{where}.{key}: sent but not recorded"
            found = first_difference(recorded[key], sent[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(sent, list):
        for i, (a, b) in enumerate(zip(recorded, sent, strict=False)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        if len(recorded) != len(sent):
            return f"{where}: {len(recorded)} items recorded, {len(sent)} sent"
        return None
    if recorded != sent:
        return f"{where}: recorded {str(recorded)[:120]!r}, sent {str(sent)[:120]!r}"
    return None


class Replayer:
    """A fake-API responder that plays one question's recorded exchanges in order."""

    def __init__(self, exchanges: list[dict[str, Any]]) -> None:
        self.exchanges = exchanges
        self.served = 0
        self.mismatches: list[str] = []

    def __call__(self, request: RecordedRequest) -> MessageReply | JSONReply:
        if self.served >= len(self.exchanges):
            self.mismatches.append(
                f"call {self.served + 1}: more model calls than recorded ({len(self.exchanges)})"
            )
            return JSONReply(
                error_body("invalid_request_error", self.mismatches[-1]),
                status=400,
                headers={"x-should-retry": "false"},
            )
        recorded = self.exchanges[self.served]
        sent = {k: v for k, v in (request.body or {}).items() if k != "stream"}
        diff = first_difference(recorded["request"], sent)
        self.served += 1
        if diff:
            self.mismatches.append(f"call {self.served}: {diff}")
            return JSONReply(
                error_body("invalid_request_error", self.mismatches[-1]),
                status=400,
                headers={"x-should-retry": "false"},
            )
        return MessageReply(recorded["response"])
