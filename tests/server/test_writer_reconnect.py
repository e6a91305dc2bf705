"""Issue 18 item 14: the answer's event writer survives its connection being killed."""

from __future__ import annotations

from sqlalchemy.exc import OperationalError

from server import store
from tests.server.conftest import A, ask, login, stream
from tests.server.test_streaming import _stored


def test_a_killed_writer_connection_does_not_lose_the_answer(serve, world, monkeypatch):
    real = store.append_events
    failures: list[int] = []

    def killed_once(*args, **kwargs):
        if not failures:  # the first batch meets a connection the server terminated
            failures.append(1)
            raise OperationalError(
                "INSERT INTO message_events …",
                {},
                Exception("terminating connection"),
                connection_invalidated=True,
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "append_events", killed_once)
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        mid = ask(client, A, csrf=csrf).json()["message_id"]
        status, events = stream(client, A, mid)
        stored = client.get(f"/api/patients/{A}/messages/{mid}").json()
    assert failures == [1] and status == 200
    assert events[-1][1] == "done", events[-1]
    assert stored["status"] == "done"
    status_in_db, rows = _stored(world.db, mid)  # every event kept, none lost with the failed batch
    assert status_in_db == "done" and rows == [(e[0], e[1]) for e in events]
