"""A count the offline planner leads with is grounded like any other number: asked "how many
…" on a generated cohort, no answer may carry the grounding check's `[unverified]` or
`unknown source` marks (a user reads those as "this number may be wrong").

Found on the demo cohort: "How many visits do I have?" led with "Your record has 19
[unverified] visit(s)", because the lead sentence cited no row.
"""

from __future__ import annotations

import datetime as dt

import pytest

from agent.base import AgentRequest
from agent.events import DoneEvent
from agent.grounding import UNKNOWN_MARK, UNVERIFIED_MARK
from agent.offline import OfflineAgent
from tests.agent.conftest import run
from tests.conftest import wipe
from tools.catalog import build_registry
from tools.scope import PatientScope

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
QUESTIONS = (
    "How many visits do I have?",
    "how many times have I been to the doctor",
    "How many allergies do I have?",
    "how many ER visits have I had",
)


@pytest.fixture(scope="module")
def cohort(db, tmp_path_factory):
    from fhir_ingest.loader import ingest_paths
    from synthea_data.generator import generate_cohort

    wipe(db)
    out = tmp_path_factory.mktemp("counts") / "cohort"
    generate_cohort(out, patients=4, seed=23)
    assert ingest_paths(db, [out]).ok
    with db.admin.connect() as conn:
        ids = [r[0] for r in conn.exec_driver_sql("SELECT patient_id FROM patients ORDER BY patient_id")]
    yield db, ids
    wipe(db)


def test_counts_are_grounded_in_the_rows_they_cite(cohort):
    db, ids = cohort
    agent = OfflineAgent(build_registry(), db)
    flagged = []
    for pid in ids:
        scope = PatientScope(patient_id=pid, role="patient", actor="test", conversation_id="counts")
        for question in QUESTIONS:
            done = run(agent, AgentRequest(scope=scope, question=question, now=NOW))[-1]
            assert isinstance(done, DoneEvent) and done.answer.strip(), question
            if UNVERIFIED_MARK.strip() in done.answer or UNKNOWN_MARK in done.answer:
                flagged.append((pid, question, done.answer.splitlines()[0:3]))
    assert ids and flagged == []
