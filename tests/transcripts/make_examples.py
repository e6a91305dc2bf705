"""Write the example transcripts: `python -m tests.transcripts.make_examples`.

The conversation runs on the deterministic test cohort (`tests.evals.cohort`, patient
`pat-ann`) with the scripted model behind the contract-checking fake. A transcript recorded
with a real key (`chartside ask --save-transcript`) on the same cohort is replayed the same way.
"""

from __future__ import annotations

from pathlib import Path

from agent import scripted_model
from agent.fake_api import FakeMessagesAPI
from agent.transcript import Transcript
from records import migrate
from records.database import open_database
from tests.conftest import test_settings, wipe
from tests.evals import cohort
from tests.transcripts.harness import play

HERE = Path(__file__).parent
EXAMPLES = {
    "ann_five_questions.json": dict(
        role="patient",
        thinking="adaptive",
        questions=[
            "What are my active conditions?",
            "What medications am I taking and what am I allergic to?",
            "Why did my A1C results change over time?",
            "Which vaccines have I had?",
            "Do I have any appointments booked?",
        ],
    ),
    # the intent reader offers the visit tools; the model asks for the conditions tools
    # with more_tools and calls them on its next turn
    "ann_more_tools.json": dict(
        role="patient",
        thinking="adaptive",
        questions=["What problem did my last visit address?"],
    ),
}


def main() -> None:
    settings = test_settings(database_name="chartside_transcripts")
    db = open_database(settings)
    try:
        migrate.upgrade(db)
        wipe(db)
        ann, _ = cohort.build(db)
        for name, spec in EXAMPLES.items():
            recorders: list = []
            with FakeMessagesAPI() as api:
                api.responder = scripted_model.respond
                play(
                    db,
                    api,
                    patient_id=ann.pid,
                    today=cohort.NOW.date().isoformat(),
                    recorders=recorders,
                    **spec,
                )
                assert not api.violations, api.violations
            record = Transcript(
                model="claude-sonnet-5-5",
                provider="anthropic",
                patient_id=ann.pid,
                role=spec["role"],
                today=cohort.NOW.date().isoformat(),
                thinking=spec["thinking"],
            )
            for question, recorder in zip(spec["questions"], recorders, strict=True):
                record.add(question, recorder.exchanges)
            record.write(HERE / name)
            print(f"wrote {HERE / name}: {sum(len(r.exchanges) for r in recorders)} model calls")
    finally:
        db.dispose()


if __name__ == "__main__":
    main()
