"""Issue 18 items 8 and 13: requests the service cannot store are refused, quietly."""

from __future__ import annotations

import logging

import pytest

from server.request_guard import unstorable
from tests.server.conftest import A, audit_rows, login


@pytest.mark.parametrize(
    "path",
    [
        f"/api/patients/{A}%00/record",
        f"/api/patients/{A}/records/condition/cond%00a1",
        f"/api/patients/{A}/messages/%00",
        "/patients/%00",
        f"/api/patients/{A}%ff/record",  # not UTF-8
    ],
)
def test_a_nul_or_invalid_utf8_in_a_path_parameter_is_400_not_500(serve, world, path, caplog):
    served = serve()
    with served.client() as client:
        login(client, "alice")
        with caplog.at_level(logging.ERROR):
            response = client.get(path)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "bad_request"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_the_guard_keeps_ordinary_addresses():
    assert not unstorable(b"/api/patients/pat-a/records/condition/cond-a1")
    assert not unstorable("/patients/Zo\u00eb".encode())
    assert not unstorable(b"passage=3&q=a%20b")
    assert unstorable(b"x%00") and unstorable(b"x%C3") and unstorable(b"x\x00")


def test_a_413_is_one_warning_line_without_a_traceback(serve, world, caplog):
    served = serve()
    with served.client() as client:
        csrf = login(client, "alice")
        with caplog.at_level(logging.INFO):
            response = client.post(
                f"/api/patients/{A}/messages",
                content=b'{"question": "' + b"x" * 40_000 + b'"}',
                headers={"content-type": "application/json", "X-CSRF-Token": csrf},
            )
    assert response.status_code == 413
    assert all(r.exc_info is None for r in caplog.records), [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_anonymous_requests_are_throttled_per_client_and_stop_writing_audit_rows(serve, world):
    served = serve(api_rate_per_minute=5)
    with served.client() as client:
        statuses = [client.get(f"/api/patients/{A}/record").status_code for _ in range(12)]
    assert statuses[:5] == [401] * 5
    assert set(statuses[5:]) == {429}
    assert len(audit_rows(world.db, outcome="unauthenticated")) == 5
