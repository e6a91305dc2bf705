"""The chart recorder: what one patient's record holds, and the only code that writes to it.

`PatientSimulator` (synthea_data.simulate) decides *what* a clinician records at each visit
from the patient's state; this class turns each decision into record entries — visits,
conditions, prescriptions, observations, care plans, immunizations — assigning their ids from
the patient's `IdSource` in call order (so the same decisions write the same bytes) and
counting what the provider network is used for. It draws nothing random itself.
"""

from __future__ import annotations

import datetime as dt

from synthea_data import lab_catalog as lab
from synthea_data.codes import Code
from synthea_data.ids import IdSource
from synthea_data.model import (
    AdministrationRec,
    AllergyRec,
    CarePlanRec,
    ConditionRec,
    DeviceRec,
    ImmRec,
    MedRec,
    ObsRec,
    PatientRecord,
    Person,
    ProcRec,
    Quantity,
    ReportRec,
    SupplyRec,
    Visit,
)
from synthea_data.providers import Organization, Practitioner, Utilization


class ChartRecorder:
    """One patient's record as it is written, visit by visit."""

    def __init__(self, ids: IdSource, cases: set[str], *, female: bool) -> None:
        self.ids = ids
        self.cases = cases  # the scenario keys whose trap resources are marked for the manifest
        self.female = female  # for sex-specific reference ranges
        self.marks: dict[str, dict[str, str]] = {}
        self.usage = Utilization()
        self.visits: list[Visit] = []
        self.conditions: list[ConditionRec] = []
        self.current: dict[str, ConditionRec] = {}  # condition key -> current episode
        self.meds: list[MedRec] = []
        self.on: dict[str, MedRec] = {}  # drug key -> current course
        self.allergies: list[AllergyRec] = []
        self.vaccines_given: set[str] = set()
        self.pharmacy_claims: dict[str, str] = {}

    def record(self, person: Person) -> PatientRecord:
        """The finished record (its provenance id is the last id drawn)."""
        return PatientRecord(
            person=person,
            visits=self.visits,
            all_conditions=self.conditions,
            all_meds=self.meds,
            all_allergies=self.allergies,
            provenance_id=self.ids.uuid(),
            marks=self.marks,
            pharmacy_claim_ids=self.pharmacy_claims,
        )

    # =============================================================== what the chart says now

    def has(self, key: str, when: dt.datetime) -> bool:
        episode = self.current.get(key)
        return episode is not None and episode.active_on(when)

    def taking(self, drug: str, when: dt.datetime) -> bool:
        """On the drug strictly before `when` (a drug started at this visit has no effect yet)."""
        course = self.on.get(drug)
        return course is not None and course.authored < when and course.active_on(when)

    # =============================================================== writers

    def mark(self, case: str, role: str, resource_id: str) -> None:
        if case in self.cases:
            self.marks.setdefault(case, {})[role] = resource_id

    def new_visit(
        self,
        kind: str,
        klass: str,
        type_: Code,
        start: dt.datetime,
        minutes: int,
        org: Organization,
        practitioner: Practitioner,
        reason: ConditionRec | Code | None = None,
    ) -> Visit:
        visit = Visit(
            id=self.ids.uuid(),
            kind=kind,
            klass=klass,
            type=type_,
            start=start,
            end=start + dt.timedelta(minutes=minutes),
            practitioner=practitioner,
            organization=org,
        )
        if isinstance(reason, ConditionRec):
            visit.reason, visit.reason_condition = reason.code, reason
        elif reason is not None:
            visit.reason = reason
        visit.note_report_id, visit.note_id = self.ids.uuid(), self.ids.uuid()
        visit.claim_id, visit.eob_id = self.ids.uuid(), self.ids.uuid()
        self.visits.append(visit)
        self.usage.encounters[org.id] += 1
        self.usage.encounters[practitioner.id] += 1
        return visit

    def diagnose(
        self,
        visit: Visit,
        key: str | None,
        code: Code,
        *,
        social: bool = False,
        at: dt.datetime | None = None,
    ) -> ConditionRec:
        condition = ConditionRec(
            id=self.ids.uuid(), code=code, onset=at or visit.start, visit_id=visit.id, social=social
        )
        visit.conditions.append(condition)
        self.conditions.append(condition)
        if key is not None:
            self.current[key] = condition
        return condition

    def resolve(self, key: str, when: dt.datetime) -> ConditionRec | None:
        episode = self.current.get(key)
        if episode is not None and episode.abatement is None:
            episode.abatement = when
        return episode

    def prescribe(
        self,
        visit: Visit,
        drug: str | None,
        med: Code,
        *,
        reason: ConditionRec | None = None,
        days: int | None = None,
        as_needed: bool = False,
        frequency: int = 1,
        via_reference: bool = False,
        instruction: Code | None = None,
    ) -> MedRec:
        course = MedRec(
            id=self.ids.uuid(),
            med=med,
            authored=visit.start,
            visit_id=visit.id,
            requester=visit.practitioner,
            reason=reason,
            as_needed=as_needed,
            frequency=frequency,
            instruction=instruction,
            medication_resource_id=self.ids.uuid() if via_reference else None,
        )
        if days is not None:
            course.ends, course.end_status = visit.start + dt.timedelta(days=days), "completed"
        visit.prescriptions.append(course)
        self.meds.append(course)
        self.pharmacy_claims[course.id] = self.ids.uuid()
        self.usage.prescriptions[visit.organization.id] += 1
        if drug is not None:
            self.on[drug] = course
        return course

    def stop(self, drug: str, when: dt.datetime) -> MedRec | None:
        course = self.on.get(drug)
        if course is not None and course.ends is None:
            course.ends, course.end_status = when, "stopped"
        return course

    def care_plan(
        self,
        visit: Visit,
        category: Code,
        activities: list[Code],
        addresses: ConditionRec | None,
        ends: dt.datetime | None = None,
    ) -> CarePlanRec:
        plan = CarePlanRec(
            id=self.ids.uuid(),
            care_team_id=self.ids.uuid(),
            category=category,
            activities=activities,
            start=visit.start,
            visit_id=visit.id,
            practitioner=visit.practitioner,
            organization=visit.organization,
            addresses=addresses,
            end=ends,
        )
        visit.care_plans.append(plan)
        return plan

    def procedure(
        self, visit: Visit, code: Code, minutes: int = 15, reason: ConditionRec | None = None, offset: int = 0
    ) -> ProcRec:
        start = visit.start + dt.timedelta(minutes=offset)
        proc = ProcRec(self.ids.uuid(), code, start, start + dt.timedelta(minutes=minutes), reason)
        visit.procedures.append(proc)
        self.usage.procedures[visit.organization.id] += 1
        return proc

    def quantity_obs(
        self,
        visit: Visit,
        code: Code,
        category: str,
        value: float,
        unit: str,
        *,
        lab_def: lab.LabDef | None = None,
        at=None,
    ) -> ObsRec:
        obs = ObsRec(
            id=self.ids.uuid(),
            code=code,
            category=category,
            effective=at or visit.start,
            quantity=Quantity(value, unit),
            reference_range=lab_def.reference_range(self.female) if lab_def is not None else None,
        )
        visit.observations.append(obs)
        return obs

    def lab(self, visit: Visit, defn: lab.LabDef, value: float, at: dt.datetime | None = None) -> ObsRec:
        self.usage.labs[visit.organization.id] += 1
        return self.quantity_obs(visit, defn.code, "laboratory", value, defn.unit, lab_def=defn, at=at)

    def panel(self, visit: Visit, report_code: Code, values: dict[lab.LabDef, float]) -> ReportRec:
        results = [self.lab(visit, defn, value) for defn, value in values.items()]
        report = ReportRec(self.ids.uuid(), report_code, visit.start, results)
        visit.reports.append(report)
        return report

    def survey(self, visit: Visit, report_code: Code, total_code: Code, score: int) -> None:
        obs = ObsRec(self.ids.uuid(), total_code, "survey", visit.start, quantity=Quantity(score, "{score}"))
        visit.observations.append(obs)
        visit.reports.append(ReportRec(self.ids.uuid(), report_code, visit.start, [obs]))

    def note(self, visit: Visit, sentence: str) -> None:
        """A sentence of the visit's clinical note."""
        visit.narrative.append(sentence)

    def panel_obs(
        self, visit: Visit, code: Code, category: str, components: list[tuple[Code, Quantity]]
    ) -> ObsRec:
        """An observation made of coded components (blood pressure: diastolic, systolic)."""
        obs = ObsRec(self.ids.uuid(), code, category, visit.start, components=components)
        visit.observations.append(obs)
        return obs

    def concept_obs(
        self, visit: Visit, code: Code, category: str, concept: Code, *, at: dt.datetime | None = None
    ) -> ObsRec:
        """An observation whose value is a code (smoking status, cause of death)."""
        obs = ObsRec(self.ids.uuid(), code, category, at or visit.start, concept=concept)
        visit.observations.append(obs)
        return obs

    def report(
        self, visit: Visit, code: Code, results: list[ObsRec], *, at: dt.datetime | None = None
    ) -> ReportRec:
        report = ReportRec(self.ids.uuid(), code, at or visit.start, results)
        visit.reports.append(report)
        return report

    def allergy(
        self,
        visit: Visit,
        substance: Code,
        category: str,
        criticality: str,
        recorded: dt.datetime,
        reactions: list,
    ) -> AllergyRec:
        allergy = AllergyRec(self.ids.uuid(), substance, category, criticality, recorded, reactions)
        visit.allergies.append(allergy)
        self.allergies.append(allergy)
        return allergy

    def administer(
        self, visit: Visit, med: Code, when: dt.datetime, reason: ConditionRec | None
    ) -> AdministrationRec:
        given = AdministrationRec(self.ids.uuid(), med, when, reason)
        visit.administrations.append(given)
        return given

    def device(self, visit: Visit, code: Code) -> DeviceRec:
        device = DeviceRec(
            self.ids.uuid(), code, visit.start, self.ids.digits(14), self.ids.digits(7), self.ids.digits(7)
        )
        visit.devices.append(device)
        return device

    def supply(self, visit: Visit, code: Code, quantity: int) -> None:
        visit.supplies.append(SupplyRec(self.ids.uuid(), code, quantity, visit.start))

    def immunize(self, visit: Visit, vaccine: Code, refused: bool = False) -> ImmRec:
        imm = ImmRec(
            self.ids.uuid(), vaccine, visit.start, ("PATOBJ", "patient objection") if refused else None
        )
        visit.immunizations.append(imm)
        if not refused:
            self.vaccines_given.add(vaccine.code)
        return imm
