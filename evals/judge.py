"""The optional LLM judge: only for the free-text parts deterministic comparators cannot grade.

It also grades a sample of questions that WERE graded deterministically, and the report shows
how often the two agree (percentage and Cohen's kappa): a judge that disagrees with exact
comparisons on dates and numbers should not be trusted on free text either. The judge's
model is named in every report that uses it. Verdicts are cached in the run folder, so
re-reporting does not call the model again.

The model is reached through `agent.llm.ModelClient` (the project's one Anthropic client).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from evals.scoring import Scored
from evals.summary import describe_expected

JUDGE_FILE = "judge.jsonl"
JudgeVerdictKind = Literal["correct", "incorrect", "abstained"]

SYSTEM = (
    "You grade answers given by a medical-records assistant. You get the question, the reference "
    "(what the record or the hospital leaflet supports) and the assistant's answer. Decide whether the "
    "answer gives the reference's answer (wording may differ; extra correct detail is fine; a wrong "
    "value, a contradiction or an invented fact is incorrect; saying the information is not available "
    "is 'abstained'). Reply with one JSON object only: "
    '{"verdict": "correct" | "incorrect" | "abstained", "reason": "<one sentence>"}'
)


@dataclass(frozen=True)
class Verdict:
    question_id: str
    verdict: JudgeVerdictKind
    reason: str
    model: str
    subset: Literal["free_text", "agreement"]


def needs_judge(s: Scored) -> bool:
    """Free text: answers that name a source but whose content no comparator can check."""
    e = s.question.expected
    return e.type == "text" and not e.accepted


def agreement_candidates(scored: Iterable[Scored], limit: int) -> list[Scored]:
    """Deterministically graded answers of checkable types, spread over categories."""
    pool = [
        s
        for s in scored
        if s.question.expected.type in ("number", "date", "boolean", "set", "abstain")
        or (s.question.expected.type == "text" and s.question.expected.accepted)
    ]
    pool = [s for s in pool if s.grade.verdict in ("correct", "wrong", "abstained")]
    pool.sort(key=lambda s: (s.question.category, s.question.id))
    by_cat: dict[str, list[Scored]] = {}
    for s in pool:
        by_cat.setdefault(s.question.category, []).append(s)
    picked: list[Scored] = []
    while len(picked) < limit and any(by_cat.values()):
        for items in by_cat.values():
            if items and len(picked) < limit:
                picked.append(items.pop(0))
    return picked


def prompt_for(s: Scored) -> str:
    e = s.question.expected
    reference = e.reference if e.type == "text" and e.reference else describe_expected(e)
    turns = "\n".join(f"- {t}" for t in s.question.turns)
    return (
        f"Question (asked by a {s.question.role}; earlier turns first):\n{turns}\n\n"
        f"Reference: {reference}\nHow the reference was established: {s.question.explanation}\n\n"
        f"Assistant's answer:\n{s.answer}\n"
    )


_JSON = re.compile(r"\{.*\}", re.S)


def parse_verdict(text: str) -> tuple[JudgeVerdictKind, str]:
    """The judge's JSON, tolerating prose around it; anything unreadable counts as incorrect."""
    match = _JSON.search(text or "")
    if match:
        try:
            data = json.loads(match.group(0))
        except json.JSONDecodeError:
            data = {}
        verdict = str(data.get("verdict", "")).strip().lower()
        if verdict in ("correct", "incorrect", "abstained"):
            return verdict, str(data.get("reason", ""))[:300]  # type: ignore[return-value]
    return "incorrect", f"unreadable judge reply: {(text or '')[:120]!r}"


class Judge:
    def __init__(self, client: Any, model: str, concurrency: int = 4) -> None:
        self.client = client
        self.model = model
        self._limit = asyncio.Semaphore(concurrency)

    async def _ask(self, s: Scored, subset: Literal["free_text", "agreement"]) -> Verdict:
        async with self._limit:
            stream = self.client.stream(
                system=[{"type": "text", "text": SYSTEM}],
                messages=[{"role": "user", "content": prompt_for(s)}],
                tools=[],
                model=self.model,
                max_tokens=300,
            )
            async with stream as events:
                final = await events.get_final_message()
        text = "".join(getattr(b, "text", "") for b in final.content if getattr(b, "type", "") == "text")
        verdict, reason = parse_verdict(text)
        return Verdict(s.question.id, verdict, reason, self.model, subset)

    async def judge_all(self, free_text: list[Scored], agreement: list[Scored]) -> list[Verdict]:
        jobs = [self._ask(s, "free_text") for s in free_text] + [self._ask(s, "agreement") for s in agreement]
        return list(await asyncio.gather(*jobs))


def read_cache(run_dir: Path, model: str) -> dict[tuple[str, str], Verdict]:
    path = run_dir / JUDGE_FILE
    out: dict[tuple[str, str], Verdict] = {}
    if not path.exists():
        return out
    for line in path.read_bytes().splitlines():
        if line.strip():
            data = orjson.loads(line)
            if data.get("model") == model:
                v = Verdict(**data)
                out[(v.question_id, v.subset)] = v
    return out


def write_cache(run_dir: Path, verdicts: Iterable[Verdict]) -> None:
    with (run_dir / JUDGE_FILE).open("ab") as fh:
        for v in verdicts:
            fh.write(orjson.dumps(v.__dict__) + b"\n")


@dataclass(frozen=True)
class Agreement:
    n: int
    agree: int
    kappa: float | None

    @property
    def rate(self) -> float | None:
        return self.agree / self.n if self.n else None


def agreement(pairs: Iterable[tuple[bool, bool]]) -> Agreement:
    """Percent agreement and Cohen's kappa between deterministic and judge 'correct' labels."""
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return Agreement(0, 0, None)
    agree = sum(a == b for a, b in pairs)
    p_o = agree / n
    pa = sum(a for a, _ in pairs) / n
    pb = sum(b for _, b in pairs) / n
    p_e = pa * pb + (1 - pa) * (1 - pb)
    kappa = None if p_e >= 1 else (p_o - p_e) / (1 - p_e)
    return Agreement(n, agree, kappa)
