"""`chartside eval retrieval`: does search find the passage that answers, and refuse otherwise?

Leaflet questions come from a labelled file (question, expected leaflet, a phrase the
retrieved passage must contain; `expect: null` = the corpus does not answer it). Note
questions are generated from the notes in the database (a medication, immunization,
procedure or finding a note states → a question whose answer must contain it), plus fixed
questions no note can answer.

Ranking metrics (hit@1, hit@5, MRR, answer present) are measured on the fused order before
the gate; the gate is then judged on its own: an answerable question must keep a passage of
its expected document, an unanswerable one must keep nothing. The similarity of the best
relevant passage (answerable) and of the best passage at all (unanswerable) give two
ranges; the floor belongs between them, and the report says when they overlap.
"""

from __future__ import annotations

import json
import random
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import text

from knowledge.embeddings import Embedder
from knowledge.gate import passes_gate
from knowledge.search import DEFAULT_KEYWORD_BACKEND, Passage, SearchOutcome, search_leaflets, search_notes
from records.database import Database, patient_transaction

QUESTIONS_FILE = Path(__file__).resolve().parent / "retrieval_questions.jsonl"
TOP_K = 5
UNGATED = -1.0


@dataclass(frozen=True)
class LabelledQuestion:
    question: str
    expect: str | None  # leaflet slug, or None when the corpus does not answer it
    phrase: str | None
    patient_id: str | None = None  # note questions only

    @property
    def answerable(self) -> bool:
        return self.phrase is not None


def load_questions(path: Path = QUESTIONS_FILE) -> list[LabelledQuestion]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            question = LabelledQuestion(raw["question"], raw.get("expect"), raw.get("phrase"))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a labelled question ({exc})") from exc
        if bool(question.expect) != bool(question.phrase):
            raise ValueError(f"{path}:{number}: give both 'expect' and 'phrase', or neither (unanswerable)")
        questions.append(question)
    return questions


@dataclass
class QuestionResult:
    question: LabelledQuestion
    rank: int | None  # 1-based rank of the first relevant passage (ungated), None = not in top K
    answer_present: bool
    relevant_similarity: float | None  # best similarity among relevant passages
    best_similarity: float | None  # best similarity among all candidates
    kept: list[Passage] = field(default_factory=list)  # what the gate admitted
    gate_correct: bool = False

    @property
    def answerable(self) -> bool:
        return self.question.answerable


@dataclass
class FloorAdvice:
    floor: float
    overlap: bool
    answerable_range: tuple[float, float] | None
    unanswerable_range: tuple[float, float] | None
    misjudged: int  # questions the suggested floor still gets wrong


def suggest_floor(answerable: Sequence[float], unanswerable: Sequence[float]) -> FloorAdvice:
    """The floor between the two ranges, or, when they overlap, the one that misjudges fewest
    (ties go to the higher floor: refusing is safer than a wrong passage)."""
    a_range = (min(answerable), max(answerable)) if answerable else None
    u_range = (min(unanswerable), max(unanswerable)) if unanswerable else None
    if not answerable or not unanswerable:
        return FloorAdvice(float("nan"), False, a_range, u_range, 0)
    if max(unanswerable) < min(answerable):
        return FloorAdvice((max(unanswerable) + min(answerable)) / 2, False, a_range, u_range, 0)
    values = sorted({*answerable, *unanswerable})
    best: tuple[int, float] | None = None
    # thresholds in (values[i-1], values[i]] all judge alike: try each interval once, at its middle
    for low, high in zip([values[0] - 0.01, *values], [*values, values[-1] + 0.01], strict=True):
        candidate = (low + high) / 2
        wrong = sum(s < candidate for s in answerable) + sum(s >= candidate for s in unanswerable)
        if best is None or wrong <= best[0]:
            best = (wrong, candidate)
    assert best is not None
    return FloorAdvice(best[1], True, a_range, u_range, best[0])


def _searchable(p: Passage) -> str:
    return f"{p.heading_path}\n{p.overlap_text}\n{p.text}".casefold()


def judge(question: LabelledQuestion, outcome: SearchOutcome, floor: float, relevant) -> QuestionResult:
    """`outcome` must be ungated (floor −1): the gate is applied here with `floor`."""
    ranked = outcome.passages
    top = ranked[:TOP_K]
    rank = next((i for i, p in enumerate(top, start=1) if relevant(p)), None)
    phrase = (question.phrase or "").casefold()
    answer_present = bool(phrase) and any(phrase in _searchable(p) for p in top)
    relevant_sims = [p.similarity for p in ranked if relevant(p)]
    kept = [p for p in ranked if passes_gate(p.similarity, floor, p.exact)][:TOP_K]
    gate_correct = any(relevant(p) for p in kept) if question.answerable else not kept
    return QuestionResult(
        question=question,
        rank=rank,
        answer_present=answer_present,
        relevant_similarity=max(relevant_sims) if relevant_sims else None,
        best_similarity=outcome.best_similarity,
        kept=kept,
        gate_correct=gate_correct,
    )


@dataclass
class Metrics:
    answerable: int
    unanswerable: int
    hit_at_1: float
    hit_at_5: float
    mrr: float
    answer_present: float
    kept_when_answerable: float  # gate admitted a relevant passage
    rejected_when_unanswerable: float
    advice: FloorAdvice
    floor: float


def summarise(results: Sequence[QuestionResult], floor: float) -> Metrics:
    answerable = [r for r in results if r.answerable]
    unanswerable = [r for r in results if not r.answerable]
    n = max(len(answerable), 1)
    advice = suggest_floor(
        [r.relevant_similarity for r in answerable if r.relevant_similarity is not None],
        [r.best_similarity for r in unanswerable if r.best_similarity is not None],
    )
    return Metrics(
        answerable=len(answerable),
        unanswerable=len(unanswerable),
        hit_at_1=sum(r.rank == 1 for r in answerable) / n,
        hit_at_5=sum(r.rank is not None for r in answerable) / n,
        mrr=sum(1 / r.rank for r in answerable if r.rank) / n,
        answer_present=sum(r.answer_present for r in answerable) / n,
        kept_when_answerable=sum(r.gate_correct for r in answerable) / n,
        rejected_when_unanswerable=(
            sum(r.gate_correct for r in unanswerable) / len(unanswerable) if unanswerable else float("nan")
        ),
        advice=advice,
        floor=floor,
    )


def evaluate_leaflets(
    db: Database,
    embedder: Embedder,
    questions: Sequence[LabelledQuestion],
    *,
    floor: float,
    keyword: str = DEFAULT_KEYWORD_BACKEND,
    legs: tuple[str, ...] = ("vector", "keyword", "exact"),
) -> list[QuestionResult]:
    results = []
    with db.app.begin() as conn:
        for question in questions:
            vector = embedder.embed_query(question.question)
            outcome = search_leaflets(
                conn,
                question.question,
                vector,
                model_name=embedder.model_name,
                limit=20,
                floor=UNGATED,
                keyword=keyword,  # type: ignore[arg-type]
                legs=legs,
            )
            phrase = (question.phrase or "").casefold()

            def relevant(p: Passage, q=question, phrase=phrase) -> bool:
                return q.expect is not None and p.meta.get("slug") == q.expect and phrase in _searchable(p)

            results.append(judge(question, outcome, floor, relevant))
    return results


# ------------------------------------------------------------------------------------------
# Note questions, generated from the notes in the database
# ------------------------------------------------------------------------------------------

_PATTERNS = (
    (re.compile(r"immunizations?:\s*([^.\n]+)", re.I), "When did I get the {x} vaccine?"),
    (re.compile(r"procedures were conducted:\s*\n?-\s*([^\n]+)", re.I), "Have I ever had {x}?"),
    (
        re.compile(r"prescribed the following medications:\s*\n?-\s*([^\n]+)", re.I),
        "When was I prescribed {x}?",
    ),
    (re.compile(r"presenting with ([^.\n,]+)", re.I), "Was I ever seen for {x}?"),
    (re.compile(r"history of ([^.\n,]+)", re.I), "Do I have a history of {x}?"),
)
NOTE_UNANSWERABLE = (
    "How do I renew my passport?",
    "What is the best recipe for chocolate cake?",
    "Who won the football game last night?",
    "What is the capital of Australia?",
    "How do I fix a leaking kitchen tap?",
)


def generate_note_questions(db: Database, *, count: int = 40, seed: int = 7) -> list[LabelledQuestion]:
    """Questions whose answer a note states verbatim, from notes that have been indexed."""
    with db.admin.connect() as conn:
        patients = (
            conn.execute(text("SELECT DISTINCT patient_id FROM note_chunks ORDER BY 1")).scalars().all()
        )
    rng = random.Random(seed)
    found: list[LabelledQuestion] = []
    seen: set[tuple[str, str]] = set()
    for patient_id in patients:
        with patient_transaction(db.admin, patient_id) as conn:
            notes = conn.execute(
                text("SELECT text FROM clinical_notes WHERE patient_id = :p ORDER BY date, id"),
                {"p": patient_id},
            ).scalars()
            for note in notes:
                for pattern, template in _PATTERNS:
                    for match in pattern.finditer(note):
                        value = " ".join(match.group(1).split()).strip(" ;")
                        if 4 <= len(value) <= 80 and (patient_id, value.casefold()) not in seen:
                            seen.add((patient_id, value.casefold()))
                            found.append(LabelledQuestion(template.format(x=value), None, value, patient_id))
    rng.shuffle(found)
    picked = found[:count]
    if patients:
        picked += [LabelledQuestion(q, None, None, rng.choice(patients)) for q in NOTE_UNANSWERABLE]
    return picked


def evaluate_notes(
    db: Database, embedder: Embedder, questions: Sequence[LabelledQuestion], *, floor: float
) -> list[QuestionResult]:
    results = []
    for question in questions:
        assert question.patient_id is not None
        vector = embedder.embed_query(question.question)
        with patient_transaction(db.app, question.patient_id) as conn:
            outcome = search_notes(
                conn,
                question.question,
                vector,
                patient_id=question.patient_id,
                model_name=embedder.model_name,
                limit=20,
                floor=UNGATED,
            )
        phrase = (question.phrase or "").casefold()

        def relevant(p: Passage, phrase=phrase) -> bool:
            return bool(phrase) and phrase in _searchable(p)

        results.append(judge(question, outcome, floor, relevant))
    return results


def similarity_summary(values: Sequence[float]) -> str:
    if not values:
        return "–"
    return f"{min(values):.3f} … {statistics.median(values):.3f} … {max(values):.3f}"
