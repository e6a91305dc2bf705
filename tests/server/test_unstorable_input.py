"""Issue 18 items 8 and 13: requests the service cannot store are refused, quietly."""

from __future__ import annotations

import logging

import pytest

from tests.server.conftest import A, audit_rows, login


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (f"/api/patients/{A}/records/condition/cond%00a1", 400),  # was a 500 (psycopg DataError)
        (f"/api/patients/{A}/records/observation/%00", 400),
        (f"/api/patients/{A}/messages/%00", 404),
        (f"/api/patients/{A}%00/record", 404),  # a patient id: refused and audited by the guard
        ("/patients/%00", 404),
    ],
)
def test_a_nul_in_a_path_parameter_is_a_client_error_not_a_500(serve, world, path, status, caplog):
    served = serve()
    with served.client() as client:
        login(client, "alice")
        with caplog.at_level(logging.ERROR):
            response = client.get(path)
    assert response.status_code == status, response.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


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
