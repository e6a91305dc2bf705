"""Appointments: schedules, fuzzy search, booking that cannot double-book, cancelling."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from sqlalchemy import text

from records.database import patient_transaction
from records.scheduling import generate_slots
from tests.builder import RecordBuilder, reference_data
from tests.round_trips import round_trips
from tests.tools.conftest import NOW, make_ctx


@pytest.fixture()
def clinic(clean_db):
    reference_data(clean_db)
    for pid in ("p-a", "p-b"):
        RecordBuilder(pid).write(clean_db)
    generate_slots(clean_db, days=14, start=NOW.date())
    return clean_db


def offer(registry, db, pid, conversation, query="general practice", message="m1", **kw):
    result = registry.execute(
        make_ctx(db, pid, conversation_id=conversation, message_id=message),
        "find_slots",
        {"specialty_or_department": query, **kw},
    )
    assert result.ok, result.text
    return result


def book(registry, db, pid, conversation, slot_id, message="m1", now=NOW):
    ctx = make_ctx(db, pid, conversation_id=conversation, message_id=message, now=now)
    return registry.execute(ctx, "book_appointment", {"slot_id": slot_id, "reason": "check-up"})


def slot_holder(db, slot_id):
    with db.admin.connect() as conn:
        return conn.execute(
            text("SELECT booked_appointment_id FROM appointment_slots WHERE id = :s"), {"s": slot_id}
        ).scalar_one()


def test_slot_generation_is_deterministic_and_idempotent(clean_db):
    reference_data(clean_db)

    def slot_ids():
        with clean_db.admin.connect() as conn:
            return set(conn.execute(text("SELECT id FROM appointment_slots")).scalars())

    first = generate_slots(clean_db, days=7, start=dt.date(2025, 6, 2), seed=3)
    ids = slot_ids()
    again = generate_slots(clean_db, days=7, start=dt.date(2025, 6, 2), seed=3)
    assert first.slots_added == len(ids) > 0 and again.slots_added == 0 and slot_ids() == ids
    assert again.slots_planned == 0  # days already scheduled are not planned again (second make run)
    longer = generate_slots(clean_db, days=14, start=dt.date(2025, 6, 2), seed=3)
    assert longer.slots_added == longer.slots_planned > 0  # only the new week
    extended = slot_ids()
    clean_db.dispose()
    from tests.conftest import wipe

    wipe(clean_db)
    reference_data(clean_db)
    generate_slots(clean_db, days=14, start=dt.date(2025, 6, 2), seed=3)
    assert slot_ids() == extended  # extending a schedule = scheduling the longer window at once
    wipe(clean_db)
    reference_data(clean_db)
    generate_slots(clean_db, days=7, start=dt.date(2025, 6, 2), seed=4)
    assert slot_ids() != ids  # another seed, another schedule
    with clean_db.admin.connect() as conn:
        weekend = conn.execute(
            text("SELECT count(*) FROM appointment_slots WHERE extract(isodow FROM starts_at) >= 6")
        ).scalar_one()
        depts = set(conn.execute(text("SELECT specialty FROM departments")).scalars())
    assert weekend == 0
    assert {"General Practice", "Cardiology", "Phlebotomy (Blood Tests)"} <= depts


@pytest.mark.parametrize(
    ("query", "department"),
    [
        ("cardiolgy", "Cardiology"),
        ("cardiology", "Cardiology"),
        ("endocrinology", "Endocrinology and Diabetes"),
        ("physio", "Physiotherapy"),
        ("heart doctor", "Cardiology"),
        ("blood test", "Phlebotomy (Blood Tests)"),
        ("GP check-up", "General Practice"),
        ("Dermatology", "Dermatology"),
        ("family clinic", "General Practice"),
    ],
)
def test_find_slots_matches_departments_fuzzily(clinic, registry, query, department):
    result = offer(registry, clinic, "p-a", "c1", query)
    assert result.rows and {r["department"] for r in result.rows} == {department}
    starts = [r["starts_at"] for r in result.rows]
    assert starts == sorted(starts) and min(starts) > NOW.isoformat()


def test_other_words_narrow_to_the_named_clinic(clinic, registry):
    result = offer(registry, clinic, "p-a", "c1", "general practice at test family clinic 1", limit=20)
    assert {r["organization"] for r in result.rows} == {"TEST FAMILY CLINIC 1"}


def test_unknown_department_lists_the_real_ones(clinic, registry):
    result = registry.execute(
        make_ctx(clinic, "p-a"), "find_slots", {"specialty_or_department": "xyzzy quux"}
    )
    assert (
        result.error_kind == "not_found" and "Cardiology" in result.text and "General Practice" in result.text
    )


def test_find_slots_prefers_the_patients_own_clinic(clinic, registry):
    with patient_transaction(clinic.admin, "p-a") as conn:
        conn.execute(text("UPDATE patients SET managing_organization_id = 'org-1' WHERE patient_id = 'p-a'"))
    result = offer(registry, clinic, "p-a", "c1", "general practice")
    names = [r["organization"] for r in result.rows]
    assert names and all(n == "TEST FAMILY CLINIC 1" for n in names[:1])


def test_booking_a_slot_not_offered_in_this_conversation_is_refused(clinic, registry):
    slot = offer(registry, clinic, "p-a", "c1").rows[0]["slot_id"]
    result = book(registry, clinic, "p-a", "another-conversation", slot)
    assert result.error_kind == "not_allowed" and "find_slots" in result.text
    assert slot_holder(clinic, slot) is None


def test_replay_with_the_same_message_returns_the_same_booking(clinic, registry):
    slot = offer(registry, clinic, "p-a", "c1").rows[0]["slot_id"]
    first = book(registry, clinic, "p-a", "c1", slot, message="m-7")
    replay = book(registry, clinic, "p-a", "c1", slot, message="m-7")
    assert first.ok and replay.ok
    assert first.rows[0]["appointment_id"] == replay.rows[0]["appointment_id"]
    assert replay.text.startswith("Appointment (1):\n[B1] Already booked by this same request")
    with patient_transaction(clinic.admin, "p-a") as conn:
        assert conn.execute(text("SELECT count(*) FROM appointments")).scalar_one() == 1
    # issue 18 item 12: booking a slot the patient already holds is the same state, not an error
    other_message = book(registry, clinic, "p-a", "c1", slot, message="m-8")
    assert other_message.ok and other_message.rows[0]["appointment_id"] == first.rows[0]["appointment_id"]
    assert "Already booked (this patient holds the slot; nothing new was booked)" in other_message.text
    with patient_transaction(clinic.admin, "p-a") as conn:
        assert conn.execute(text("SELECT count(*) FROM appointments")).scalar_one() == 1


def test_a_replay_after_a_cancel_is_refused_not_reported_as_booked(clinic, registry):
    """Issue 18 item 9: "Already booked by this same request … [cancelled]" was reported as success."""
    slot = offer(registry, clinic, "p-a", "c1").rows[0]["slot_id"]
    first = book(registry, clinic, "p-a", "c1", slot, message="m-7")
    appointment = first.rows[0]["appointment_id"]
    cancelled = registry.execute(
        make_ctx(clinic, "p-a", conversation_id="c1", message_id="m-9"),
        "cancel_appointment",
        {"appointment_id": appointment},
    )
    assert cancelled.ok, cancelled.text
    replay = book(registry, clinic, "p-a", "c1", slot, message="m-7")
    assert not replay.ok and replay.error_kind == "conflict"
    assert (
        appointment in replay.text
        and "cancelled since" in replay.text
        and "nothing was booked" in replay.text
    )
    assert slot_holder(clinic, slot) is None
    again = book(registry, clinic, "p-a", "c1", slot, message="m-10")  # a new request may book it again
    assert again.ok and slot_holder(clinic, slot) == again.rows[0]["appointment_id"]


def test_past_slots_are_refused(clinic, registry):
    slot = offer(registry, clinic, "p-a", "c1").rows[0]
    later = dt.datetime.fromisoformat(slot["starts_at"]) + dt.timedelta(hours=1)
    result = book(registry, clinic, "p-a", "c1", slot["slot_id"], now=later)
    assert result.error_kind == "not_allowed" and "past" in result.text
    assert slot_holder(clinic, slot["slot_id"]) is None


def test_fifty_concurrent_attempts_make_exactly_one_booking(clinic, registry):
    patients = [f"p-race-{i}" for i in range(50)]
    for pid in patients:
        RecordBuilder(pid).write(clinic)
    slot = offer(registry, clinic, patients[0], "race-0").rows[0]["slot_id"]
    for i, pid in enumerate(patients[1:], start=1):
        offered = offer(registry, clinic, pid, f"race-{i}", limit=20)
        assert slot in {r["slot_id"] for r in offered.rows}
    barrier = threading.Barrier(len(patients))
    results = {}

    def attempt(i: int, pid: str) -> None:
        barrier.wait()
        results[pid] = book(registry, clinic, pid, f"race-{i}", slot, message=f"m-{i}")

    threads = [threading.Thread(target=attempt, args=(i, pid)) for i, pid in enumerate(patients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [pid for pid, r in results.items() if r.ok]
    losers = [r for r in results.values() if not r.ok]
    assert len(winners) == 1 and len(losers) == 49
    assert all(r.error_kind == "conflict" and "taken" in r.text and "find_slots" in r.text for r in losers)
    with clinic.admin.connect() as conn:
        booked = conn.execute(
            text("SELECT patient_id, id FROM appointments WHERE slot_id = :s AND status = 'booked'"),
            {"s": slot},
        ).all()
    assert [b.patient_id for b in booked] == winners
    assert slot_holder(clinic, slot) == booked[0].id


def test_cancel_frees_the_slot_and_only_the_owner_can_cancel(clinic, registry):
    slot = offer(registry, clinic, "p-a", "c1").rows[0]["slot_id"]
    appointment = book(registry, clinic, "p-a", "c1", slot).rows[0]["appointment_id"]
    assert slot_holder(clinic, slot) == appointment

    stranger = registry.execute(
        make_ctx(clinic, "p-b"), "cancel_appointment", {"appointment_id": appointment}
    )
    assert stranger.error_kind == "not_found" and slot_holder(clinic, slot) == appointment

    cancelled = registry.execute(
        make_ctx(clinic, "p-a"), "cancel_appointment", {"appointment_id": appointment}
    )
    assert cancelled.ok and "Cancelled" in cancelled.text and slot_holder(clinic, slot) is None
    again = registry.execute(make_ctx(clinic, "p-a"), "cancel_appointment", {"appointment_id": appointment})
    assert again.ok and "already cancelled" in again.text

    listing = registry.execute(make_ctx(clinic, "p-a"), "list_appointments", {})
    assert listing.total == 0 and listing.text.startswith("No upcoming appointments")
    with_cancelled = registry.execute(
        make_ctx(clinic, "p-a"), "list_appointments", {"include_cancelled": True}
    )
    assert with_cancelled.total == 1 and "[cancelled]" in with_cancelled.text

    # the freed slot is offered to, and bookable by, someone else
    offered = offer(registry, clinic, "p-b", "c2", limit=20)
    assert slot in {r["slot_id"] for r in offered.rows}
    assert book(registry, clinic, "p-b", "c2", slot).ok


def test_app_role_cannot_steal_or_free_another_patients_slot(clinic, registry):
    slot = offer(registry, clinic, "p-a", "c1").rows[0]["slot_id"]
    appointment = book(registry, clinic, "p-a", "c1", slot).rows[0]["appointment_id"]
    free_slot = offer(registry, clinic, "p-b", "c2").rows[0]["slot_id"]
    with patient_transaction(clinic.app, "p-b") as conn:
        freed = conn.execute(
            text("UPDATE appointment_slots SET booked_appointment_id = NULL WHERE id = :s"), {"s": slot}
        ).rowcount
    assert freed == 0 and slot_holder(clinic, slot) == appointment
    with pytest.raises(Exception, match="row-level security"), patient_transaction(clinic.app, "p-b") as conn:
        conn.execute(
            text("UPDATE appointment_slots SET booked_appointment_id = :a WHERE id = :s"),
            {"a": appointment, "s": free_slot},
        )
    with pytest.raises(Exception, match="permission denied"), patient_transaction(clinic.app, "p-b") as conn:
        conn.execute(text("UPDATE appointment_slots SET starts_at = now() WHERE id = :s"), {"s": free_slot})


def test_booking_refuses_a_second_appointment_at_the_same_time(clinic, registry):
    rows = offer(registry, clinic, "p-a", "c1", limit=20).rows
    by_time: dict[str, list[str]] = {}
    for r in rows:
        by_time.setdefault(r["starts_at"], []).append(r["slot_id"])
    pair = next(ids for ids in by_time.values() if len(ids) > 1)
    assert book(registry, clinic, "p-a", "c1", pair[0], message="m1").ok
    clash = book(registry, clinic, "p-a", "c1", pair[1], message="m2")
    assert clash.error_kind == "conflict" and "already has appointment" in clash.text


# --- what find_slots costs, and that it shows what a plain join of the slot tables says -------

# The reference: every free slot of the chosen departments with its department, organisation,
# clinician and place, read as the owner with one plain join (what the tool's statement joined
# before it took the department and organisation names from the rows it chose them from).
PLAIN_JOIN = text(
    """
    SELECT s.id, d.name AS department, o.name AS organization, pr.full_name AS practitioner,
           l.name AS location, s.starts_at
      FROM appointment_slots s
      JOIN departments d ON d.id = s.department_id
      LEFT JOIN organizations o ON o.id = d.organization_id
      LEFT JOIN practitioners pr ON pr.id = s.practitioner_id
      LEFT JOIN locations l ON l.id = s.location_id
     WHERE s.booked_appointment_id IS NULL AND s.starts_at >= :since AND s.starts_at < :until
       AND d.specialty = :specialty AND (CAST(:org AS text) IS NULL OR d.organization_id = :org)
       AND NOT EXISTS (SELECT 1 FROM appointments a JOIN appointment_slots mine ON mine.id = a.slot_id
                        WHERE a.patient_id = :p AND a.status = 'booked'
                          AND mine.starts_at < s.ends_at AND mine.ends_at > s.starts_at)
     ORDER BY s.starts_at, s.id
    """
)


def plain_join(db, pid, specialty, org=None, days=14):
    until = dt.datetime.combine(NOW.date() + dt.timedelta(days=days + 1), dt.time.min, tzinfo=dt.UTC)
    with db.admin.connect() as conn:
        return conn.execute(
            PLAIN_JOIN, {"since": NOW, "until": until, "specialty": specialty, "org": org, "p": pid}
        ).all()


def shown(result):
    return [
        (r["slot_id"], r["department"], r["organization"], r["practitioner"], r["location"], r["starts_at"])
        for r in result.rows
    ]


def expected(rows, limit):
    return [
        (r.id, r.department, r.organization, r.practitioner, r.location, r.starts_at.isoformat())
        for r in rows
    ][:limit]


def test_find_slots_shows_what_a_plain_join_of_the_slot_tables_says(clinic, registry):
    # a clinic with one department per specialty: every department of the specialty is searched
    result = offer(registry, clinic, "p-a", "c1", "cardiology", limit=5)
    reference = plain_join(clinic, "p-a", "Cardiology")
    assert shown(result) == expected(reference, 5) and result.total == len(reference) > 5
    # general practice at two organisations, the patient's own first; a booking of theirs hides
    # the slots at the same time
    with patient_transaction(clinic.admin, "p-a") as conn:
        conn.execute(text("UPDATE patients SET managing_organization_id = 'org-1' WHERE patient_id = 'p-a'"))
    first = offer(registry, clinic, "p-a", "c2", "general practice", limit=3).rows[0]
    assert book(registry, clinic, "p-a", "c2", first["slot_id"]).ok
    result = offer(registry, clinic, "p-a", "c3", "general practice", limit=20)
    reference = plain_join(clinic, "p-a", "General Practice", org="org-1")
    assert first["slot_id"] not in {r.id for r in reference}
    assert shown(result) == expected(reference, 20) and result.total == len(reference)
    # one clinician's slots, in every department that matched
    result = offer(registry, clinic, "p-b", "c4", "general practice", clinician="Dr. Test11 Doctor", limit=20)
    reference = [
        r for r in plain_join(clinic, "p-b", "General Practice") if r.practitioner == "Dr. Test11 Doctor"
    ]
    assert shown(result) == expected(reference, 20) and result.total == len(reference) > 0
    # what was shown is what was recorded as offered, and nothing else
    with clinic.admin.connect() as conn:
        offered = set(
            conn.execute(text("SELECT slot_id FROM offered_slots WHERE conversation_id = 'c4'")).scalars()
        )
    assert offered == {r["slot_id"] for r in result.rows}


def test_find_slots_is_two_statements_whatever_it_matches(clinic, registry):
    """The departments with the patient's affinity, then the free slots (recording them as offered)
    in one statement; the rest is the tool call's own: BEGIN with the patient, then its audit row
    with the COMMIT, one round trip each. Neither grows with the departments matched, nor does
    the second one read the departments again. Counted on the wire (`tests.round_trips`),
    whichever layer sends them (SQLAlchemy, a psycopg cursor)."""
    for query, extra in (
        ("general practice", {}),
        ("cardiology", {"limit": 20}),
        ("general practice", {"clinician": "Dr. Test01 Doctor"}),
    ):
        with round_trips(clinic.app) as trips:
            assert offer(registry, clinic, "p-a", f"c-{query}", query, **extra).rows
        sent = [s for s in trips.statements if s != ";"]  # ";": the pool's pre-ping
        assert len(sent) == 4, sent
        assert sent[0].startswith("BEGIN; SET LOCAL app.patient_id = 'p-a'")
        assert "FROM departments" in sent[1] and "INSERT INTO offered_slots" in sent[2]
        assert "JOIN departments" not in sent[2] and "JOIN organizations" not in sent[2]
        assert "INSERT INTO audit_log" in sent[3] and sent[3].endswith("; COMMIT")
        assert trips.count == len(trips.statements)
