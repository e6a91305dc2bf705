"""An advice refusal that names a medicine the patient is not on says it was searched for.

Seen in round eighteen's browser check: "can i double my metformin if my sugar is high?" from a
patient never prescribed metformin was refused with the whole active list (doxycycline) under
"From your record:", which reads as if metformin were on it. The named medicine is now looked up
over every prescription and the tool's own "none (active and past)" sentence is shown; a medicine
the patient does take still shows just its own row.
"""

from __future__ import annotations

import pytest

from agent.events import DoneEvent, ToolCallEvent
from agent.offline import OfflineAgent
from agent.runner import GuardedAgent
from agent.safety.refusal import ADVICE_LEAD, named_drugs
from agent.safety.text import normalise
from tests.agent.conftest import run
from tests.agent.scoped_world import build, request
from tools.catalog import build_registry

# (question, the medicine it names that this patient — metformin and lisinopril, active — never had)
NOT_PRESCRIBED = [
    ("can i double my warfarin if i missed yesterday", "warfarin"),
    ("Should I stop taking my atorvastatin before the op?", "atorvastatin"),
    ("is it ok to take ibuprofen with my lisinopril", "ibuprofen"),
    ("can i skip the omeprazol this week", "omeprazole"),
    ("puedo dejar la warfarina?", "warfarin"),  # the Spanish ending is one slip from the name
    ("can i stop my water tablets", None),  # no medicine named: no claim about one
]


@pytest.fixture()
def world(clean_db):
    return build(clean_db)


def _refuse(world, question: str):
    events = run(GuardedAgent(OfflineAgent(build_registry(), world.db)), request(question))
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.mode == "guardrail" and done.answer.startswith(ADVICE_LEAD)
    calls = [e.input for e in events if isinstance(e, ToolCallEvent) and e.name == "get_medications"]
    return done.answer, calls


@pytest.mark.parametrize(("question", "drug"), NOT_PRESCRIBED)
def test_a_named_medicine_never_prescribed_is_said_to_be_searched_for_and_absent(world, question, drug):
    answer, calls = _refuse(world, question)
    if drug is None:
        assert "active and past" not in answer
        return
    assert {"status": "all", "query": drug} in calls
    assert f"No medications (active and past) matching '{drug}'" in answer
    # the patient's own unrelated medicines are not presented as the answer about this one
    assert "Metformin" not in answer or drug == "metformin"


def test_a_named_medicine_the_patient_takes_shows_only_its_row(world):
    answer, calls = _refuse(world, "can i double my metformin if my sugar is high?")
    assert "Metformin hydrochloride 500 MG" in answer and "Lisinopril" not in answer
    assert "active and past" not in answer and calls[-1] == {"status": "active", "query": "metformin"}


def test_an_interaction_question_shows_the_taken_medicine_and_the_absent_one(world):
    answer, _ = _refuse(world, "can I take ibuprofen with my lisinopril?")
    assert "Lisinopril 10 MG" in answer and "matching 'ibuprofen'" in answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("can i double my warfrin", ["warfarin"]),  # one slip in a long name
        ("is tylenol ok with my metformin", ["acetaminophen", "metformin"]),  # brand → ingredient
        ("can i take two at once", []),
        ("should i stop my tablets", []),
    ],
)
def test_named_drugs_reads_names_brands_and_slips(text, expected):
    assert named_drugs(normalise(text)) == expected
