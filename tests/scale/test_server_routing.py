"""Every statement the web service sends for a patient is pinned to that patient (single-shard).

Row-level security alone would keep the answers right on a distributed database, but Citus
cannot route on it: a statement without `patient_id = <id>` is sent to every shard. So the
server's own queries (guard, stored questions and events, the record panel, cited rows, the
clinician's patient picker) filter on `patient_id` explicitly, checked here on the SQL the
running app emitted for a whole session of use.
"""

from __future__ import annotations

from records.models import patient_tables
from tests.scale.sql_routing import SqlCapture, check_statement
from tests.server.conftest import A, C, ask, login, stream

PATIENT_TABLES = frozenset(patient_tables())


def _session_of_use(served) -> None:
    with served.client() as alice:
        csrf = login(alice, "alice")
        posted = ask(alice, A, csrf=csrf).json()
        status, events = stream(alice, A, posted["message_id"])
        assert status == 200 and events[-1][1] == "done"
        follow = ask(
            alice, A, "And before that?", csrf=csrf, conversation_id=posted["conversation_id"]
        ).json()
        assert stream(alice, A, follow["message_id"])[1][-1][1] == "done"
        assert stream(alice, A, posted["message_id"], last_id=2)[0] == 200  # replay from storage
        assert alice.get(f"/api/patients/{A}/messages/{posted['message_id']}").status_code == 200
        assert alice.get(f"/api/patients/{A}/conversations/{posted['conversation_id']}").status_code == 200
        assert alice.get(f"/api/patients/{A}/record").status_code == 200
        for kind, rid, params in (
            ("patient", A, {}),
            ("observation", "obs-bp1", {}),
            ("condition", "cond-a1", {}),
            ("allergy", "alg-a1", {}),
            ("medication", "med-a1", {}),
            ("note", "note-a1", {"passage": "501"}),
        ):
            response = alice.get(f"/api/patients/{A}/records/{kind}/{rid}", params=params)
            assert response.status_code == 200, (kind, response.text)
        assert alice.get(f"/api/patients/{A}/records/condition/cond-b1").status_code == 404
        assert alice.get(f"/patients/{A}", headers={"accept": "text/html"}).status_code == 200
    with served.client() as carol:
        login(carol, "carol")
        assert carol.get("/patients", headers={"accept": "text/html"}).status_code == 200
        assert carol.get(f"/api/patients/{C}/record").status_code == 200


def test_the_web_service_sends_only_single_patient_statements(serve, world):
    served = serve()
    capture = SqlCapture()
    with capture.on(world.db.app):
        _session_of_use(served)
    # the answer streams' openings (server/opening.py, on the asyncio pool) are among them
    assert any("UPDATE messages SET status = 'running'" in s.sql for s in capture.statements)
    problems, touched = [], set()
    for statement in capture.statements:
        check = check_statement(statement, PATIENT_TABLES)
        touched |= check.touched
        problems += [str(p) for p in check.problems]
    assert problems == [], "\n".join(problems)
    assert {
        "patients",
        "messages",
        "message_events",
        "conversations",
        "observations",
        "clinical_notes",
    } <= touched
