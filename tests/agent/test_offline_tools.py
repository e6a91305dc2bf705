"""The offline planner answering one question per tool on a patient, with the real tools.

The patient is generated and ingested (synthea_data + fhir_ingest) when those packages are
present, else built from rows (tests.builder); the two search tools are exercised when the
knowledge package registers them. Answers are checked against the database itself (the
ground truth), not against strings written here.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from sqlalchemy import text

from agent.base import Turn
from agent.events import DoneEvent, StatusEvent, ToolCallEvent
from agent.offline import OFFLINE_BANNER, OfflineAgent
from agent.runner import GuardedAgent
from records import scheduling
from tests.agent.conftest import run
from tests.conftest import wipe
from tools import catalog
from tools.scope import PatientScope

NOW = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)
A1C = "4548-4"


@pytest.fixture(scope="module")
def world(db, tmp_path_factory, settings):
    """A generated cohort, ingested, with slots (and leaflets + notes when search exists)."""
    wipe(db)
    try:
        from fhir_ingest.loader import ingest_paths
        from synthea_data.generator import generate_cohort
    except ImportError:
        build_patient(db)
    else:
        out = tmp_path_factory.mktemp("cohort") / "cohort"
        generate_cohort(out, patients=6, seed=7)
        report = ingest_paths(db, [out])
        assert report.ok, report
    scheduling.generate_slots(db, days=14, start=NOW.date(), seed=1)
    registry = catalog.build_registry()
    embedder = None
    if "search_leaflets" in registry:
        from knowledge.embeddings import get_embedder
        from knowledge.leaflet_store import SHIPPED_LEAFLETS, ingest_leaflets
        from knowledge.note_index import index_notes

        embedder = get_embedder(settings)
        some = tmp_path_factory.mktemp("leaflets")
        for name in ("colonoscopy-preparation.md", "visiting-hours.md"):
            shutil.copy(Path(SHIPPED_LEAFLETS) / name, some / name)
        ingest_leaflets(db, embedder, some)
    with db.admin.connect() as conn:
        patient_id = conn.execute(
            text(
                "SELECT p.patient_id FROM patients p "
                "WHERE EXISTS (SELECT 1 FROM medication_requests m WHERE m.patient_id = p.patient_id "
                "  AND m.status = 'active' AND (m.ended_at IS NULL OR m.ended_at > :now)) "
                "AND EXISTS (SELECT 1 FROM observations o WHERE o.patient_id = p.patient_id AND o.code = :a1c) "
                "ORDER BY p.patient_id LIMIT 1"
            ),
            {"now": NOW, "a1c": A1C},
        ).scalar_one()
    if embedder is not None:
        index_notes(db, embedder, [patient_id])
    agent = GuardedAgent(OfflineAgent(registry, db, embedder=embedder))
    return {"db": db, "patient": patient_id, "agent": agent, "registry": registry}


def build_patient(db) -> None:
    """A patient with something in every section, and clinics to book at (no generator needed)."""
    from tests.builder import RecordBuilder, reference_data

    reference_data(db)
    rec = RecordBuilder("pat-offline-1", name="Olive Offline", birth_date=dt.date(1970, 4, 2))
    rec.encounter("General examination of patient", at="2026-03-30")
    rec.condition("Hypertension", status="active", onset="2015-03-01")
    rec.condition("Acute bronchitis", status="resolved", onset="2018-05-01", abatement="2018-05-20")
    rec.medication("Lisinopril 10 MG Oral Tablet", status="active", authored="2019-05-01")
    rec.medication("Metformin 500 MG Oral Tablet", status="active", authored="2020-01-10")
    rec.medication(
        "Amoxicillin 250 MG Oral Capsule", status="stopped", authored="2018-05-01", ended="2018-05-10"
    )
    rec.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood", code=A1C, value=6.4, unit="%", at="2023-03-01"
    )
    rec.observation(
        "Hemoglobin A1c/Hemoglobin.total in Blood", code=A1C, value=7.1, unit="%", at="2026-03-30"
    )
    rec.blood_pressure(128, 82, at="2026-03-30")
    rec.allergy("Penicillin V", reactions=[("Hives", "moderate")])
    rec.immunization("Influenza, seasonal, injectable", at="2025-10-01")
    rec.procedure("Colonoscopy", at="2022-02-02")
    rec.care_plan("Diabetes self management plan", start="2020-01-10")
    rec.write(db)


def ask(
    world,
    question: str,
    history: list[Turn] | None = None,
    conversation: str = "conv-offline",
    role: str = "patient",
) -> list:
    scope = PatientScope(
        patient_id=world["patient"],
        role=role,
        actor="test",
        conversation_id=conversation,
        message_id=question,
    )
    from agent.base import AgentRequest

    return run(world["agent"], AgentRequest(scope=scope, question=question, history=history or [], now=NOW))


def answer_of(events: list) -> DoneEvent:
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.mode == "offline", done
    assert done.answer.startswith(OFFLINE_BANNER) or done.answer.startswith("Offline mode")
    assert done.grounding.grounded, done.grounding.issues
    return done


def tools_called(events: list) -> list[str]:
    """The primary lookups (background context, issue 11, is tested on its own)."""
    return [e.name for e in events if isinstance(e, ToolCallEvent) and not e.background]


def rows(world, sql: str, **params) -> list:
    with world["db"].admin.connect() as conn:
        return conn.execute(text(sql), {"pid": world["patient"], **params}).all()


def test_medications(world):
    events = ask(world, "What medications am I taking?")
    done = answer_of(events)
    assert tools_called(events) == ["get_medications"]
    active = rows(
        world,
        "SELECT display FROM medication_requests WHERE patient_id = :pid AND status = 'active' "
        "AND (ended_at IS NULL OR ended_at > :now)",
        now=NOW,
    )
    assert active
    for (display,) in active:
        assert display in done.answer
    assert sum(h.startswith("M") for h in done.grounding.cited_handles) == len({d for (d,) in active})


@pytest.mark.parametrize(
    ("role", "question", "status"),
    [
        ("patient", "What medications am I taking?", "Looking up your medications…"),
        ("clinician", "What medications is the patient taking?", "Looking up the patient's medications…"),
        ("patient", "Book me a check-up", "Looking for free appointment slots…"),
    ],
)
def test_the_status_line_names_the_lookup_in_the_readers_words(world, role, question, status):
    events = ask(world, question, role=role, conversation=f"conv-status-{role}")
    assert next(e.text for e in events if isinstance(e, StatusEvent)) == status


def test_labs_latest_a1c(world):
    events = ask(world, "What is my latest A1C?")
    done = answer_of(events)
    assert tools_called(events) == ["get_labs"]
    (value,) = rows(
        world,
        "SELECT value_num FROM observations WHERE patient_id = :pid AND code = :a1c ORDER BY effective DESC LIMIT 1",
        a1c=A1C,
    )[0]
    assert f"{value:g}" in done.answer and done.grounding.cited_handles[0].startswith("L")


def test_profile(world):
    done = answer_of(ask(world, "Who am I? What is my date of birth?"))
    (name, born) = rows(world, "SELECT full_name, birth_date FROM patients WHERE patient_id = :pid")[0]
    assert name in done.answer and born.isoformat() in done.answer


@pytest.mark.parametrize(
    ("question", "tool", "table", "prefix"),
    [
        ("What conditions do I have?", "get_conditions", "conditions", "C"),
        ("What am I allergic to?", "get_allergies", "allergies", "A"),
        ("When was my last visit?", "get_encounters", "encounters", "E"),
        ("Which vaccines have I had?", "get_immunizations", "immunizations", "I"),
        ("What procedures have I had?", "get_procedures", "procedures", "X"),
        ("What is my care plan?", "get_care_plans", "care_plans", "CP"),
    ],
)
def test_record_sections(world, question, tool, table, prefix):
    events = ask(world, question)
    done = answer_of(events)
    assert tools_called(events) == [tool]
    (count,) = rows(world, f"SELECT count(*) FROM {table} WHERE patient_id = :pid")[0]
    cited = [h for h in done.grounding.cited_handles if h.rstrip("0123456789") == prefix]
    if count:
        assert cited, done.answer
    else:
        assert not cited and "No " in done.answer


def test_booking_offers_then_books_then_lists_then_cancels(world):
    offer = answer_of(
        ask(world, "Book me a general practice appointment next week", conversation="conv-book")
    )
    assert "Reply 'book S1'" in offer.answer
    assert rows(world, "SELECT count(*) FROM appointments WHERE patient_id = :pid")[0][0] == 0

    history = [Turn(question="Book me a general practice appointment next week", answer=offer.answer)]
    booked_events = ask(world, "book S2", history=history, conversation="conv-book")
    booked = answer_of(booked_events)
    assert tools_called(booked_events) == ["book_appointment"]
    (appointment_id, slot_id, status) = rows(
        world, "SELECT id, slot_id, status FROM appointments WHERE patient_id = :pid"
    )[0]
    assert status == "booked" and f"slot_id {slot_id} [S2]" in offer.answer and "Booked" in booked.answer

    listed = answer_of(ask(world, "When is my next appointment?", conversation="conv-book"))
    assert appointment_id in listed.answer

    offer_cancel = answer_of(ask(world, "Cancel my appointment", conversation="conv-book"))
    assert "Reply 'cancel B1'" in offer_cancel.answer
    history = [Turn(question="Cancel my appointment", answer=offer_cancel.answer)]
    cancelled = answer_of(ask(world, "cancel B1", history=history, conversation="conv-book"))
    assert "Cancelled" in cancelled.answer
    assert rows(world, "SELECT status FROM appointments WHERE patient_id = :pid")[0][0] == "cancelled"


def test_search_leaflets(world):
    if "search_leaflets" not in world["registry"]:
        pytest.skip("search tools not merged yet")
    events = ask(world, "How do I prepare for a colonoscopy?")
    done = answer_of(events)
    assert tools_called(events) == ["search_leaflets"]
    assert "colonoscopy" in done.answer.lower() and any(
        h.startswith("K") for h in done.grounding.cited_handles
    )


def test_search_notes(world):
    if "search_notes" not in world["registry"]:
        pytest.skip("search tools not merged yet")
    events = ask(world, "What did the doctor write in my notes about my check up?")
    done = answer_of(events)
    assert tools_called(events) == ["search_notes"]
    assert any(h.startswith("N") for h in done.grounding.cited_handles)


def test_out_of_scope(world):
    done = ask(world, "Write me a poem about the sea")[-1]
    assert done.mode == "offline" and "can't answer that from the record" in done.answer
