import os
from agent.offline import OfflineAgent
from evals.paraphrase.hunt import Ask, answer, asks_of, denies
from evals.paraphrase.grade import lead_of
from tests.agent.conftest import COHORT_NOW
from tools.catalog import build_registry
import asyncio

def test_scratch(cohort):
    db, records = cohort
    agent = OfflineAgent(build_registry(), db)
    qs = [l.strip() for l in open("/tmp/qs.txt") if l.strip()]
    for rec in records:
        if os.environ.get("KINDS"):
            kinds = os.environ["KINDS"].split(",")
            for a in asks_of(rec):
                if a.kind in kinds:
                    t = asyncio.run(answer(agent, a, COHORT_NOW))
                    if denies(t) == a.held:
                        print("MISS", a.kind, "|", a.question, "|", lead_of(t))
        for q in qs:
            if q.startswith("#"):
                continue
            t = asyncio.run(answer(agent, Ask(rec.patient.patient_id, "x", "x", q, True), COHORT_NOW))
            print(rec.patient.patient_id[:6], "|", q, "|", lead_of(t))
