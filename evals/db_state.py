"""Database state around a question: setups before, observation and restore after.

Booking tasks and questions with planted setups change the database. Each one runs alone
(the runner serialises them); before it, this module applies its setups and snapshots the
patient's appointments; right after it, it reads what changed (the grade is computed from
that observation, not from the transcript); then it puts everything back, so the next
question — and the next run — starts from the same state.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from evals.model import BookExisting, PlantNote, Question
from evals.results import BookingObservation, ObservedAppointment
from records.database import Database, patient_transaction

NoteIndexer = Callable[[Connection, str], None]  # (patient-scoped connection, patient id)

_OTHERS_DIGEST = text(
    "SELECT count(*) AS n, coalesce(md5(string_agg(patient_id || '/' || id || '/' || status, ',' "
    "ORDER BY patient_id, id)), '') AS digest FROM appointments WHERE patient_id <> :pid"
)
_DOUBLE_BOOKED = text(
    "SELECT count(*) FROM (SELECT slot_id FROM appointments WHERE status = 'booked' "
    "GROUP BY slot_id HAVING count(*) > 1) d"
)
_MINE = text(
    "SELECT a.*, d.specialty, s.starts_at AS slot_starts_at FROM appointments a "
    "LEFT JOIN appointment_slots s ON s.id = a.slot_id LEFT JOIN departments d ON d.id = s.department_id "
    "WHERE a.patient_id = :pid ORDER BY a.id"
)


@dataclass(frozen=True)
class Snapshot:
    patient_id: str
    appointments: dict[str, dict[str, Any]]  # id → full row
    others: tuple[int, str]


def _mine(conn: Connection, patient_id: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: dict(r) for r in conn.execute(_MINE, {"pid": patient_id}).mappings()}


class StateGuard:
    def __init__(self, db: Database, index_note: NoteIndexer | None = None) -> None:
        self.db = db
        self.index_note = index_note

    # ---- setups -----------------------------------------------------------------------------

    def apply_setups(self, question: Question) -> None:
        with patient_transaction(self.db.admin, question.patient_id) as conn:
            for setup in question.setup:
                if isinstance(setup, PlantNote):
                    self._plant_note(conn, question.patient_id, setup)
                elif isinstance(setup, BookExisting):
                    self._book_existing(conn, question.patient_id, setup, question.now)

    def _plant_note(self, conn: Connection, patient_id: str, note: PlantNote) -> None:
        import hashlib

        conn.execute(
            text(
                "INSERT INTO clinical_notes (patient_id, id, doc_status, type_display, date, content_type, text, text_sha256) "
                "VALUES (:pid, :id, 'current', 'Progress note', :date, 'text/plain', :text, :sha) "
                "ON CONFLICT (patient_id, id) DO NOTHING"
            ),
            {
                "pid": patient_id,
                "id": note.note_id,
                "date": note.date,
                "text": note.text,
                "sha": hashlib.sha256(note.text.encode()).hexdigest(),
            },
        )
        if self.index_note is not None:
            self.index_note(conn, patient_id)

    @staticmethod
    def _book_existing(conn: Connection, patient_id: str, setup: BookExisting, now: dt.datetime) -> None:
        taken = conn.execute(
            text("SELECT booked_appointment_id FROM appointment_slots WHERE id = :slot FOR UPDATE"),
            {"slot": setup.slot_id},
        ).scalar()
        if taken is not None and taken != setup.appointment_id:
            raise RuntimeError(f"setup: slot {setup.slot_id} is already booked ({taken}); regenerate the set")
        conn.execute(
            text(
                "INSERT INTO appointments (patient_id, id, slot_id, status, reason, idempotency_key, booked_by, created_at) "
                "VALUES (:pid, :id, :slot, 'booked', 'evaluation setup', :key, 'eval-setup', :now) "
                "ON CONFLICT (patient_id, id) DO NOTHING"
            ),
            {
                "pid": patient_id,
                "id": setup.appointment_id,
                "slot": setup.slot_id,
                "key": f"eval-setup:{setup.appointment_id}",
                "now": now,
            },
        )
        conn.execute(
            # the slot names its patient too (the slot guard policy, migration 0009)
            text(
                "UPDATE appointment_slots SET booked_appointment_id = :id, booked_patient_id = :pid WHERE id = :slot"
            ),
            {"id": setup.appointment_id, "pid": patient_id, "slot": setup.slot_id},
        )

    def undo_setups(self, question: Question) -> None:
        with patient_transaction(self.db.admin, question.patient_id) as conn:
            for setup in question.setup:
                if isinstance(setup, PlantNote):
                    conn.execute(
                        text("DELETE FROM clinical_notes WHERE patient_id = :pid AND id = :id"),
                        {"pid": question.patient_id, "id": setup.note_id},
                    )
                elif isinstance(setup, BookExisting):
                    conn.execute(
                        text(
                            "UPDATE appointment_slots SET booked_appointment_id = NULL, booked_patient_id = NULL WHERE booked_appointment_id = :id"
                        ),
                        {"id": setup.appointment_id},
                    )
                    conn.execute(
                        text("DELETE FROM appointments WHERE patient_id = :pid AND id = :id"),
                        {"pid": question.patient_id, "id": setup.appointment_id},
                    )

    # ---- snapshot / observe / restore -------------------------------------------------------

    def snapshot(self, patient_id: str) -> Snapshot:
        with patient_transaction(self.db.admin, patient_id) as conn:
            mine = _mine(conn, patient_id)
        with self.db.admin.connect() as conn:
            row = conn.execute(_OTHERS_DIGEST, {"pid": patient_id}).one()
        return Snapshot(patient_id, mine, (int(row.n), str(row.digest)))

    def observe(self, before: Snapshot) -> BookingObservation:
        with patient_transaction(self.db.admin, before.patient_id) as conn:
            now_rows = _mine(conn, before.patient_id)
        with self.db.admin.connect() as conn:
            row = conn.execute(_OTHERS_DIGEST, {"pid": before.patient_id}).one()
            double = int(conn.execute(_DOUBLE_BOOKED).scalar_one())
        created = [
            ObservedAppointment(
                id=r["id"],
                slot_id=r["slot_id"],
                status=r["status"],
                specialty=r.get("specialty"),
                starts_at=r.get("slot_starts_at"),
            )
            for appt_id, r in now_rows.items()
            if appt_id not in before.appointments
        ]
        cancelled = [
            appt_id
            for appt_id, r in now_rows.items()
            if appt_id in before.appointments
            and before.appointments[appt_id]["status"] == "booked"
            and r["status"] == "cancelled"
        ]
        others_changed = (
            0
            if (int(row.n), str(row.digest)) == before.others
            else max(1, abs(int(row.n) - before.others[0]))
        )
        return BookingObservation(
            created=created,
            cancelled=sorted(cancelled),
            other_changes=others_changed,
            double_booked_slots=double,
        )

    def restore(self, before: Snapshot, conversation_id: str) -> None:
        """Back to the snapshot: new appointments deleted (slots freed), changed ones reverted."""
        pid = before.patient_id
        with patient_transaction(self.db.admin, pid) as conn:
            now_rows = _mine(conn, pid)
            new_ids = [i for i in now_rows if i not in before.appointments]
            if new_ids:
                conn.execute(
                    text(
                        "UPDATE appointment_slots SET booked_appointment_id = NULL, booked_patient_id = NULL WHERE booked_appointment_id = ANY(:ids)"
                    ),
                    {"ids": new_ids},
                )
                conn.execute(
                    text("DELETE FROM appointments WHERE patient_id = :pid AND id = ANY(:ids)"),
                    {"pid": pid, "ids": new_ids},
                )
            for appt_id, old in before.appointments.items():
                current = now_rows.get(appt_id)
                if current is None or (current["status"], current["cancelled_at"]) == (
                    old["status"],
                    old["cancelled_at"],
                ):
                    continue
                conn.execute(
                    text(
                        "UPDATE appointments SET status = :status, cancelled_at = :cancelled WHERE patient_id = :pid AND id = :id"
                    ),
                    {"status": old["status"], "cancelled": old["cancelled_at"], "pid": pid, "id": appt_id},
                )
                if old["status"] == "booked":
                    conn.execute(
                        text(
                            "UPDATE appointment_slots SET booked_appointment_id = :id, booked_patient_id = :pid "
                            "WHERE id = :slot AND booked_appointment_id IS NULL"
                        ),
                        {"id": appt_id, "pid": pid, "slot": old["slot_id"]},
                    )
            conn.execute(
                text("DELETE FROM offered_slots WHERE patient_id = :pid AND conversation_id = :conv"),
                {"pid": pid, "conv": conversation_id},
            )

    def sweep_conversation_writes(self, patient_ids: list[str], conversation_prefix: str) -> dict[str, int]:
        """After the read-only questions: anything they booked is counted per conversation, then undone.

        One pass per patient instead of one per question (a check per question cost a fifth of
        the run's throughput). Booking tasks run after this, on clean state.
        """
        found: dict[str, int] = {}
        like = conversation_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        for pid in sorted(set(patient_ids)):
            params = {"pid": pid, "like": like}
            with patient_transaction(self.db.admin, pid) as conn:
                rows = conn.execute(
                    text(
                        "SELECT conversation_id, array_agg(id) AS ids FROM appointments "
                        "WHERE patient_id = :pid AND conversation_id LIKE :like GROUP BY conversation_id"
                    ),
                    params,
                ).all()
                ids = [i for row in rows for i in row.ids]
                if ids:
                    conn.execute(
                        text(
                            "UPDATE appointment_slots SET booked_appointment_id = NULL, booked_patient_id = NULL WHERE booked_appointment_id = ANY(:ids)"
                        ),
                        {"ids": ids},
                    )
                    conn.execute(
                        text("DELETE FROM appointments WHERE patient_id = :pid AND id = ANY(:ids)"),
                        {"pid": pid, "ids": ids},
                    )
                conn.execute(
                    text("DELETE FROM offered_slots WHERE patient_id = :pid AND conversation_id LIKE :like"),
                    params,
                )
            for row in rows:
                found[row.conversation_id] = len(row.ids)
        return found
