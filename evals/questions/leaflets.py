"""Questions about the hospital's patient-information leaflets (shared reference data).

Deterministic parts: the right leaflet must be cited (retrieval), and the leaflet's contact
number must be stated when asked for it. "No leaflet on that" is a correct answer for topics
the hospital does not cover.
"""

from __future__ import annotations

import random
import re

from evals.model import AbstainAnswer, TextAnswer
from evals.questions.facts import Fact, gold
from evals.truth import LeafletRow

ABSENT_TOPICS = (
    "scuba diving after surgery",
    "caring for a pet tortoise",
    "preparing for space travel",
    "learning to play the bagpipes",
)


def _phone_variants(contact: str) -> tuple[str, ...]:
    """The number as written and as bare digits, so '020 7188 7188' matches '02071887188'."""
    numbers = re.findall(r"\+?\d[\d\s().-]{5,}\d", contact)
    out: list[str] = []
    for number in numbers:
        out += [number.strip(), re.sub(r"\D", "", number)]
    return tuple(dict.fromkeys(out))


def leaflet_facts(rng: random.Random, leaflets: list[LeafletRow]) -> list[Fact]:
    facts: list[Fact] = []
    if leaflets:
        leaflet = rng.choice(leaflets)
        title = leaflet.title.strip().rstrip(".")
        facts.append(
            Fact(
                "leaflet",
                "leaflet_topic",
                leaflet.slug,
                TextAnswer(accepted=(), reference=f"the hospital leaflet '{title}'"),
                (f"Does the hospital have any information about {title.lower()}?",),
                (f"Is there a patient leaflet on {title.lower()} I can point the patient to?",),
                f"leaflet {leaflet.slug} ('{title}'); graded on citing it",
                gold("leaflet", [leaflet.slug]),
            )
        )
        with_contact = [lf for lf in leaflets if lf.contact and _phone_variants(lf.contact)]
        if with_contact:
            leaflet = rng.choice(with_contact)
            title = leaflet.title.strip().rstrip(".")
            facts.append(
                Fact(
                    "leaflet",
                    "leaflet_contact",
                    leaflet.slug,
                    TextAnswer(
                        accepted=_phone_variants(leaflet.contact or ""), reference=leaflet.contact or ""
                    ),
                    (f"Who can I phone with questions about {title.lower()}?",),
                    (f"What contact number does the leaflet on {title.lower()} give?",),
                    f"leaflets.contact of {leaflet.slug}: {leaflet.contact}",
                    gold("leaflet", [leaflet.slug]),
                )
            )
    topic = rng.choice(ABSENT_TOPICS)
    facts.append(
        Fact(
            "leaflet",
            "leaflet_absent",
            topic,
            AbstainAnswer(missing=f"leaflet about {topic}", section="leaflets"),
            (f"Is there a hospital leaflet about {topic}?",),
            (f"Do we have a patient leaflet on {topic}?",),
            "no leaflet covers this topic",
        )
    )
    return facts
