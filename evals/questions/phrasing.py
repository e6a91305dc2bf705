"""Questions in the words people use: phrase banks per template, role and family.

A template asked one way only lets one wording bug zero the whole template, and lets an
answerer be tuned to that one sentence. Every record template has, per role, at least five
phrasings in `evals/data/phrases_dev.yaml`, in families — **plain**, **pronoun** ("their
latest…"), **lay** (words and abbreviations people type: "jab", "meds", "dx"), **relative
time** ("last year" for a year that is last year), and **typo** (made here from the others,
deterministically) — plus a **frozen test bank** (`phrases_test.yaml`) of wordings the answerer
is never tuned on: about one question in five is asked from it, and a test fails if any file
under `agent/` or `tools/` contains one of its phrasings.

Each question is asked in one wording, drawn with the pair's own generator, so the set keeps
its size while the number of distinct texts grows with the banks.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

FAMILIES: tuple[str, ...] = ("plain", "pronoun", "typo", "lay", "relative_time")
BANKS = ("dev", "test")
TEST_SHARE = 0.2  # share of questions asked from the frozen test bank
_SLOT = re.compile(r"\{(\w+)\}")
# {thing}: what is asked about; {year}/{relyear}: a year, "last year"; {cutoff}: a year ago;
# {window}: a span ending now ("in the last 6 months", "since 2020"); {name}/{dob}: identity
SLOTS = frozenset({"thing", "year", "relyear", "cutoff", "window", "name", "dob"})


class PhraseBankError(ValueError):
    """A phrase bank file that cannot be used; the message names the file, template and entry."""


@cache
def load_bank(bank: str) -> dict[str, dict[str, dict[str, tuple[str, ...]]]]:
    """template → role → family → phrasings, validated (known families and slots only)."""
    name = f"phrases_{bank}.yaml"
    text = resources.files("evals").joinpath("data", name).read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    out: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {}
    for template, roles in data.items():
        for role, families in (roles or {}).items():
            if role not in ("patient", "clinician"):
                raise PhraseBankError(f"{name}: {template}: unknown role {role!r}")
            for family, phrasings in (families or {}).items():
                if family not in FAMILIES or family == "typo":
                    raise PhraseBankError(f"{name}: {template}.{role}: unknown family {family!r}")
                for phrasing in phrasings:
                    unknown = set(_SLOT.findall(phrasing)) - SLOTS
                    if unknown:
                        raise PhraseBankError(
                            f"{name}: {template}.{role}.{family}: unknown slot {sorted(unknown)} in {phrasing!r}"
                        )
                out.setdefault(template, {}).setdefault(role, {})[family] = tuple(phrasings)
    return out


def relative_year(year: str, now: dt.datetime) -> str | None:
    """ "this year" / "last year" when the year is one of those; else the family is not asked."""
    if not year.isdigit():
        return None
    return {now.year: "this year", now.year - 1: "last year"}.get(int(year))


def typo(text: str, rng: random.Random, keep: tuple[str, ...] = ()) -> str:
    """One slip of the keyboard in a word of five letters or more that is not a name we ask
    about: two inner letters swapped, or one doubled."""
    protected = [(m.start(), m.end()) for k in keep if k for m in re.finditer(re.escape(k), text, re.I)]
    words = [
        m for m in re.finditer(r"[A-Za-z]{5,}", text) if not any(a <= m.start() < b for a, b in protected)
    ]
    if not words:
        return text
    m = rng.choice(words)
    w = m.group(0)
    i = rng.randrange(1, len(w) - 2)
    slipped = w[:i] + w[i + 1] + w[i] + w[i + 2 :] if rng.random() < 0.7 else w[: i + 1] + w[i] + w[i + 1 :]
    return text[: m.start()] + slipped + text[m.end() :]


@dataclass(frozen=True)
class Phrased:
    text: str
    family: str
    bank: str


def fill(phrasing: str, slots: dict[str, str]) -> str | None:
    names = _SLOT.findall(phrasing)
    if any(not slots.get(n) for n in names):
        return None
    text = _SLOT.sub(lambda m: slots[m.group(1)], phrasing)
    return text[0].upper() + text[1:] if phrasing[:1].isupper() else text


def options(template: str, role: str, slots: dict[str, str], bank: str) -> dict[str, list[str]]:
    """Family → filled phrasings this bank offers for one question (slots it cannot fill dropped)."""
    families = load_bank(bank).get(template, {}).get(role, {})
    out: dict[str, list[str]] = {}
    for family, phrasings in families.items():
        filled = [t for p in phrasings if (t := fill(p, slots))]
        if filled:
            out[family] = filled
    return out


def choose(template: str, role: str, slots: dict[str, str], rng: random.Random, original: str) -> Phrased:
    """One wording for one question: a bank (test about one time in five), a family, a phrasing."""
    bank = "test" if rng.random() < TEST_SHARE else "dev"
    offered = options(template, role, slots, bank)
    if not offered:
        bank, offered = "dev", options(template, role, slots, "dev")
    if not offered:
        return Phrased(original, "plain", "dev")
    families = sorted(offered) + (["typo"] if bank == "dev" and "plain" in offered else [])
    family = rng.choice(families)
    if family == "typo":
        base = rng.choice(offered["plain"] + offered.get("lay", []))
        return Phrased(typo(base, rng, keep=tuple(slots.values())), "typo", bank)
    return Phrased(rng.choice(offered[family]), family, bank)


def frozen_fragments(min_chars: int = 14) -> set[str]:
    """The literal pieces of every test-bank phrasing (between slots), lower-cased: what no
    file of the answerer may contain."""
    out = set()
    for roles in load_bank("test").values():
        for families in roles.values():
            for phrasings in families.values():
                for phrasing in phrasings:
                    for piece in _SLOT.split(phrasing)[::2]:
                        piece = piece.strip(" ?.,:-").lower()
                        if len(piece) >= min_chars:
                            out.add(piece)
    return out


def describe(
    template: str, key: str, record: Any, cohort: Any
) -> tuple[tuple[str, ...], dict[str, dict[str, str]]]:
    """What a fact is about (names the answering sentence may use) and the slots per role."""
    from evals.questions.record import lab_names
    from evals.vocab import condition_name, display_name, vaccine_name

    code, _, year = key.partition("|")
    if template == "mean_in_window":
        year = ""  # the key's second part is a window (its words are the builder's slot)
    slots: dict[str, dict[str, str]] = {"patient": {}, "clinician": {}}
    about: list[str] = []
    if template in LAB_TEMPLATES or template == "mean_in_window":
        series = [m for m in record.measurements if m.code == code]
        display = series[-1].display if series else cohort.lab_codes.get(code, (code, None))[0]
        pn, cn = lab_names(code, display, record)
        slots["patient"]["thing"], slots["clinician"]["thing"] = pn, cn
        about = [pn, cn, display, display_name(display)]
    elif template in DRUG_TEMPLATES:
        slots["patient"]["thing"] = slots["clinician"]["thing"] = key
        about = [key]
    elif template in VACCINE_TEMPLATES:
        rows = [i.display for i in record.immunizations if i.code == key]
        display = rows[0] if rows else cohort.vaccines.get(key, key)
        name = vaccine_name(display)
        slots["patient"]["thing"] = slots["clinician"]["thing"] = name
        about = [name, display]
    elif template in CONDITION_TEMPLATES or template == "last_procedure_date":
        pool = record.procedures if template == "last_procedure_date" else record.conditions
        rows = [c.display for c in pool if c.code == key]
        if rows:
            name = condition_name(rows[0]).lower()
            slots["patient"]["thing"] = slots["clinician"]["thing"] = name
            about = [name, condition_name(rows[0])]
    if template in YEAR_TEMPLATES:
        year = year or key
        for role in slots:
            slots[role]["year"] = year
            if rel := relative_year(year, record.now):
                slots[role]["relyear"] = rel
    for role in slots:
        slots[role]["cutoff"] = (record.now - dt.timedelta(days=365)).date().isoformat()
    return tuple(dict.fromkeys(a for a in about if a)), slots


LAB_TEMPLATES = frozenset(
    {
        "latest_value",
        "latest_date",
        "first_value",
        "measurement_count",
        "mean_in_year",
        "maximum_value",
        "minimum_value",
        "rose_since_previous",
        "change_since_previous",
        "rose_since_last_year",
        "above_range",
        "ever_outside_range",
        "absent_lab",
        "latest_older_than_year",
        "trend_summary",
    }
)
DRUG_TEMPLATES = frozenset(
    {
        "first_prescribed_date",
        "never_prescribed",
        "entered_in_error_medication",
        "stopped_medication",
        "restarted_medication",
        "still_on_active",
        "why_on_medication",
        "medication_dose",
        "medication_frequency",
        "medication_prescriber",
    }
)
VACCINE_TEMPLATES = frozenset({"last_vaccine_date", "absent_vaccine", "vaccine_given"})
CONDITION_TEMPLATES = frozenset(
    {
        "first_diagnosis_date",
        "resolved_condition",
        "recurring_condition",
        "entered_in_error_condition",
        "active_condition_current",
        "meds_after_diagnosis",
        "meds_for_condition",
    }
)
YEAR_TEMPLATES = frozenset({"vaccines_in_year", "encounter_count_year", "mean_in_year"})
