"""Fixtures for the web service: a small seeded world, accounts, an app on a loopback port.

The world: patients A (a rich record), B (with canary strings that must never reach A's
users) and C; accounts alice (patient A), bob (patient B), carol (clinician, panel A and C),
eve (evaluator with an API token, panel A).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from records.accounts import create_account
from records.database import Database, patient_transaction
from server.app import create_app
from server.live import LiveServer
from server.scripted_agent import ScriptedAgent, quick_answer_script
from tests.conftest import test_settings

PASSWORD = "correct horse battery"
UTC = dt.UTC
A, B, C = "pat-a", "pat-b", "pat-c"
CANARY = "CANARY-B-7d1f"


def _day(y: int, m: int, d: int) -> dt.datetime:
    return dt.datetime(y, m, d, 9, 30, tzinfo=UTC)


def seed_patient(db: Database, pid: str, name: str, *, rich: bool = False, canary: bool = False) -> None:
    with patient_transaction(db.admin, pid) as conn:
        conn.execute(
            text(
                "INSERT INTO patients (patient_id, full_name, birth_date, gender) VALUES (:p, :n, '1961-04-02', 'female')"
            ),
            {"p": pid, "n": name},
        )
        if canary:
            conn.execute(
                text(
                    "INSERT INTO conditions (patient_id, id, clinical_status, display, code) "
                    "VALUES (:p, 'cond-b1', 'active', :d, '1')"
                ),
                {"p": pid, "d": f"{CANARY} condition"},
            )
            conn.execute(
                text(
                    "INSERT INTO observations (patient_id, id, status, code, display, value_num, value_unit, effective) "
                    # whole seconds: a fractional timestamp ("…:47.21") in an answer would carry digits
                    # like "7.2" that the cross-patient tests look for as leaks of A's values
                    "VALUES (:p, 'obs-b1', 'final', '4548-4', 'Hemoglobin A1c', 9.9, '%', date_trunc('second', now()))"
                ),
                {"p": pid},
            )
        if not rich:
            return
        rows = [
            ("cond-a1", "active", None, "Diabetes mellitus type 2 (disorder)", _day(2015, 3, 1), None),
            ("cond-a2", "active", None, "Full-time employment (finding)", _day(2019, 1, 1), None),
            ("cond-a3", "resolved", None, "Acute bronchitis (disorder)", _day(2020, 2, 1), _day(2020, 3, 1)),
            ("cond-a4", "active", "entered-in-error", "Wrong entry (disorder)", _day(2021, 1, 1), None),
            ("cond-a5", "active", None, "<script>alert('x')</script> (disorder)", _day(2016, 1, 1), None),
        ]
        for cid, status, verification, display, onset, abatement in rows:
            conn.execute(
                text(
                    "INSERT INTO conditions (patient_id, id, clinical_status, verification_status, display, onset, "
                    "abatement, code) VALUES (:p, :i, :s, :v, :d, :o, :a, '44054006')"
                ),
                {
                    "p": pid,
                    "i": cid,
                    "s": status,
                    "v": verification,
                    "d": display,
                    "o": onset,
                    "a": abatement,
                },
            )
        meds = [
            ("med-a1", "active", "Metformin 500 MG Oral Tablet", None),
            ("med-a2", "stopped", "Lisinopril 10 MG Oral Tablet", None),
            ("med-a3", "active", "Atorvastatin 20 MG Oral Tablet", _day(2020, 1, 1)),
        ]
        for mid, status, display, ended in meds:
            conn.execute(
                text(
                    "INSERT INTO medication_requests (patient_id, id, status, display, authored_on, ended_at) "
                    "VALUES (:p, :i, :s, :d, :a, :e)"
                ),
                {"p": pid, "i": mid, "s": status, "d": display, "a": _day(2018, 5, 5), "e": ended},
            )
        # HbA1c written out of time order; the newest row is entered-in-error and must not count
        labs = [
            ("obs-a2", "final", 6.4, _day(2022, 6, 1)),
            ("obs-a1", "final", 7.2, _day(2021, 6, 1)),
            ("obs-a3", "final", 6.1, _day(2024, 3, 1)),
            ("obs-a4", "entered-in-error", 12.0, _day(2024, 9, 1)),
        ]
        for oid, status, value, when in labs:
            conn.execute(
                text(
                    "INSERT INTO observations (patient_id, id, status, category, code, display, value_type, "
                    "value_num, value_unit, effective, ref_high) VALUES (:p, :i, :s, 'laboratory', '4548-4', "
                    "'Hemoglobin A1c/Hemoglobin.total in Blood', 'quantity', :v, '%', :e, 5.7)"
                ),
                {"p": pid, "i": oid, "s": status, "v": value, "e": when},
            )
        conn.execute(
            text(
                "INSERT INTO observations (patient_id, id, status, category, code, display, value_type, effective) "
                "VALUES (:p, 'obs-bp1', 'final', 'vital-signs', '85354-9', 'Blood pressure panel', 'components', :e)"
            ),
            {"p": pid, "e": _day(2024, 3, 1)},
        )
        for seq, code, value in ((0, "8462-4", 82.0), (1, "8480-6", 131.0)):
            conn.execute(
                text(
                    "INSERT INTO observation_components (patient_id, observation_id, seq, code, display, value_type, "
                    "value_num, value_unit) VALUES (:p, 'obs-bp1', :s, :c, :d, 'quantity', :v, 'mm[Hg]')"
                ),
                {
                    "p": pid,
                    "s": seq,
                    "c": code,
                    "d": "Systolic" if code == "8480-6" else "Diastolic",
                    "v": value,
                },
            )
        for aid, status, display in (
            ("alg-a1", "confirmed", "Peanut (substance)"),
            ("alg-a2", "entered-in-error", "Latex"),
        ):
            conn.execute(
                text(
                    "INSERT INTO allergies (patient_id, id, clinical_status, verification_status, display, criticality) "
                    "VALUES (:p, :i, 'active', :v, :d, 'high')"
                ),
                {"p": pid, "i": aid, "v": status, "d": display},
            )
        note_text = (
            "Chief complaint: follow-up.\n\nAssessment: diabetes well controlled.\n\n"
            "Plan: <img src=https://evil.example/x.png> continue metformin."
        )
        conn.execute(
            text(
                "INSERT INTO clinical_notes (patient_id, id, type_display, date, author_name, text, text_sha256) "
                "VALUES (:p, 'note-a1', 'Progress note', :d, 'Dr. Rivera', :t, 'x')"
            ),
            {"p": pid, "d": _day(2024, 3, 1), "t": note_text},
        )
        conn.execute(
            text(
                "INSERT INTO note_chunks (patient_id, id, note_id, seq, section, text) "
                "VALUES (:p, 501, 'note-a1', 1, 'Assessment', 'Assessment: diabetes well controlled.')"
            ),
            {"p": pid},
        )


def seed_reference(db: Database) -> None:
    with db.admin.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO leaflets (id, slug, title, category, source_path, format, sha256) "
                "VALUES (1, 'diabetes', 'Living with type 2 diabetes', 'diabetes', 'x.md', 'markdown', 'x')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO leaflet_chunks (id, leaflet_id, seq, heading_path, text) VALUES "
                "(11, 1, 0, 'Diet', 'Eat regular meals. ![x](https://evil.example/track.png)')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO departments (id, name, specialty) VALUES ('dep-1', 'Diabetes clinic', 'endocrinology')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO appointment_slots (id, department_id, starts_at, ends_at) VALUES "
                "('slot-1', 'dep-1', now() + interval '3 days', now() + interval '3 days 30 minutes')"
            )
        )


@dataclass
class World:
    db: Database
    eve_token: str


@pytest.fixture()
def world(clean_db: Database) -> World:
    db = clean_db
    seed_patient(db, A, "Alice Anders", rich=True)
    seed_patient(db, B, "Bob Brown", canary=True)
    seed_patient(db, C, "Cara Chen")
    seed_reference(db)
    create_account(
        db, username="alice", role="patient", password=PASSWORD, patients=[A], display_name="Alice"
    )
    create_account(db, username="bob", role="patient", password=PASSWORD, patients=[B])
    create_account(db, username="carol", role="clinician", password=PASSWORD, patients=[A, C])
    _, token = create_account(
        db, username="eve", role="evaluator", password=PASSWORD, patients=[A], with_token=True
    )
    assert token
    return World(db=db, eve_token=token)


def audit_rows(db: Database, **where: Any) -> list[Any]:
    clause = " AND ".join(f"{k} = :{k}" for k in where) or "true"
    with db.admin.connect() as conn:
        return conn.execute(text(f"SELECT * FROM audit_log WHERE {clause} ORDER BY id"), where).all()


@dataclass
class Served:
    url: str
    agent: ScriptedAgent
    app: Any

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, **kw)

    @property
    def runs(self) -> Any:
        return self.app.state.services.runs


ServeFactory = Callable[..., Served]


@pytest.fixture()
def serve(world: World) -> Iterator[ServeFactory]:
    """serve(script=..., **settings_overrides) -> a running app; stopped at the end of the test."""
    started: list[LiveServer] = []

    def start(script: Any = None, **overrides: Any) -> Served:
        settings = test_settings(**{"stream_grace_s": 0.0, **overrides})
        agent = ScriptedAgent(script if script is not None else quick_answer_script())
        app = create_app(settings, db=world.db, agent_factory=lambda _resources: agent)
        live = LiveServer(app).__enter__()
        started.append(live)
        return Served(url=live.url, agent=agent, app=app)

    yield start
    for live in started:
        live.__exit__(None, None, None)


@pytest.fixture()
def browser(safety_gate_ready: bool) -> Iterator[Any]:
    """Headless Chromium (Debian's package, driven by Playwright): tests.server.browser_support.

    Every browser test asks a live server, so the safety gate is built before the first one
    (`safety_gate_ready`): its one-time cost must not fall inside an answer's timeout."""
    from tests.server.browser_support import launch

    yield from launch()


CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def login(client: httpx.Client, username: str, password: str = PASSWORD) -> str:
    """Log in through the form; returns the CSRF token of the logged-in session."""
    page = client.get("/login")
    token = CSRF_META.search(page.text).group(1)
    response = client.post("/login", data={"username": username, "password": password, "csrf_token": token})
    assert response.status_code == 303, response.text
    return client.get("/api/me").json()["csrf_token"]


def ask(
    client: httpx.Client,
    patient: str,
    question: str = "What is my latest HbA1c?",
    csrf: str | None = None,
    **body: Any,
) -> httpx.Response:
    headers = {"X-CSRF-Token": csrf} if csrf else {}
    return client.post(
        f"/api/patients/{patient}/messages", json={"question": question, **body}, headers=headers
    )


def read_sse(response: httpx.Response, stop_after: int | None = None) -> list[tuple[int, str, dict]]:
    """Parse an SSE response into (id, event, data) tuples; stop early after `stop_after` events."""
    import json

    events: list[tuple[int, str, dict]] = []
    current: dict[str, str] = {}
    for line in response.iter_lines():
        if line == "":
            if "event" in current:
                events.append((int(current["id"]), current["event"], json.loads(current["data"])))
                current = {}
                if stop_after is not None and len(events) >= stop_after:
                    break
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        current[key] = value[1:] if value.startswith(" ") else value
    return events


def stream(
    client: httpx.Client,
    patient: str,
    message_id: str,
    last_id: int | None = None,
    stop_after: int | None = None,
):
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    with client.stream(
        "GET", f"/api/patients/{patient}/messages/{message_id}/events", headers=headers
    ) as response:
        if response.status_code != 200:
            response.read()
            return response.status_code, []
        return 200, read_sse(response, stop_after)


def fail_event_writes(
    monkeypatch: pytest.MonkeyPatch,
    when: Callable[[dict[str, Any]], bool],
    *,
    after_commit: bool = False,
    error: Exception | None = None,
) -> None:
    """Every event write of a run for which `when(its keywords)` holds fails as if its
    connection had been killed: before it ran, or (`after_commit`) once it has committed, the
    reply lost. On both of the run's write paths: its one round trip on the event loop
    (`server.closing.write_events`) and the writer thread's `store.append_events`, which the
    run falls back to. `error`: raised on both instead of the paths' own disconnect errors."""
    import psycopg
    from sqlalchemy.exc import OperationalError

    from server import closing, store

    real, real_on_loop = store.append_events, closing.write_events

    def killed(on_loop: bool) -> Exception:
        if error is not None:
            return error
        if on_loop:
            return psycopg.OperationalError("terminating connection")
        return OperationalError(
            "COMMIT", {}, Exception("terminating connection"), connection_invalidated=True
        )

    def in_thread(*args: Any, **kwargs: Any) -> None:
        failing = when(kwargs)
        if failing and not after_commit:
            raise killed(False)
        real(*args, **kwargs)
        if failing:
            raise killed(False)

    async def on_loop(*args: Any, **kwargs: Any) -> None:
        failing = when(kwargs)
        if failing and not after_commit:
            raise killed(True)
        await real_on_loop(*args, **kwargs)
        if failing:
            raise killed(True)

    monkeypatch.setattr(store, "append_events", in_thread)
    monkeypatch.setattr(closing, "write_events", on_loop)


def once(record: list[int]) -> Callable[[dict[str, Any]], bool]:
    """A `fail_event_writes` predicate that holds for the first write only (noted in `record`)."""

    def first(_kwargs: dict[str, Any]) -> bool:
        if record:
            return False
        record.append(1)
        return True

    return first
