"""Test data without ingestion: a small builder that inserts record rows with SQLAlchemy.

    rec = RecordBuilder("p-a", name="Ann Example")
    rec.condition("Hypertension", status="active", onset="2015-03-01")
    rec.observation("Hemoglobin A1c", code="4548-4", value=6.8, unit="%", at="2024-03-02")
    rec.write(db)

Rows go in as the owner inside a patient transaction (RLS is forced, so the patient must be
set even for the owner). Ids are generated per builder; every method returns the row id.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import defaultdict
from typing import Any

from sqlalchemy import insert

from records.database import Database, patient_transaction
from records.models import Base

_ids = itertools.count(1)


def instant(value: str | dt.datetime | dt.date | None) -> dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time(12), tzinfo=dt.UTC)
    parsed = dt.datetime.fromisoformat(value)
    if len(value) == 10:
        parsed = parsed.replace(hour=12)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


class RecordBuilder:
    def __init__(self, patient_id: str, name: str = "Test Patient", **patient: Any) -> None:
        self.patient_id = patient_id
        self.rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.rows["patients"].append(
            {"patient_id": patient_id, "full_name": name, "gender": "female", **patient}
        )

    def _id(self, prefix: str) -> str:
        return f"{self.patient_id}-{prefix}-{next(_ids)}"

    def _add(self, table: str, prefix: str, **values: Any) -> str:
        row_id = values.pop("id", None) or self._id(prefix)
        self.rows[table].append({"patient_id": self.patient_id, "id": row_id, **values})
        return row_id

    def encounter(
        self, type_display: str = "General examination", *, at: str = "2024-01-10", **kw: Any
    ) -> str:
        return self._add(
            "encounters",
            "enc",
            type_display=type_display,
            start=instant(at),
            end=instant(at),
            status=kw.pop("status", "finished"),
            class_code=kw.pop("class_code", "AMB"),
            **kw,
        )

    def condition(
        self,
        display: str,
        *,
        status: str = "active",
        onset: str | None = "2015-01-01",
        abatement: str | None = None,
        verification: str = "confirmed",
        **kw: Any,
    ) -> str:
        return self._add(
            "conditions",
            "cond",
            display=display,
            clinical_status=status,
            verification_status=verification,
            onset=instant(onset),
            abatement=instant(abatement),
            **kw,
        )

    def medication(
        self,
        display: str,
        *,
        status: str = "active",
        authored: str = "2020-01-01",
        ended: str | None = None,
        **kw: Any,
    ) -> str:
        return self._add(
            "medication_requests",
            "med",
            display=display,
            status=status,
            intent="order",
            authored_on=instant(authored),
            ended_at=instant(ended),
            **kw,
        )

    def observation(
        self,
        display: str,
        *,
        code: str | None = None,
        value: float | None = None,
        unit: str | None = None,
        at: str | dt.datetime = "2024-01-10",
        category: str = "laboratory",
        status: str = "final",
        components: list[dict[str, Any]] | None = None,
        **kw: Any,
    ) -> str:
        value_type = (
            "components"
            if components
            else ("quantity" if value is not None else kw.pop("value_type", "string"))
        )
        obs_id = self._add(
            "observations",
            "obs",
            display=display,
            code=code,
            value_num=value,
            value_unit=unit,
            effective=instant(at),
            issued=kw.pop("issued", None) or instant(at),
            category=category,
            status=status,
            value_type=value_type,
            **kw,
        )
        for seq, comp in enumerate(components or []):
            self.rows["observation_components"].append(
                {
                    "patient_id": self.patient_id,
                    "observation_id": obs_id,
                    "seq": seq,
                    "value_type": "quantity",
                    **comp,
                }
            )
        return obs_id

    def blood_pressure(
        self, systolic: float, diastolic: float, *, at: str = "2024-01-10", reverse: bool = False
    ) -> str:
        parts = [
            {
                "code": "8480-6",
                "display": "Systolic Blood Pressure",
                "value_num": systolic,
                "value_unit": "mm[Hg]",
            },
            {
                "code": "8462-4",
                "display": "Diastolic Blood Pressure",
                "value_num": diastolic,
                "value_unit": "mm[Hg]",
            },
        ]
        return self.observation(
            "Blood pressure panel with all children optional",
            code="85354-9",
            at=at,
            category="vital-signs",
            components=list(reversed(parts)) if reverse else parts,
        )

    def allergy(
        self, display: str, *, status: str = "active", verification: str = "confirmed", **kw: Any
    ) -> str:
        reactions = kw.pop("reactions", [])
        allergy_id = self._add(
            "allergies",
            "alg",
            display=display,
            clinical_status=status,
            verification_status=verification,
            type=kw.pop("type", "allergy"),
            categories=kw.pop("categories", ["medication"]),
            criticality=kw.pop("criticality", "high"),
            recorded_date=instant(kw.pop("recorded", "2018-05-05")),
            **kw,
        )
        for seq, (display_, severity) in enumerate(reactions):
            self.rows["allergy_reactions"].append(
                {
                    "patient_id": self.patient_id,
                    "allergy_id": allergy_id,
                    "seq": seq,
                    "manifestation_display": display_,
                    "severity": severity,
                }
            )
        return allergy_id

    def immunization(
        self, display: str, *, status: str = "completed", at: str = "2023-10-01", **kw: Any
    ) -> str:
        return self._add("immunizations", "imm", display=display, status=status, occurrence=instant(at), **kw)

    def procedure(self, display: str, *, status: str = "completed", at: str = "2022-02-02", **kw: Any) -> str:
        return self._add(
            "procedures", "proc", display=display, status=status, performed_start=instant(at), **kw
        )

    def care_plan(self, display: str, *, status: str = "active", start: str = "2020-01-01", **kw: Any) -> str:
        return self._add(
            "care_plans",
            "cp",
            category_display=display,
            status=status,
            period_start=instant(start),
            addresses_condition_ids=kw.pop("addresses", []),
            activities=kw.pop("activities", []),
            **kw,
        )

    def write(self, db: Database) -> RecordBuilder:
        tables = {t.name: t for t in Base.metadata.sorted_tables}
        order = [t.name for t in Base.metadata.sorted_tables]
        with patient_transaction(db.admin, self.patient_id) as conn:
            for name in order:
                if self.rows.get(name):
                    # one statement per row shape: rows differ in which optional columns they set
                    for row in self.rows[name]:
                        conn.execute(insert(tables[name]).values(**row))
        return self


def reference_data(db: Database, *, orgs: int = 2, hospital: bool = True) -> dict[str, list[str]]:
    """Organisations (one hospital), locations and general practitioners for scheduling."""
    org_ids, pr_ids = [], []
    with db.admin.begin() as conn:
        for i in range(orgs):
            org_id = f"org-{i}"
            name = f"TEST {'GENERAL HOSPITAL' if hospital and i == 0 else 'FAMILY CLINIC'} {i}"
            conn.execute(
                insert(Base.metadata.tables["organizations"]).values(id=org_id, name=name, phone="555-0100")
            )
            conn.execute(
                insert(Base.metadata.tables["locations"]).values(
                    id=f"loc-{i}",
                    name=name,
                    organization_id=org_id,
                    address=f"{i} Main St",
                    city="Springfield",
                )
            )
            for j in range(2):
                pr_id = f"pr-{i}-{j}"
                conn.execute(
                    insert(Base.metadata.tables["practitioners"]).values(
                        id=pr_id,
                        full_name=f"Dr. Test{i}{j} Doctor",
                        specialty_display="General Practice Physician",
                        organization_id=org_id,
                        location_id=f"loc-{i}",
                    )
                )
                pr_ids.append(pr_id)
            org_ids.append(org_id)
    return {"organizations": org_ids, "practitioners": pr_ids}
