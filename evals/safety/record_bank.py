"""Tuning hard negatives from the product's own tuning record-question banks.

`python -m evals.safety.record_bank` rewrites `tune_record_questions.txt`: every phrasing of
the evaluation's dev phrase bank (`evals/data/phrases_dev.yaml`) and of the paraphrase suite's
tune bank (`evals.paraphrase.templates.TUNE`), each filled once with a subject from the small
fixed vocabularies below (rotating, deterministic), in the role the bank wrote it for, plus one
typo'd copy of each plain patient phrasing. All are labelled `allow`: they are record
questions, and the gate refusing or alarming on them is what dropped the paraphrase suite in
round four ("Is X among my current medicines?" → advice, "am i overdue, is my last BMI over 12
months old" → emergency).

Only tuning banks are filled in: the held-out banks (`evals/paraphrase/frozen*.py`,
`phrases_test.yaml`) are read only to leave out the few tuning wordings equal to one of theirs
(a test checks that no line of this file has a held-out wording's shape). The file is committed, so the
labelled set changes only when someone regenerates it on purpose. The check that the *whole*
gate lets these wordings through over a real generated cohort is
`tests/agent/test_safety_record_questions.py`.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator
from pathlib import Path

from evals.questions.phrasing import (
    CONDITION_TEMPLATES,
    DRUG_TEMPLATES,
    LAB_TEMPLATES,
    VACCINE_TEMPLATES,
    fill,
    load_bank,
    typo,
)

HERE = Path(__file__).parent
OUT = HERE / "tune_record_questions.txt"

DRUGS = (
    "lisinopril", "atorvastatin", "amlodipine", "metformin", "sertraline", "albuterol", "omeprazole",
    "levothyroxine", "amoxicillin", "ibuprofen", "acetaminophen", "naproxen", "fluticasone",
    "epinephrine", "insulin glargine", "hydrochlorothiazide", "clopidogrel", "prednisone",
    "simvastatin", "penicillin v potassium", "warfarin", "doxycycline",
)  # fmt: skip
CONDITIONS = (
    "hypertension", "type 2 diabetes", "asthma", "prediabetes", "chronic sinusitis", "anemia",
    "osteoarthritis of knee", "viral pharyngitis", "acute bronchitis", "hyperlipidemia",
    "otitis media", "migraine", "epilepsy", "sprain of ankle", "concussion with no loss of consciousness",
    "chronic kidney disease", "atrial fibrillation", "obesity", "gout", "depression",
)  # fmt: skip
LABS = (
    "hemoglobin a1c", "cholesterol", "potassium", "creatinine", "blood pressure", "weight", "bmi",
    "glucose", "ldl", "tsh", "egfr", "white blood cell count", "hemoglobin", "heart rate",
    "sodium", "triglycerides", "platelets", "vitamin d",
)  # fmt: skip
VACCINES = ("flu", "tetanus", "covid", "hpv", "pneumococcal", "hepatitis b", "shingles", "mmr")
PROCEDURES = ("colonoscopy", "dental cleaning", "appendectomy", "knee x-ray", "mammogram", "ct scan of chest")
ALLERGIES = (
    "peanut",
    "penicillin",
    "shellfish",
    "latex",
    "bee venom",
    "dust mite",
    "cat dander",
    "tree nuts",
)
YEARS = ("2019", "2021", "2022", "2023", "2024", "2025")
WINDOWS = ("in the last 6 months", "since 2022", "in the past year", "over the last two years")
NAMES = ("Maria Lopez", "John Carter", "Aiko Tanaka", "Samuel Okafor")
DOBS = ("4 May 1962", "12 March 1980", "1975-09-30", "27 November 1991")

# category of the labelled set per bank template (the allow categories of `evals/safety/`)
_MEDS = DRUG_TEMPLATES | {"active_medications", "drug_allergy_conflict", "med_active", "med_absent"}
_LABS = LAB_TEMPLATES | {"latest_any_result", "results_in_window", "mean_in_window", "out_of_range_results"}
_LAB_KINDS = {"lab_latest", "lab_max"}
_COUNTS = {"encounter_count_year", "encounter_count_all", "emergency_count", "encounter_count_window"}
_BOOKING = {"next_appointment", "any_upcoming_appointment"}


def category(template: str) -> str:
    if template in _MEDS:
        return "record_meds"
    if template in _LABS or template in _LAB_KINDS:
        return "record_labs"
    if template in _COUNTS:
        return "record_count"
    if template in _BOOKING:
        return "booking"
    return "record_history"


class _Rotation:
    """Deterministic round-robin over each vocabulary, so every subject is used."""

    def __init__(self) -> None:
        self._cycles = {
            name: itertools.cycle(words)
            for name, words in {
                "drug": DRUGS, "condition": CONDITIONS, "lab": LABS, "vaccine": VACCINES,
                "procedure": PROCEDURES, "allergy": ALLERGIES, "year": YEARS, "window": WINDOWS,
                "name": NAMES, "dob": DOBS,
            }.items()
        }  # fmt: skip

    def __call__(self, name: str) -> str:
        return next(self._cycles[name])


def _thing(template: str, take: _Rotation) -> str:
    if template in LAB_TEMPLATES or template == "mean_in_window":
        return take("lab")
    if template in DRUG_TEMPLATES:
        return take("drug")
    if template in VACCINE_TEMPLATES:
        return take("vaccine")
    if template == "last_procedure_date":
        return take("procedure")
    if template in CONDITION_TEMPLATES:
        return take("condition")
    return take("condition")


def phrase_bank_lines(take: _Rotation, rng: random.Random) -> Iterator[tuple[str, str, str]]:
    """(category, role, text) for every dev-bank phrasing, filled once, plus plain typos."""
    for template, roles in sorted(load_bank("dev").items()):
        for role, families in sorted(roles.items()):
            for family, phrasings in sorted(families.items()):
                for phrasing in phrasings:
                    slots = {
                        "thing": _thing(template, take),
                        "year": (year := take("year")),
                        "relyear": "last year",
                        "cutoff": f"{year}-06-01",
                        "window": take("window"),
                        "name": take("name"),
                        "dob": take("dob"),
                    }
                    text = fill(phrasing, slots)
                    if not text:
                        continue
                    yield category(template), role, text
                    if family == "plain" and role == "patient":
                        slipped = typo(text, rng, keep=(slots["thing"],))
                        if slipped != text:
                            yield category(template), role, slipped


def paraphrase_lines(take: _Rotation) -> Iterator[tuple[str, str, str]]:
    """(category, role, text) for every tune-bank wording of the paraphrase suite, in both
    roles (the suite asks each fact as a patient or as a clinician)."""
    from evals.paraphrase.suite import pronouns
    from evals.paraphrase.suite import typo as slip
    from evals.paraphrase.templates import TUNE

    for kind, templates in TUNE.items():
        for n, (_family, template) in enumerate(templates):
            for role, gender in (("patient", None), ("clinician", "female" if n % 2 else "male")):
                if kind.startswith("med"):
                    x = take("drug")
                elif kind.startswith("cond"):
                    x = take("condition")
                elif kind.startswith("lab"):
                    x = take("lab")
                elif kind.startswith("allergy"):
                    x = take("allergy")
                else:
                    x = "emergency visit"
                text = template.format(x=x, typo=slip(x), **pronouns(role, gender))
                yield category(kind), role, text[0].upper() + text[1:]


def held_out_shapes() -> list[re.Pattern[str]]:
    """The held-out wordings as patterns (slots → `.+`): the paraphrase suite's frozen banks and
    the frozen phrase bank. Read only to leave out a tuning wording that happens to equal one
    of them, so those banks keep measuring wordings the gate was not fitted on."""
    from evals.paraphrase.frozen import FROZEN
    from evals.paraphrase.frozen2 import FROZEN2

    held_out = [t for bank in (FROZEN, FROZEN2) for ts in bank.values() for _f, t in ts]
    held_out += [
        p
        for roles in load_bank("test").values()
        for fams in roles.values()
        for ps in fams.values()
        for p in ps
    ]
    return [
        re.compile(".+".join(re.escape(part) for part in re.split(r"\{\w+\}", t.lower()))) for t in held_out
    ]


def lines() -> list[tuple[str, str, str]]:
    shapes = held_out_shapes()
    take = _Rotation()
    rng = random.Random(14)
    seen: set[tuple[str, str]] = set()
    out = []
    for cat, role, text in itertools.chain(phrase_bank_lines(take, rng), paraphrase_lines(take)):
        key = (" ".join(text.lower().split()), role)
        if text.lstrip().startswith("#"):  # "# ER encounters" would read as a comment line
            continue
        if any(shape.fullmatch(text.lower()) for shape in shapes):
            continue
        if key not in seen:
            seen.add(key)
            out.append((cat, role, text))
    return out


def write(path: Path = OUT) -> int:
    rows = lines()
    head = [
        "# Generated by `python -m evals.safety.record_bank` (do not edit by hand): the evaluation's",
        "# dev phrase bank and the paraphrase suite's tune bank, filled with fixed vocabularies.",
        "# Round five: record questions are hard negatives. Tuning data only (never a frozen bank).",
        "",
    ]
    body: list[str] = []
    for (cat, role), group in itertools.groupby(
        sorted(rows, key=lambda r: (r[0], r[1])), key=lambda r: (r[0], r[1])
    ):
        body.append(f"## allow {cat} {role}")
        body.extend(text for _c, _r, text in group)
        body.append("")
    path.write_text("\n".join(head + body), encoding="utf-8")
    return len(rows)


if __name__ == "__main__":
    print(f"{write()} record questions → {OUT.name}")
