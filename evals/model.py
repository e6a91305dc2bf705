"""The shape of a question set: questions, their typed expected answers, gold records, setups.

A set is a JSON Lines file: the first line is a `SetHeader` (format version, seed, pinned
"now", which patients, a fingerprint of the database it was computed from), every other line
one `Question`. Everything an evaluator needs to judge an answer lives in the question — the
expected answer is typed (a number with unit and tolerance, a date, a set of items, …) so
scoring is a deterministic comparison, never a second model's opinion.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

SET_FORMAT = "chartside-eval-set/1"

Role = Literal["patient", "clinician"]

CATEGORIES: tuple[str, ...] = (
    "safety",
    "lookup",
    "list",
    "latest_first",
    "aggregate",
    "trend",
    "cross_resource",
    "negation",
    "notes",
    "leaflet",
    "booking",
)
"""Every category, in report order (safety first: its failures matter most)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GoldRecord(_Strict):
    """A record the answer rests on, as the tools cite it: (kind, record id)."""

    kind: str  # condition | medication | observation | allergy | encounter | immunization | note | leaflet | ...
    id: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"


class Item(_Strict):
    """One member of an expected set: how it may be named and which record says it."""

    label: str
    aliases: tuple[str, ...] = ()
    record_ids: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Expected answers
# --------------------------------------------------------------------------------------------


class NumberAnswer(_Strict):
    type: Literal["number"] = "number"
    value: float
    unit: str | None = None
    tolerance: float = Field(ge=0, description="Absolute tolerance in the value's unit.")
    count: bool = Field(default=False, description="A count (header counts such as '(4)' may state it).")


class DateAnswer(_Strict):
    type: Literal["date"] = "date"
    value: dt.date


class SetAnswer(_Strict):
    """All `items` should be named; naming any of `forbidden` (stopped, resolved, entered-in-error…) costs."""

    type: Literal["set"] = "set"
    items: tuple[Item, ...]
    forbidden: tuple[Item, ...] = ()


class BooleanAnswer(_Strict):
    type: Literal["boolean"] = "boolean"
    value: bool


class TrendAnswer(_Strict):
    """An open "how has X changed?": the answer must say which way it went (first → latest
    value) and, for full credit, state the latest value."""

    type: Literal["trend"] = "trend"
    direction: Literal["up", "down"]
    first: float
    last: float
    unit: str | None = None
    tolerance: float = Field(ge=0, description="Absolute tolerance on the latest value.")
    count: int = Field(ge=2, description="How many values the trend spans.")


class TextAnswer(_Strict):
    """A fact stated in words: any of `accepted` must appear. `reference` is for the optional judge."""

    type: Literal["text"] = "text"
    accepted: tuple[str, ...]
    reference: str = ""


class AbstainAnswer(_Strict):
    """The record has nothing to answer with: the agent must say so, not invent a value."""

    type: Literal["abstain"] = "abstain"
    missing: str  # what is absent, for the report ("an HbA1c result")
    # the part of the record an agent must have looked in before saying so (labs, immunizations,
    # leaflets, …; the tools' sections); None = any
    section: str | None = None


RefusalKind = Literal["emergency", "clinical_advice", "out_of_scope", "other_patient", "injection"]


class RefuseAnswer(_Strict):
    """A request the product must not fulfil; nothing in `must_not_contain` may appear."""

    type: Literal["refuse"] = "refuse"
    kind: RefusalKind
    must_not_contain: tuple[str, ...] = ()


class BookingAnswer(_Strict):
    """Graded on database state right after the task, never on what the agent says it did.

    `book`: exactly one new booked appointment for this patient, in a department of
    `specialty` (when given), starting inside the window (and on `slot_id` when given).
    `cancel`: `appointment_id` is cancelled and its slot free again, nothing new booked.
    `none`: nothing may change (no slot in the window; a request the agent must not act on).
    """

    type: Literal["booking"] = "booking"
    action: Literal["book", "cancel", "none"]
    specialty: str | None = None
    window_start: dt.datetime | None = None
    window_end: dt.datetime | None = None
    slot_id: str | None = None
    appointment_id: str | None = None


Expected = Annotated[
    NumberAnswer
    | DateAnswer
    | SetAnswer
    | BooleanAnswer
    | TextAnswer
    | TrendAnswer
    | AbstainAnswer
    | RefuseAnswer
    | BookingAnswer,
    Field(discriminator="type"),
]


# --------------------------------------------------------------------------------------------
# Setups: state a question needs that must not stay in the database afterwards
# --------------------------------------------------------------------------------------------


class PlantNote(_Strict):
    """A clinical note inserted for one question (e.g. one carrying injected instructions)."""

    type: Literal["plant_note"] = "plant_note"
    note_id: str
    text: str
    date: dt.datetime


class BookExisting(_Strict):
    """An appointment that exists before the task starts (for "cancel my appointment")."""

    type: Literal["book_existing"] = "book_existing"
    appointment_id: str
    slot_id: str


Setup = Annotated[PlantNote | BookExisting, Field(discriminator="type")]


class Question(_Strict):
    id: str
    pair_id: str = Field(description="Same fact asked in other phrasings/roles shares this id.")
    patient_id: str
    role: Role
    category: str
    template: str
    turns: tuple[str, ...] = Field(min_length=1, description="Asked in order; the last one is graded.")
    expected: Expected
    gold: tuple[GoldRecord, ...] = ()
    now: dt.datetime
    setup: tuple[Setup, ...] = ()
    tags: tuple[str, ...] = ()
    explanation: str = Field(description="How the truth was computed, for a human reading a failure.")
    about: tuple[str, ...] = Field(
        default=(),
        description="Names of what is asked about (lab, drug, vaccine…): the answering sentence names it.",
    )
    family: str = Field(
        default="plain", description="Phrasing family: plain, pronoun, typo, lay, relative_time."
    )
    bank: str = Field(
        default="dev", description="Phrase bank: dev (tuned on) or test (frozen, never tuned on)."
    )

    @property
    def writes(self) -> bool:
        """Needs exclusive, restorable database state (booking tasks and planted setups)."""
        return self.expected.type == "booking" or bool(self.setup)

    @property
    def multi_turn(self) -> bool:
        return len(self.turns) > 1


class SetHeader(_Strict):
    format: Literal["chartside-eval-set/1"] = SET_FORMAT
    seed: int
    now: dt.datetime
    patients: tuple[str, ...]
    database: str = Field(description="Fingerprint of the records the truth was computed from.")
    counts: dict[str, int] = Field(default_factory=dict)
    skipped: dict[str, str] = Field(default_factory=dict, description="category → why nothing was generated")
    warnings: tuple[str, ...] = ()


class QuestionSet(BaseModel):
    header: SetHeader
    questions: list[Question]


QUESTION_ADAPTER: TypeAdapter[Question] = TypeAdapter(Question)


class SetFileError(ValueError):
    """A set file that cannot be read; the message names the file and line."""


def _dumps(model: BaseModel) -> bytes:
    return orjson.dumps(model.model_dump(mode="json", exclude_defaults=False), option=orjson.OPT_SORT_KEYS)


def write_set(path: Path, header: SetHeader, questions: Iterable[Question]) -> int:
    """Write atomically (temp file + rename): a reader never sees half a set."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    with tmp.open("wb") as fh:
        fh.write(_dumps(header) + b"\n")
        for question in questions:
            fh.write(_dumps(question) + b"\n")
            count += 1
    tmp.replace(path)
    return count


def _lines(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise SetFileError(f"{path}: cannot open ({exc.strerror})") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise SetFileError(f"{path}:{number}: not JSON ({exc})") from exc
            if not isinstance(data, dict):
                raise SetFileError(f"{path}:{number}: expected a JSON object")
            yield number, data


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "line"
    return f"field '{where}': {err['msg']}"


def read_set(path: Path) -> QuestionSet:
    """Read and validate a whole set; the first bad line stops it with file:line and field."""
    lines = _lines(path)
    try:
        number, first = next(lines)
    except StopIteration:
        raise SetFileError(f"{path}: empty file, expected a set header on line 1") from None
    if first.get("format") != SET_FORMAT:
        raise SetFileError(f"{path}:{number}: not a question set (line 1 must have format {SET_FORMAT!r})")
    try:
        header = SetHeader.model_validate(first)
    except ValidationError as exc:
        raise SetFileError(f"{path}:{number}: bad header, {_first_error(exc)}") from exc
    questions: list[Question] = []
    seen: set[str] = set()
    for number, data in lines:
        try:
            question = QUESTION_ADAPTER.validate_python(data)
        except ValidationError as exc:
            qid = data.get("id", "?")
            raise SetFileError(f"{path}:{number}: question {qid}: {_first_error(exc)}") from exc
        if question.id in seen:
            raise SetFileError(f"{path}:{number}: duplicate question id {question.id}")
        seen.add(question.id)
        questions.append(question)
    return QuestionSet(header=header, questions=questions)
