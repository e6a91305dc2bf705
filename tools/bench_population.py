"""A bulk synthetic population for `chartside bench tools`, written with COPY.

The Synthea-format generator and the ingester were not on main when the benchmark was
written, so this fills the tables directly with Synthea-sized records (per patient: ~40
encounters, ~15 conditions, ~40 prescriptions, ~450 observations including blood-pressure
panels with components, allergies, immunizations, procedures, care plans). The rows are
plausible, not clinical: they exist to give the query planner a realistic population.
Deterministic for a seed. COPY into row-level-secured tables needs a superuser (the
embedded server's owner is one).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from typing import Any

from sqlalchemy import text

from records.database import Database

LABS = [
    ("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", "%", 5.0, 9.5, "laboratory"),
    ("2339-0", "Glucose [Mass/volume] in Blood", "mg/dL", 70, 180, "laboratory"),
    ("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma", "mg/dL", 140, 260, "laboratory"),
    (
        "18262-6",
        "Cholesterol in LDL [Mass/volume] in Serum or Plasma by Direct assay",
        "mg/dL",
        60,
        190,
        "laboratory",
    ),
    ("2085-9", "Cholesterol in HDL [Mass/volume] in Serum or Plasma", "mg/dL", 30, 90, "laboratory"),
    ("2571-8", "Triglycerides", "mg/dL", 50, 300, "laboratory"),
    ("33914-3", "Glomerular filtration rate/1.73 sq M.predicted", "mL/min/{1.73_m2}", 30, 120, "laboratory"),
    ("2160-0", "Creatinine [Mass/volume] in Serum or Plasma", "mg/dL", 0.6, 1.8, "laboratory"),
    ("6299-2", "Urea nitrogen [Mass/volume] in Blood", "mg/dL", 7, 25, "laboratory"),
    ("2947-0", "Sodium [Moles/volume] in Blood", "mmol/L", 134, 146, "laboratory"),
    ("6298-4", "Potassium [Moles/volume] in Blood", "mmol/L", 3.4, 5.3, "laboratory"),
    ("39156-5", "Body mass index (BMI) [Ratio]", "kg/m2", 18, 40, "vital-signs"),
    ("29463-7", "Body Weight", "kg", 50, 120, "vital-signs"),
    ("8302-2", "Body Height", "cm", 150, 195, "vital-signs"),
    ("8867-4", "Heart rate", "/min", 55, 100, "vital-signs"),
    ("9279-1", "Respiratory rate", "/min", 12, 20, "vital-signs"),
    (
        "72514-3",
        "Pain severity - 0-10 verbal numeric rating [Score] - Reported",
        "{score}",
        0,
        6,
        "vital-signs",
    ),
]
CONDITIONS = [
    "Hypertension",
    "Diabetes mellitus type 2 (disorder)",
    "Hyperlipidemia",
    "Acute bronchitis (disorder)",
    "Viral sinusitis (disorder)",
    "Chronic kidney disease stage 2 (disorder)",
    "Obesity (disorder)",
    "Prediabetes",
    "Anemia (disorder)",
    "Sprain of ankle",
    "Acute viral pharyngitis (disorder)",
    "Chronic pain",
]
MEDS = [
    "lisinopril 10 MG Oral Tablet",
    "metFORMIN hydrochloride 500 MG Oral Tablet",
    "atorvastatin 20 MG Oral Tablet",
    "amLODIPine 5 MG Oral Tablet",
    "hydroCHLOROthiazide 25 MG Oral Tablet",
    "Acetaminophen 325 MG Oral Tablet",
    "Ibuprofen 200 MG Oral Tablet",
    "Amoxicillin 250 MG Oral Capsule",
]
VACCINES = [
    "Influenza, seasonal, injectable, preservative free",
    "Td (adult) preservative free",
    "Zoster vaccine, live",
    "Pneumococcal conjugate PCV 13",
]
PROCEDURES = [
    "Depression screening",
    "Assessment of health and social care needs",
    "Medication reconciliation",
    "Screening for drug abuse",
]
ALLERGENS = ["Penicillin V", "Peanut (substance)", "House dust mite", "Latex", "Shellfish"]
ENCOUNTER_TYPES = [
    ("General examination of patient", "AMB"),
    ("Encounter for problem", "AMB"),
    ("Emergency room admission", "EMER"),
]

PATIENT_TABLES_IN_ORDER = [
    "patients",
    "encounters",
    "conditions",
    "medication_requests",
    "observations",
    "observation_components",
    "allergies",
    "allergy_reactions",
    "immunizations",
    "procedures",
    "care_plans",
]


def _rows_for(pid: str, rng: random.Random, start: dt.datetime) -> dict[str, list[tuple[Any, ...]]]:
    out: dict[str, list[tuple[Any, ...]]] = {name: [] for name in PATIENT_TABLES_IN_ORDER}
    birth = dt.date(1940 + rng.randrange(60), 1 + rng.randrange(12), 1 + rng.randrange(28))
    out["patients"].append((pid, f"Bench{pid[-6:]} Patient", rng.choice(["male", "female"]), birth))
    encounter_ids = []
    for e in range(40):
        eid = f"{pid}-e{e}"
        when = start + dt.timedelta(days=rng.randrange(3650), minutes=rng.randrange(600))
        kind, klass = rng.choice(ENCOUNTER_TYPES)
        out["encounters"].append((pid, eid, "finished", klass, kind, when, when + dt.timedelta(minutes=30)))
        encounter_ids.append((eid, when))
    for c in range(15):
        eid, when = rng.choice(encounter_ids)
        status = rng.choice(["active", "resolved", "resolved"])
        abated = when + dt.timedelta(days=14) if status == "resolved" else None
        out["conditions"].append(
            (pid, f"{pid}-c{c}", eid, status, "confirmed", rng.choice(CONDITIONS), when, abated)
        )
    for m in range(40):
        eid, when = rng.choice(encounter_ids)
        name = rng.choice(MEDS)
        status = rng.choice(["active", "stopped", "completed", "stopped"])
        out["medication_requests"].append((pid, f"{pid}-m{m}", eid, status, name, name.lower(), when))
    for o in range(400):
        eid, when = rng.choice(encounter_ids)
        code, name, unit, low, high, category = rng.choice(LABS)
        out["observations"].append(
            (
                pid,
                f"{pid}-o{o}",
                eid,
                "final",
                category,
                code,
                name,
                "quantity",
                round(rng.uniform(low, high), 2),
                unit,
                when,
                when,
            )
        )
    for b in range(50):
        eid, when = rng.choice(encounter_ids)
        oid = f"{pid}-bp{b}"
        out["observations"].append(
            (
                pid,
                oid,
                eid,
                "final",
                "vital-signs",
                "85354-9",
                "Blood pressure panel with all children optional",
                "components",
                None,
                None,
                when,
                when,
            )
        )
        out["observation_components"].append(
            (pid, oid, 0, "8462-4", "Diastolic Blood Pressure", "quantity", rng.randrange(60, 95), "mm[Hg]")
        )
        out["observation_components"].append(
            (pid, oid, 1, "8480-6", "Systolic Blood Pressure", "quantity", rng.randrange(100, 160), "mm[Hg]")
        )
    for a in range(rng.randrange(0, 4)):
        aid = f"{pid}-a{a}"
        out["allergies"].append((pid, aid, "active", "confirmed", "allergy", rng.choice(ALLERGENS), start))
        out["allergy_reactions"].append((pid, aid, 0, "Hives", "mild"))
    for i in range(15):
        _eid, when = rng.choice(encounter_ids)
        out["immunizations"].append((pid, f"{pid}-i{i}", "completed", rng.choice(VACCINES), when))
    for x in range(20):
        eid, when = rng.choice(encounter_ids)
        out["procedures"].append((pid, f"{pid}-x{x}", eid, "completed", rng.choice(PROCEDURES), when))
    for p in range(3):
        _eid, when = rng.choice(encounter_ids)
        out["care_plans"].append(
            (pid, f"{pid}-cp{p}", rng.choice(["active", "completed"]), "Self-care interventions", when)
        )
    return out


COLUMNS = {
    "patients": "patient_id, full_name, gender, birth_date",
    "encounters": 'patient_id, id, status, class_code, type_display, start, "end"',
    "conditions": "patient_id, id, encounter_id, clinical_status, verification_status, display, onset, abatement",
    "medication_requests": "patient_id, id, encounter_id, status, display, display_normalized, authored_on",
    "observations": "patient_id, id, encounter_id, status, category, code, display, value_type, value_num, value_unit, effective, issued",
    "observation_components": "patient_id, observation_id, seq, code, display, value_type, value_num, value_unit",
    "allergies": "patient_id, id, clinical_status, verification_status, type, display, recorded_date",
    "allergy_reactions": "patient_id, allergy_id, seq, manifestation_display, severity",
    "immunizations": "patient_id, id, status, display, occurrence",
    "procedures": "patient_id, id, encounter_id, status, display, performed_start",
    "care_plans": "patient_id, id, status, category_display, period_start",
}


def patient_ids(count: int) -> Iterator[str]:
    for i in range(count):
        yield f"bench-{i:06d}"


def populated_count(db: Database) -> int:
    with db.admin.connect() as conn:
        return conn.execute(
            text("SELECT count(*) FROM patients WHERE patient_id LIKE 'bench-%'")
        ).scalar_one()


def fill(db: Database, patients: int, seed: int, on_patient: Any = None) -> None:
    """Add bench patients until there are `patients` of them (existing ones are kept)."""
    have = populated_count(db)
    start = dt.datetime(2014, 1, 1, tzinfo=dt.UTC)
    with db.admin.connect() as sa_conn:
        raw = sa_conn.connection.driver_connection
        assert raw is not None
        for index, pid in enumerate(patient_ids(patients)):
            if index < have:
                continue
            rows = _rows_for(pid, random.Random(f"{seed}|{pid}"), start)
            with raw.cursor() as cur:
                for table in PATIENT_TABLES_IN_ORDER:
                    if not rows[table]:
                        continue
                    with cur.copy(f"COPY {table} ({COLUMNS[table]}) FROM STDIN") as copy:
                        for row in rows[table]:
                            copy.write_row(row)
            raw.commit()
            if on_patient:
                on_patient()
        with raw.cursor() as cur:
            cur.execute("ANALYZE")
        raw.commit()


def fill_reference(db: Database, organizations: int = 60) -> None:
    """Organisations (every tenth a hospital), one location and two GPs each. Idempotent."""
    with db.admin.begin() as conn:
        for i in range(organizations):
            kind = "GENERAL HOSPITAL" if i % 10 == 0 else "FAMILY PRACTICE"
            org_id = f"bench-org-{i}"
            conn.execute(
                text(
                    "INSERT INTO organizations (id, name, phone) VALUES (:i, :n, '555-0100') ON CONFLICT DO NOTHING"
                ),
                {"i": org_id, "n": f"BENCH {kind} {i}"},
            )
            conn.execute(
                text(
                    "INSERT INTO locations (id, name, organization_id, city) VALUES (:i, :n, :o, 'Springfield') "
                    "ON CONFLICT DO NOTHING"
                ),
                {"i": f"bench-loc-{i}", "n": f"BENCH {kind} {i}", "o": org_id},
            )
            for j in range(2):
                conn.execute(
                    text(
                        "INSERT INTO practitioners (id, full_name, specialty_display, organization_id, location_id) "
                        "VALUES (:i, :n, 'General Practice Physician', :o, :l) ON CONFLICT DO NOTHING"
                    ),
                    {"i": f"bench-pr-{i}-{j}", "n": f"Dr. Bench{i}{j}", "o": org_id, "l": f"bench-loc-{i}"},
                )
