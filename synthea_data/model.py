"""The simulated record before it becomes FHIR: a person and a list of visits.

The simulator decides *what happened* (diagnoses, prescriptions, results) in these plain
records; `fhir_resources` decides *how Synthea would write it*. Keeping the two apart keeps the
clinical logic readable and lets notes, claims and resources be derived from one truth.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from synthea_data.codes import Code
from synthea_data.names import RaceEthnicity, Town
from synthea_data.providers import Organization, Practitioner


@dataclass
class Person:
    id: str
    given: list[str]
    family: str
    prefix: str | None
    maiden_family: str | None
    gender: str  # male | female
    birth_date: dt.date
    race: RaceEthnicity
    town: Town
    line: str
    latitude: float
    longitude: float
    phone: str
    ssn: str
    drivers_license: str | None
    marital: str  # M | S | D | W
    mothers_maiden: str
    birthplace: Town
    smoking: str  # never | former | daily
    payer: str
    socioeconomic: str  # low | middle | high
    education: str
    pcp: Practitioner
    clinic: Organization
    deceased_at: dt.datetime | None = None
    millis: int = 0  # Synthea's fixed per-person millisecond suffix on `issued`

    @property
    def female(self) -> bool:
        return self.gender == "female"

    @property
    def full_name(self) -> str:
        parts = ([self.prefix] if self.prefix else []) + self.given + [self.family]
        return " ".join(parts)


@dataclass
class ConditionRec:
    id: str
    code: Code
    onset: dt.datetime
    visit_id: str
    abatement: dt.datetime | None = None
    recurrence: bool = False  # clinicalStatus "recurrence" while active
    entered_in_error: bool = False
    social: bool = False  # a situation/finding Synthea records as a condition (not a disease)

    def active_on(self, when: dt.datetime) -> bool:
        if self.entered_in_error or self.onset > when:
            return False
        return self.abatement is None or self.abatement > when


@dataclass
class MedRec:
    id: str
    med: Code
    authored: dt.datetime
    visit_id: str
    requester: Practitioner
    ends: dt.datetime | None = None  # when the course ended (not written: Synthea has no field for it)
    end_status: str = "stopped"  # stopped | completed, used once `ends` has passed
    reason: ConditionRec | None = None
    as_needed: bool = False
    frequency: int = 1  # doses per day
    instruction: Code | None = None
    medication_resource_id: str | None = None  # set: written via medicationReference to a Medication
    entered_in_error: bool = False

    def status(self, today: dt.datetime, death: dt.datetime | None) -> str:
        if self.entered_in_error:
            return "entered-in-error"
        if self.ends is not None and self.ends <= today and (death is None or self.ends <= death):
            return self.end_status
        return "active"

    def active_on(self, when: dt.datetime) -> bool:
        if self.entered_in_error or self.authored > when:
            return False
        return self.ends is None or self.ends > when


@dataclass
class Quantity:
    value: float
    unit: str


@dataclass
class ObsRec:
    id: str
    code: Code
    category: str  # vital-signs | laboratory | survey | social-history
    effective: dt.datetime
    quantity: Quantity | None = None
    concept: Code | None = None
    components: list[tuple[Code, Quantity]] = field(default_factory=list)
    reference_range: tuple[float | None, float | None] | None = None
    entered_in_error: bool = False

    @property
    def interpretation(self) -> str | None:
        if self.quantity is None or self.reference_range is None:
            return None
        low, high = self.reference_range
        if low is not None and self.quantity.value < low:
            return "L"
        if high is not None and self.quantity.value > high:
            return "H"
        return "N"


@dataclass
class ReportRec:
    id: str
    code: Code
    effective: dt.datetime
    results: list[ObsRec]


@dataclass
class ProcRec:
    id: str
    code: Code
    start: dt.datetime
    end: dt.datetime
    reason: ConditionRec | None = None


@dataclass
class ImmRec:
    id: str
    vaccine: Code
    when: dt.datetime
    not_done_reason: tuple[str, str] | None = None  # (v3-ActReason code, display)


@dataclass
class AllergyRec:
    id: str
    substance: Code
    category: str  # medication | food | environment
    criticality: str  # low | high
    recorded: dt.datetime
    reactions: list[tuple[Code, str | None]] = field(default_factory=list)  # (manifestation, severity)


@dataclass
class CarePlanRec:
    id: str
    care_team_id: str
    category: Code
    activities: list[Code]
    start: dt.datetime
    visit_id: str
    practitioner: Practitioner
    organization: Organization
    addresses: ConditionRec | None = None
    end: dt.datetime | None = None


@dataclass
class AdministrationRec:
    id: str
    med: Code
    when: dt.datetime
    reason: ConditionRec | None = None


@dataclass
class DeviceRec:
    """A device given to the patient (Synthea writes these with a synthetic UDI)."""

    id: str
    code: Code
    start: dt.datetime
    device_identifier: str
    lot: str
    serial: str


@dataclass
class SupplyRec:
    id: str
    code: Code
    quantity: int
    when: dt.datetime


@dataclass
class Visit:
    id: str
    kind: str  # wellness | follow-up | symptom | urgent | emergency | inpatient | vaccination | death
    klass: str  # AMB | EMER | IMP
    type: Code
    start: dt.datetime
    end: dt.datetime
    practitioner: Practitioner
    organization: Organization
    reason: Code | None = None
    reason_condition: ConditionRec | None = None
    chief_complaints: list[str] = field(default_factory=list)
    narrative: list[str] = field(default_factory=list)
    conditions: list[ConditionRec] = field(default_factory=list)
    allergies: list[AllergyRec] = field(default_factory=list)
    observations: list[ObsRec] = field(default_factory=list)
    reports: list[ReportRec] = field(default_factory=list)
    procedures: list[ProcRec] = field(default_factory=list)
    immunizations: list[ImmRec] = field(default_factory=list)
    prescriptions: list[MedRec] = field(default_factory=list)
    administrations: list[AdministrationRec] = field(default_factory=list)
    care_plans: list[CarePlanRec] = field(default_factory=list)
    devices: list[DeviceRec] = field(default_factory=list)
    supplies: list[SupplyRec] = field(default_factory=list)
    discharged_home: bool = False
    wellness_number: int | None = None
    # ids of the per-visit artefacts, drawn when the visit is created so they stay stable
    note_report_id: str = ""
    note_id: str = ""
    claim_id: str = ""
    eob_id: str = ""


@dataclass
class PatientRecord:
    """Everything one bundle is written from, plus what the hard-case manifest needs."""

    person: Person
    visits: list[Visit]
    all_conditions: list[ConditionRec]
    all_meds: list[MedRec]
    all_allergies: list[AllergyRec]
    provenance_id: str
    marks: dict[str, dict[str, str]]  # hard-case key -> role -> resource id
    pharmacy_claim_ids: dict[str, str]  # MedRec id -> Claim id
