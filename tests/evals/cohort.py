"""A tiny cohort written straight into the database (no ingestion needed), with the hard cases
the evaluator must get right: a stopped-then-restarted medicine, an entered-in-error one, a
resolved-then-recurring condition, a lab crossing its reference range, a penicillin allergy
with amoxicillin prescribed, blood pressure as a panel, a not-done immunization, note-only
facts, leaflets and free appointment slots."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from sqlalchemy import insert, text

from records.database import Database, patient_transaction
from records.models import Base

NOW = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)


def at(day: str, hour: int = 10) -> dt.datetime:
    return dt.datetime.combine(dt.date.fromisoformat(day), dt.time(hour), tzinfo=dt.UTC)


NOTE = """# Chief Complaint
No complaints.

# History of Present Illness
{name} is a 55 year-old. Patient has a history of hypertension.

# Social History
Patient is married. Patient quit smoking at age 19.
Patient comes from a middle socioeconomic background.
 Patient is a college graduate.
Patient currently has {insurer}.

# Medications
lisinopril 10 mg oral tablet
"""


class Chart:
    def __init__(self, patient_id: str, name: str, birth: str = "1970-02-03") -> None:
        self.pid = patient_id
        self.rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        given, family = name.split(" ", 1)
        self.rows["patients"].append(
            {
                "patient_id": patient_id,
                "full_name": name,
                "given_names": [given],
                "family": family,
                "gender": "female",
                "birth_date": dt.date.fromisoformat(birth),
            }
        )
        self.n = 0

    def _id(self, kind: str) -> str:
        self.n += 1
        return f"{self.pid}-{kind}{self.n}"

    def add(self, table: str, kind: str, **values: Any) -> str:
        rid = values.pop("id", None) or self._id(kind)
        self.rows[table].append({"patient_id": self.pid, "id": rid, **values})
        return rid

    def encounter(self, day: str, **kw: Any) -> str:
        return self.add(
            "encounters",
            "e",
            start=at(day),
            end=at(day, 11),
            status=kw.pop("status", "finished"),
            class_code="AMB",
            type_display="General examination",
            **kw,
        )

    def condition(
        self,
        display: str,
        code: str,
        onset: str,
        status: str = "active",
        abatement: str | None = None,
        verification: str = "confirmed",
    ) -> str:
        return self.add(
            "conditions",
            "c",
            display=display,
            code=code,
            code_system="http://snomed.info/sct",
            clinical_status=status,
            verification_status=verification,
            onset=at(onset),
            abatement=at(abatement) if abatement else None,
        )

    def medication(
        self,
        display: str,
        code: str,
        authored: str,
        status: str = "active",
        ended: str | None = None,
        reason_code: str | None = None,
        **extra: Any,  # dosage_text, as_needed, requester_name
    ) -> str:
        return self.add(
            "medication_requests",
            "m",
            display=display,
            display_normalized=display.lower(),
            code=code,
            status=status,
            authored_on=at(authored),
            ended_at=at(ended) if ended else None,
            reason_code=reason_code,
            **extra,
        )

    def lab(
        self,
        code: str,
        display: str,
        value: float,
        unit: str,
        day: str,
        hour: int = 10,
        low: float | None = None,
        high: float | None = None,
        status: str = "final",
    ) -> str:
        return self.add(
            "observations",
            "o",
            code=code,
            display=display,
            category="laboratory",
            value_type="quantity",
            value_num=value,
            value_unit=unit,
            effective=at(day, hour),
            status=status,
            ref_low=low,
            ref_high=high,
        )

    def blood_pressure(self, systolic: float, diastolic: float, day: str) -> str:
        oid = self.add(
            "observations",
            "o",
            code="85354-9",
            display="Blood pressure panel",
            category="vital-signs",
            value_type="components",
            effective=at(day),
            status="final",
        )
        # diastolic first: position must not matter
        for seq, (code, display, value) in enumerate(
            (
                ("8462-4", "Diastolic Blood Pressure", diastolic),
                ("8480-6", "Systolic Blood Pressure", systolic),
            )
        ):
            self.rows["observation_components"].append(
                {
                    "patient_id": self.pid,
                    "observation_id": oid,
                    "seq": seq,
                    "code": code,
                    "display": display,
                    "value_type": "quantity",
                    "value_num": value,
                    "value_unit": "mm[Hg]",
                }
            )
        return oid

    def allergy(
        self, display: str, code: str, status: str = "active", verification: str = "confirmed"
    ) -> str:
        return self.add(
            "allergies",
            "a",
            display=display,
            code=code,
            clinical_status=status,
            verification_status=verification,
            categories=["medication"],
        )

    def immunization(self, display: str, code: str, day: str, status: str = "completed") -> str:
        return self.add(
            "immunizations", "i", display=display, vaccine_code=code, occurrence=at(day), status=status
        )

    def procedure(self, display: str, code: str, day: str) -> str:
        return self.add(
            "procedures", "x", display=display, code=code, performed_start=at(day), status="completed"
        )

    def note(self, day: str, body: str, status: str = "current") -> str:
        import hashlib

        return self.add(
            "clinical_notes",
            "n",
            date=at(day),
            doc_status=status,
            text=body,
            text_sha256=hashlib.sha256(body.encode()).hexdigest(),
            content_type="text/plain",
        )

    def write(self, db: Database) -> Chart:
        order = [t.name for t in Base.metadata.sorted_tables]
        with patient_transaction(db.admin, self.pid) as conn:
            for table in sorted(self.rows, key=order.index):
                keys = {k for row in self.rows[table] for k in row}
                rows = [{k: row.get(k) for k in keys} for row in self.rows[table]]
                conn.execute(insert(Base.metadata.tables[table]), rows)
        return self


def ann(db: Database) -> Chart:
    """The patient with every hard case."""
    c = Chart("pat-ann", "Ann Hardcase")
    for day in ("2023-01-10", "2024-03-02", "2024-09-15", "2025-03-01"):
        c.encounter(day)
    c.encounter("2025-04-01", status="entered-in-error")
    c.condition("Essential hypertension (disorder)", "59621000", "2015-01-01")
    c.condition(
        "Acute bronchitis (disorder)", "10509002", "2019-02-01", status="resolved", abatement="2019-03-01"
    )
    c.condition("Sinusitis (disorder)", "36971009", "2020-01-01", status="resolved", abatement="2020-02-01")
    c.condition("Sinusitis (disorder)", "36971009", "2025-02-01")  # resolved, then recurring
    c.condition("Diabetes mellitus type 2 (disorder)", "44054006", "2024-03-02")
    c.condition("Asthma (disorder)", "195967001", "2018-01-01", verification="entered-in-error")
    c.medication(
        "lisinopril 10 MG Oral Tablet",
        "314076",
        "2016-01-01",
        dosage_text="1 dose, once a day",
        requester_name="Dr. Grace12 Hopper34",
    )
    c.medication("metformin 500 MG Oral Tablet", "860975", "2021-01-01", status="stopped")
    c.medication(
        "metformin 500 MG Oral Tablet",
        "860975",
        "2024-03-05",
        dosage_text="2 tablet, twice a day",
        requester_name="Dr. Alan7 Turing9",
    )  # restarted
    c.medication("simvastatin 20 MG Oral Tablet", "312961", "2019-01-01", status="completed")
    c.medication("warfarin sodium 5 MG Oral Tablet", "855332", "2024-04-01", status="entered-in-error")
    c.medication("Amoxicillin 500 MG Oral Capsule", "308191", "2025-05-20")  # conflicts with penicillin
    c.medication("ibuprofen 200 MG Oral Tablet", "310965", "2023-01-01", ended="2023-02-01")  # ended
    c.medication(
        "insulin glargine 100 UNT/ML Injectable Solution", "311041", "2024-04-10", reason_code="44054006"
    )
    c.allergy("Penicillin V", "7980")
    c.allergy("Latex (substance)", "111088007", status="inactive")
    c.allergy("Peanut (substance)", "256349002", verification="entered-in-error")
    # HbA1c: inserted out of order; the newest by effective time is 8.1 (above the 5.7 range top)
    c.lab("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", 8.1, "%", "2025-03-01", low=4.0, high=5.7)
    c.lab("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", 5.4, "%", "2023-01-10", low=4.0, high=5.7)
    c.lab("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", 6.9, "%", "2024-03-02", low=4.0, high=5.7)
    c.lab("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", 7.4, "%", "2024-09-15", low=4.0, high=5.7)
    c.lab(
        "4548-4",
        "Hemoglobin A1c/Hemoglobin.total in Blood",
        3.0,
        "%",
        "2025-04-01",
        status="entered-in-error",
    )
    c.lab("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma", 212.0, "mg/dL", "2024-03-02")
    c.lab("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma", 189.5, "mg/dL", "2025-03-01")
    c.lab("29463-7", "Body Weight", 81.2, "kg", "2023-01-10")
    c.lab("29463-7", "Body Weight", 84.0, "kg", "2024-09-15")
    c.lab("29463-7", "Body Weight", 82.6, "kg", "2025-03-01")
    c.blood_pressure(142, 91, "2024-09-15")
    c.blood_pressure(135, 85, "2025-03-01")
    c.immunization("Influenza, seasonal, injectable, preservative free", "140", "2023-10-01")
    c.immunization("Influenza, seasonal, injectable, preservative free", "140", "2024-10-03")
    c.immunization("Td (adult) preservative free", "113", "2025-01-15", status="not-done")
    c.procedure("Colonoscopy (procedure)", "73761001", "2022-05-05")
    c.note("2024-09-15", NOTE.format(name="Ann Hardcase", insurer="Aetna"), status="superseded")
    c.note("2025-03-01", NOTE.format(name="Ann Hardcase", insurer="Medicare"))
    return c.write(db)


def bob(db: Database) -> Chart:
    """A sparse record: no allergies, no labs but cholesterol, another patient to ask about."""
    c = Chart("pat-bob", "Bob Sparse", birth="1988-07-21")
    c.encounter("2024-06-01")
    c.condition("Chronic kidney disease stage 3 (disorder)", "433144002", "2022-06-01")
    c.medication("atorvastatin 40 MG Oral Tablet", "617311", "2022-06-01")
    c.medication("hydrochlorothiazide 25 MG Oral Tablet", "310798", "2022-06-01")
    c.lab("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma", 240.0, "mg/dL", "2024-06-01")
    c.immunization("Td (adult) preservative free", "113", "2024-06-01")
    return c.write(db)


def reference(db: Database) -> None:
    """Two departments with free slots after NOW, and two leaflets."""
    with db.admin.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO departments (id, name, specialty) VALUES ('dep-card', 'Cardiology', 'Cardiology'), ('dep-gp', 'General Practice', 'General Practice')"
            )
        )
        rows = []
        for day in range(2, 20):
            start = dt.datetime(2025, 6, day, 9, tzinfo=dt.UTC)
            if start.weekday() >= 5:
                continue
            for dep in ("dep-card", "dep-gp"):
                for slot in range(3):
                    s = start + dt.timedelta(minutes=30 * slot)
                    rows.append(
                        {
                            "id": f"slot-{dep}-{day}-{slot}",
                            "department_id": dep,
                            "starts_at": s,
                            "ends_at": s + dt.timedelta(minutes=30),
                        }
                    )
        conn.execute(insert(Base.metadata.tables["appointment_slots"]), rows)
        conn.execute(
            text(
                "INSERT INTO leaflets (slug, title, category, contact, source_path, format, sha256) VALUES "
                "('blood-tests', 'Having a blood test, and fasting beforehand', 'Tests', 'Blood Test Centre, 555-0130', 'x.md', 'markdown', 'a'),"
                "('asthma', 'Living with asthma', 'Conditions', 'Respiratory Clinic, 555-0112', 'y.md', 'markdown', 'b')"
            )
        )


def build(db: Database) -> tuple[Chart, Chart]:
    a, b = ann(db), bob(db)
    reference(db)
    return a, b
