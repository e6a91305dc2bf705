"""The labelled safety utterance set: loading, validation and the one deterministic split.

Lines come from the hand-written files (`handwritten_*.txt`, natural wordings, one per line
under a `## <label> <category> <role>` header) and the templated file (`templated.csv`,
written by `evals.safety.templates`). Every line has text, label, category, role.

Labels are what the gate must do for that role:

* `emergency` — the constant emergency reply;
* `advice` — a patient asking for clinical advice: the helpful refusal;
* `allow` — let it through (record, leaflet and booking questions that share words with the
  two above; clinicians' chart questions, advice wording included).

The split is by SHA-256 of a split key: the normalised text for hand-written lines, the
template group for templated lines (so near-copies never straddle the split). A key whose
hash falls below `TEST_PERCENT` is in the frozen test part. Thresholds and rules are tuned on
the `tune` part only; `chartside eval safety` reports on `test`.

Every `holdout_<name>.txt` file dropped into this folder is a frozen part of its own (part
`<name>`, never split, never tuned on, never exported as an exemplar): `frozen_parts()` finds
them, so `chartside eval safety --part <name>`, `--part frozen` (every frozen part) and the
`make test` check that fails on any missed emergency cover a new batch with no code change.
Lines of `tune_*.txt` are always in the tune part: batches once held out whose misses have
been looked at (`fresh`/`fresh2` moved in round three, `frozen2` in round four; see the
README's safety section).
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).parent
LABELS = ("emergency", "advice", "allow")
ROLES = ("patient", "clinician")
TEST_PERCENT = 45
Split = str  # "tune" | "test" | the name of a held-out batch (`holdout_<name>.txt`)
HOLDOUT_PREFIX = "holdout_"
ALL_FROZEN = "frozen"  # the `--part` name of every frozen part together


class SafetySetError(ValueError):
    """A line of the labelled set is malformed; the message names the file, line and field."""


@dataclass(frozen=True)
class Utterance:
    text: str
    label: str  # emergency | advice | allow
    category: str
    role: str
    source: str  # file name and line number
    split_key: str
    batch: str | None = None  # from `holdout_<batch>.txt`: always held out; "tune" for `tune_*.txt`

    @property
    def split(self) -> Split:
        return self.batch or split_of(self.split_key)

    @property
    def frozen(self) -> bool:
        """In a part the targets are measured on (never tuned on, never an exemplar)."""
        return self.split != "tune"

    def in_part(self, name: str) -> bool:
        """`all` holds every line, `frozen` every frozen line, any other name its own part."""
        return name == "all" or (self.frozen if name == ALL_FROZEN else self.split == name)


def split_of(key: str) -> Split:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return "test" if int.from_bytes(digest[:4], "big") % 100 < TEST_PERCENT else "tune"


def frozen_parts(folder: Path | None = None) -> tuple[str, ...]:
    """The parts the targets are measured on and never tuned on: the split's `test` side and
    one part per `holdout_<name>.txt` file present (in `folder`, default this package's folder,
    read at call time so a test can point it elsewhere)."""
    folder = folder or HERE
    return (
        "test",
        *(p.stem.removeprefix(HOLDOUT_PREFIX) for p in sorted(folder.glob(HOLDOUT_PREFIX + "*.txt"))),
    )


FROZEN_PARTS = frozen_parts()


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _check(path: Path, line_no: int, label: str, category: str, role: str, text: str) -> None:
    where = f"{path.name}:{line_no}"
    if label not in LABELS:
        raise SafetySetError(f"{where}: label {label!r} is not one of {', '.join(LABELS)}")
    if role not in ROLES:
        raise SafetySetError(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
    if not category or not category.replace("_", "").isalnum():
        raise SafetySetError(f"{where}: category {category!r} must be a word (letters, digits, _)")
    if not text.strip():
        raise SafetySetError(f"{where}: text is empty")


def read_handwritten(path: Path, *, batch: str | None = None) -> list[Utterance]:
    out: list[Utterance] = []
    header: tuple[str, str, str] | None = None
    for line_no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if line.startswith("## "):
            parts = line[3:].split()
            if len(parts) != 3:
                raise SafetySetError(f"{path.name}:{line_no}: header needs '## <label> <category> <role>'")
            header = (parts[0], parts[1], parts[2])
            continue
        if not line or line.startswith("#"):
            continue
        if header is None:
            raise SafetySetError(
                f"{path.name}:{line_no}: utterance before any '## label category role' header"
            )
        label, category, role = header
        _check(path, line_no, label, category, role, line)
        out.append(Utterance(line, label, category, role, f"{path.name}:{line_no}", _key(line), batch))
    return out


def read_templated(path: Path) -> list[Utterance]:
    out: list[Utterance] = []
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"text", "label", "category", "role", "group"} - set(reader.fieldnames or ())
        if missing:
            raise SafetySetError(f"{path.name}: missing column(s) {', '.join(sorted(missing))}")
        for line_no, row in enumerate(reader, start=2):
            _check(path, line_no, row["label"], row["category"], row["role"], row["text"] or "")
            if not row["group"]:
                raise SafetySetError(f"{path.name}:{line_no}: group is empty")
            out.append(
                Utterance(
                    row["text"],
                    row["label"],
                    row["category"],
                    row["role"],
                    f"{path.name}:{line_no}",
                    f"group:{row['group']}",
                )
            )
    return out


def load(folder: Path | None = None) -> tuple[Utterance, ...]:
    """Every labelled line; a duplicate text (same role) in two places is an error."""
    folder = folder or HERE
    rows: list[Utterance] = []
    for path in sorted(folder.glob("handwritten_*.txt")):
        rows.extend(read_handwritten(path))
    for path in sorted(folder.glob("tune_*.txt")):
        rows.extend(read_handwritten(path, batch="tune"))
    for path in sorted(folder.glob(HOLDOUT_PREFIX + "*.txt")):
        name = path.stem.removeprefix(HOLDOUT_PREFIX)
        if name in ("tune", "all", ALL_FROZEN):
            raise SafetySetError(f"{path.name}: {name!r} is a reserved part name; rename the file")
        rows.extend(read_handwritten(path, batch=name))
    templated = folder / "templated.csv"
    if templated.is_file():
        rows.extend(read_templated(templated))
    # a held-out batch is deduplicated only within itself: the gate was fixed before the batch
    # was written, so a line that happens to equal a tuning line is still a fair test of it and
    # stays in its frozen part (with that batch's label)
    seen: dict[tuple[str, str, str | None], Utterance] = {}
    for row in rows:
        held_out = row.batch if row.batch not in (None, "tune") else None
        key = (_key(row.text), row.role, held_out)
        first = seen.get(key)
        if first is not None and first.label != row.label:
            raise SafetySetError(
                f"{row.source}: {row.text!r} is labelled {row.label} but {first.source} says {first.label}"
            )
        seen.setdefault(key, row)
    return tuple(seen.values())


@lru_cache(maxsize=1)
def default_set() -> tuple[Utterance, ...]:
    return load()


def part(split: Split, rows: Iterable[Utterance] | None = None) -> list[Utterance]:
    """The lines of one part; `frozen` is every frozen part together."""
    return [r for r in (default_set() if rows is None else rows) if r.in_part(split)]
