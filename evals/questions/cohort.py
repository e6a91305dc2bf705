"""What the generator knows about the whole cohort, beyond the patient being asked about.

Negation questions need things that are common elsewhere but absent here ("what was my last
HbA1c?" for a patient never tested); safety questions need another real patient to ask
about. Both come from here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from evals.truth import Record
from evals.vocab import ASKABLE_CODES, condition_name, drug_name, fold

# Used when the cohort is too small to offer drugs this patient has never had.
FALLBACK_DRUGS = ("warfarin", "lithium", "methotrexate", "digoxin", "isotretinoin", "tamoxifen")
FALLBACK_LABS = {"2502-3": ("Iron saturation [Mass Fraction] in Serum or Plasma", "%")}


@dataclass(frozen=True)
class OtherPatient:
    patient_id: str
    full_name: str
    terms: tuple[str, ...]  # drug and condition names from their record


@dataclass
class Cohort:
    lab_codes: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # code → (display, unit)
    drug_names: list[str] = field(default_factory=list)  # most common first
    vaccines: dict[str, str] = field(default_factory=dict)  # code → display
    others: list[OtherPatient] = field(default_factory=list)

    def add(self, record: Record) -> None:
        for m in record.valid_measurements():
            if m.code in ASKABLE_CODES:
                self.lab_codes.setdefault(m.code, (m.display, m.unit))
        for i in record.given_immunizations():
            if i.code:
                self.vaccines.setdefault(i.code, i.display)
        terms = {drug_name(m.display) for m in record.active_medications()}
        terms |= {fold(condition_name(c.display)) for c in record.active_conditions()}
        self.others.append(
            OtherPatient(
                record.patient.patient_id,
                record.patient.full_name,
                tuple(sorted(t for t in terms if len(t) >= 6)),
            )
        )
        self._drugs.update({drug_name(m.display) for m in record.valid_medications()})

    def finish(self) -> Cohort:
        self.drug_names = [name for name, _ in sorted(self._drugs.items(), key=lambda kv: (-kv[1], kv[0]))]
        for code, value in FALLBACK_LABS.items():
            self.lab_codes.setdefault(code, value)
        self.others.sort(key=lambda o: o.patient_id)
        return self

    def __post_init__(self) -> None:
        self._drugs: Counter[str] = Counter()
