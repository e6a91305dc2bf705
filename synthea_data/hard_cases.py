"""The deliberate hard cases: which patient of a generated cohort carries which trap.

Evals and tests need records where a careless answer is wrong, and they need to find them
without guessing. The first patients of every cohort (whatever the seed) are scenario
patients; their names and ids change with the seed, their clinical story does not. The
generator writes `cohort.manifest` (JSON, deliberately not `*.json` so that
`chartside ingest DIR` does not take it for a bundle) naming, for each case, the patient, the
file and the ids of the resources that make up the trap.

A cohort smaller than `SCENARIO_PATIENTS` carries only the cases of the patients it has.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = "cohort.manifest"


@dataclass(frozen=True)
class HardCase:
    key: str
    patient_index: int
    summary: str
    roles: tuple[str, ...]  # the resource roles recorded in the manifest for this case


HARD_CASES: tuple[HardCase, ...] = (
    HardCase(
        "penicillin_allergy_with_amoxicillin",
        0,
        "Active penicillin allergy (RxNorm 7984, reactions recorded) and, years later, an amoxicillin "
        "prescription for an ear/throat infection: a drug-allergy contraindication to flag.",
        ("allergy", "prescription", "reason_condition"),
    ),
    HardCase(
        "allergy_without_reaction",
        0,
        "Latex allergy recorded with no reaction and no severity (as real Synthea often does).",
        ("allergy",),
    ),
    HardCase(
        "lab_crosses_reference_range",
        1,
        "HbA1c starts inside its reference range (<= 5.6 %), rises through prediabetes into the diabetic "
        "range: `normal_observation` is the last in-range value, `first_above_range` the next one (flagged H), "
        "`high_observation` the first value >= 6.5 % (the diabetes diagnosis).",
        ("normal_observation", "first_above_range", "high_observation"),
    ),
    HardCase(
        "medication_stopped_then_restarted",
        1,
        "Metformin started at the diabetes diagnosis, stopped (GI intolerance; status `stopped`), then "
        "restarted a year later as a new request written via medicationReference (status `active`).",
        ("stopped_request", "restarted_request", "medication"),
    ),
    HardCase(
        "entered_in_error_rows",
        2,
        "A type 2 diabetes Condition (verificationStatus entered-in-error, no clinicalStatus), a metformin "
        "request and an HbA1c of 13.9 % all entered in error on a prediabetic patient; the erroneous "
        "HbA1c is timed one minute after the correct one, so a naive 'latest' query picks it.",
        ("condition", "prescription", "observation", "corrected_observation"),
    ),
    HardCase(
        "immunization_not_done",
        2,
        "An influenza immunization with status `not-done` (patient objection): not a vaccine given.",
        ("immunization",),
    ),
    HardCase(
        "deceased_with_active_medication",
        3,
        "Deceased patient (Patient.deceasedDateTime) whose MedicationRequests are still `active`, as in real "
        "Synthea output; includes an inpatient admission (class IMP) before death.",
        ("patient", "active_request", "inpatient_encounter"),
    ),
    HardCase(
        "condition_resolved_then_recurring",
        4,
        "Major depressive disorder resolved (abatementDateTime set, sertraline stopped), then a new episode "
        "recorded as a second Condition with clinicalStatus `recurrence` and sertraline restarted.",
        ("first_episode", "recurrence", "stopped_request", "restarted_request"),
    ),
    HardCase(
        "unusual_name",
        5,
        "Several given names with non-ASCII letters and a family name with an apostrophe (file name too).",
        ("patient",),
    ),
    HardCase(
        "emergency_visit",
        5,
        "An emergency-class (EMER) asthma visit with an albuterol MedicationAdministration, then a follow-up; "
        "the same patient has a peanut allergy (anaphylaxis) with an epinephrine auto-injector.",
        ("emergency_encounter", "administration"),
    ),
)

SCENARIO_PATIENTS = 1 + max(case.patient_index for case in HARD_CASES)


def cases_for_index(index: int) -> tuple[HardCase, ...]:
    return tuple(case for case in HARD_CASES if case.patient_index == index)


def load_manifest(out_dir: Path) -> dict:
    """The manifest of a generated cohort folder (raises FileNotFoundError if there is none)."""
    return json.loads((Path(out_dir) / MANIFEST_NAME).read_text(encoding="utf-8"))


def find_case(manifest: dict, key: str) -> dict:
    """One hard case's manifest entry; KeyError naming the case if the cohort lacks it."""
    for entry in manifest["hard_cases"]:
        if entry["key"] == key:
            return entry
    raise KeyError(f"hard case {key!r} is not in this cohort (it has {manifest['patients']} patients)")
