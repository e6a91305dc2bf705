"""Round eighteen, after the paraphrase part frozen15 was measured once (then moved into tuning):
three ways the new clause reader mis-cut a message, in fresh wordings (none is a template of
tune_frozen15).

- "we're" / "they're" / "you're" normalise to "were" / "theyre" / "youre": "were" is an inverted
  verb, so a statement preamble ("We're planning a birthday dinner and I want to be careful: …") was
  taken for a second request and answered (a birth date for "birthday");
- a label before a colon ("Allergies: aspirin listed? y/n") was cut off its question, which then
  read as a medicine and got a confident "No" beside a recorded aspirin allergy;
- a preamble sentence naming something of the record ("I've got a follow-up next week …. What's my
  most recent weight?") kept the whole message planned, and the answer led with the last visit.
"""

from __future__ import annotations

from agent.offline.clauses import clauses
from tests.agent.test_offline_round17 import _served
from tests.agent.test_offline_round18 import _check_aside

WORDINGS = [
    # a statement preamble with a contraction, then the question
    (
        "We're off to a wedding on Saturday so I'm double checking: do I have any allergies on file?",
        "patient",
        "allergy",
    ),
    ("They're asking me at the pharmacy counter and I want to be sure: am i on {med}?", "patient", "med"),
    ("You're probably busy but we're sorting her pill box. Is she still on {med}?", "clinician", "med"),
    ("We're filling the school trip form tonight. What allergies are on my record?", "patient", "allergy"),
    # a short label before a colon scopes its question
    ("Allergies: anything recorded? y/n", "clinician", "allergy"),
    ("Meds: {med} still current?", "clinician", "med"),
    ("Labs: most recent a1c?", "clinician", "a1c"),
    ("Allergy check: what is she allergic to", "clinician", "allergy"),
    ("Quick one: latest weight for me?", "patient", "weight"),
    # a preamble sentence that names a visit, then a question of another kind
    ("I have a check up on Friday and want to be ready. What's my latest weight?", "patient", "weight"),
    ("My last visit felt rushed. Whats my most recent a1c?", "patient", "a1c"),
    ("She has a review booked with the practice nurse. What is her most recent weight?", "clinician", "weight"),
    (
        "I've got an appointment coming up and my son is driving me. Am I still taking {med}?",
        "patient",
        "med",
    ),
]


def test_preambles_and_labels_never_take_the_answer(cohort, settings):
    agent = _served(cohort, settings)
    _, records = cohort
    misses = _check_aside(agent, records[:12], WORDINGS)
    assert not misses, misses[:8]


def test_a_label_colon_does_not_cut_but_a_sentence_colon_does():
    def cut(message: str) -> list[str]:
        return [c.words for c in clauses(message)]

    assert cut("Allergies: aspirin listed? y/n") == ["Allergies: aspirin listed?", "y/n"]
    assert cut("PMH: asthma?") == ["PMH: asthma?"]
    assert cut("We're planning a birthday dinner and I want to be careful: am I allergic to peanut?") == [
        "We're planning a birthday dinner and I want to be careful",
        "am I allergic to peanut?",
    ]
