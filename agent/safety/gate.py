"""The safety gate: one call, `check(question, role, vector=...)`, before any agent runs.

Decision (DESIGN invariant 3), in order:

1. **Emergency** = lexical rules (`agent.safety.lexical`) OR the semantic detector
   (`agent.safety.semantic`, nearest tuning exemplars on the question's embedding). The
   semantic side is silenced when the lexical side found the emergency words explicitly
   negated or framed as a record/leaflet/booking question with nothing happening now —
   negation and record framing are decided by readable rules, not by a similarity.
   Every role gets the constant emergency reply for emergency wording; for clinicians,
   record-framed wording ("history of suicidal ideation?") is a chart question and passes.
2. **Clinical advice** (patients only) = the lexical advice rules. The embedding model
   cannot tell "what dose am I on?" (a record question) from "what dose should I take?"
   (advice): measured on the tuning part, a nearest-exemplar advice detector flagged 9–18%
   of hard negatives at any useful recall, so it is not used for advice.
3. Otherwise the question passes.

The semantic side needs the question's embedding. The caller passes the vector it computes
once per question (and shares with search, see `agent.safety.shared`); without an embedder
the gate runs its lexical half only and says so in the verdict (`semantic=False`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agent.safety.lexical import framing, lexical_advice, lexical_emergency
from agent.safety.replies import CLINICAL_ADVICE_REPLY, EMERGENCY_REPLY
from agent.safety.semantic import THRESHOLDS, ExemplarIndex
from agent.safety.text import prepare

Kind = Literal["emergency", "clinical_advice", "allow"]


@dataclass(frozen=True)
class Verdict:
    kind: Literal["emergency", "clinical_advice", "other_patient"]
    category: str  # chest_pain, breathing, overdose, suicide, ... | dosing, start_stop, interpretation, ...
    reply: str
    source: str = "lexical"  # lexical | semantic | other


def check(
    question: str,
    role: str,
    *,
    vector: Sequence[float] | None = None,
    index: ExemplarIndex | None = None,
) -> Verdict | None:
    """A scripted verdict when the question must not reach a model; None when it may.

    `vector` is the question's embedding and `index` the exemplar index; with either missing
    only the lexical rules run.
    """
    texts = prepare(question)
    category, suppressed = lexical_emergency(texts, role)
    if category is not None:
        return Verdict("emergency", category, EMERGENCY_REPLY, "lexical")
    if vector is not None and index is not None and not suppressed:
        frame = framing(texts)
        if not frame.record or frame.acute:
            scores = index.scores(vector, role)
            hit = scores.fires("emergency", THRESHOLDS.emergency_floor, THRESHOLDS.emergency_margin)
            if hit is not None:
                return Verdict("emergency", hit, EMERGENCY_REPLY, "semantic")
    if role == "patient":
        advice = lexical_advice(texts)
        if advice is not None:
            return Verdict("clinical_advice", advice, CLINICAL_ADVICE_REPLY, "lexical")
    return None
