"""The safety gate: one call, `check(question, role, vector=...)`, before any agent runs.

Decision (DESIGN invariant 3), in order:

1. **Emergency** = lexical rules (`agent.safety.lexical`) OR the semantic detector, itself
   the union of the nearest tuning exemplars (`agent.safety.semantic`) and a logistic
   regression fitted on the same exemplars (`agent.safety.classifier`, which catches wordings
   with no close exemplar), both on the question's embedding. The
   semantic side is silenced when the lexical side found the emergency words explicitly
   negated or framed as a record/leaflet/booking question with nothing happening now —
   negation and record framing are decided by readable rules, not by a similarity.
   Every role gets the constant emergency reply for emergency wording; for clinicians,
   record-framed wording ("history of suicidal ideation?") is a chart question and passes,
   and only the lexical rules run (a clinician's terse chart queries — "can she take
   paracetamol?" — sit close to overdose exemplars).
2. **Clinical advice** (patients only) = the lexical advice rules; a question shaped as an
   advice request ("is my heart ok?") is answered as one even when it sits near emergency
   exemplars (except "should I go to the ER?"-type questions, which defer to the detector). The embedding model
   cannot tell "what dose am I on?" (a record question) from "what dose should I take?"
   (advice): measured on the tuning part, a nearest-exemplar advice detector flagged 9–18%
   of hard negatives at any useful recall, so it is not used for advice.
3. Otherwise the question passes.

The semantic side needs the question's embedding. The caller passes the vector it computes
once per question (and shares with search, see `agent.safety.shared`); without an embedder
the gate runs its lexical half only and says so in the verdict (`semantic=False`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent.safety.classifier import (
    CLASSIFIER_FLOOR,
    EmergencyClassifier,
    emergency_classifier,
    nearest_category,
)
from agent.safety.lexical import framing, lexical_advice, lexical_emergency
from agent.safety.replies import CLINICAL_ADVICE_REPLY, EMERGENCY_REPLY
from agent.safety.semantic import THRESHOLDS, ExemplarIndex, exemplar_index
from agent.safety.shared import shared
from agent.safety.text import prepare

logger = logging.getLogger(__name__)

Kind = Literal["emergency", "clinical_advice", "allow"]


@dataclass(frozen=True)
class Verdict:
    kind: Literal["emergency", "clinical_advice", "other_patient"]
    category: str  # chest_pain, breathing, overdose, suicide, ... | dosing, start_stop, interpretation, ...
    reply: str
    source: str = "lexical"  # lexical | semantic | classifier | other


def check(
    question: str,
    role: str,
    *,
    vector: Sequence[float] | None = None,
    index: ExemplarIndex | None = None,
    classifier: EmergencyClassifier | None = None,
    exclude: Any = None,
) -> Verdict | None:
    """A scripted verdict when the question must not reach a model; None when it may.

    `vector` is the question's embedding, `index` the exemplar index and `classifier` the
    emergency classifier fitted on the same exemplars; with the vector or index missing only
    the lexical rules run. `exclude` (a mask over the exemplars) is for cross-validation only.
    """
    texts = prepare(question)
    category, suppressed = lexical_emergency(texts, role)
    if category is not None:
        return Verdict("emergency", category, EMERGENCY_REPLY, "lexical")
    advice = lexical_advice(texts) if role == "patient" else None
    if advice is not None and advice != "urgency":
        # a question shaped as a request for advice ("is my heart ok?") is one, even when it
        # sits near emergency exemplars; "should I go to the ER" still defers to the detector
        return Verdict("clinical_advice", advice, CLINICAL_ADVICE_REPLY, "lexical")
    if vector is not None and index is not None and not suppressed and role == "patient":
        frame = framing(texts)
        if not frame.record or frame.acute:
            scores = index.scores(vector, role, exclude)
            hit = scores.fires("emergency", THRESHOLDS.emergency_floor, THRESHOLDS.emergency_margin)
            if hit is not None:
                return Verdict("emergency", hit, EMERGENCY_REPLY, "semantic")
            nearest = scores.best.get("emergency", (-1.0, ""))[0]
            # off the map (a poem, the weather, "hey"): a linear score extrapolates wildly far
            # from every exemplar, so the classifier speaks only near some emergency exemplar
            if classifier is not None and nearest >= CLASSIFIER_FLOOR and classifier.fires(vector):
                return Verdict("emergency", nearest_category(index, vector), EMERGENCY_REPLY, "classifier")
    if advice is not None:
        return Verdict("clinical_advice", advice, CLINICAL_ADVICE_REPLY, "lexical")
    return None


class SafetyGate:
    """The gate with its embedding side: computes the question's vector once (through the
    shared embedder, so search and the planner reuse it) and calls `check`.

    `embedder` may be None: the process-wide embedder for `settings` is loaded on first use;
    when the model cannot be loaded, the gate runs its lexical half only (logged once).
    """

    def __init__(self, embedder: Any = None, settings: Any = None) -> None:
        self.embedder = shared(embedder)
        self.settings = settings
        self._index: ExemplarIndex | None = None
        self._classifier: EmergencyClassifier | None = None
        self._unavailable = False

    def _ready(self) -> tuple[Any, ExemplarIndex | None]:
        if self._unavailable:
            return None, None
        try:
            if self.embedder is None:
                from tools.embedder import load_embedder

                if self.settings is None:
                    return None, None
                self.embedder = shared(load_embedder(self.settings))
            if self._index is None:
                cache = self.settings.resolved_data_dir() / "safety" if self.settings is not None else None
                self._index = exemplar_index(self.embedder.embed_passages, self.embedder.model_name, cache)
                self._classifier = emergency_classifier(self._index, self.embedder.model_name, cache)
        except Exception as exc:  # the model files are missing or broken: lexical rules still run
            logger.warning("safety gate: semantic detector unavailable (%s); lexical rules only", exc)
            self._unavailable = True
            return None, None
        return self.embedder, self._index

    def check(self, question: str, role: str) -> Verdict | None:
        embedder, index = self._ready()
        vector = embedder.embed_query(question) if embedder is not None and index is not None else None
        return check(question, role, vector=vector, index=index, classifier=self._classifier)
