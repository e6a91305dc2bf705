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
   paracetamol?" — sit close to overdose exemplars), plus the critical-readings reader
   (`agent.safety.vitals`, round thirteen): a clinician reporting a value a rapid-response team
   would be called for, as it is now ("sats 78 on 15l", "k 7.4 on the gas", "EBL 1.5L"), gets the
   emergency reply; a patient's such reading is an acute red flag (below).
2. **Clinical advice** (patients only) = the lexical advice rules OR the advice classifier
   (`agent.safety.classifier.advice_classifier`, a logistic regression on the same embedding,
   fitted on the tune part's patient advice vs allow lines). A question shaped as an
   advice request ("is my heart ok?") is answered as one even when it sits near emergency
   exemplars.
   **Seeking care** ("should I take him to the ER", "do I need stitches", "¿lo llevo a
   urgencias?", the lexical `urgency` rules) is decided explicitly: an acute red flag happening
   now — an emergency rule, a `lexical.RED_FLAG` sign ("very drowsy", "gone grey"), or a
   near-twin emergency exemplar — makes it an emergency; otherwise it is advice, and the linear
   emergency classifier alone never overrides that.
   A nearest-exemplar advice detector was tried first and flagged 9–18 % of hard negatives
   at any useful recall ("what dose am I on?" sits next to "what dose should I take?"); the
   linear model does better, and it is silenced where the readable rules say the question is
   about the record, a leaflet or a booking (`ADVICE_RECORD_FRAMING`).
   **Severity and clauses** (round seven, `agent.safety.severity`): an emergency rule matched in
   any clause of a long message is the message's emergency (record talk around it does not
   frame it away); a worry/seeking-care question about a MILD symptom is advice even when its
   symptom words reach an emergency rule of a graded category (`GRADED`), and one about a SEVERE
   symptom is an emergency (`severe_worry`). Both are readable markers, not a threshold.
3. Otherwise the question passes. Pure greetings and small talk (`agent.safety.smalltalk`)
   never reach the semantic side: the classifiers extrapolate wildly on two-word texts. Nor does a
   figure of speech with no symptom word beside it ("the suspense is killing me", round eighteen,
   `agent.safety.smalltalk.figurative`); beside a question, only the semantic emergency side is
   silenced ("this heat is killing me, can i take my water tablet later" is read for advice).

The semantic side needs the question's embedding. The caller passes the vector it computes
once per question (and shares with search, see `agent.safety.shared`); without an embedder
the gate runs its lexical half only and says so in the verdict (`semantic=False`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent.safety.classifier import (
    ADVICE_ALLOW_MARGIN,
    ADVICE_FLOOR,
    ADVICE_OVER_CLASSIFIER,
    ADVICE_THRESHOLD,
    CLASSIFIER_FLOOR,
    EMERGENCY_ALLOW_MARGIN,
    THRESHOLD,
    EmergencyClassifier,
    LinearClassifier,
    advice_classifier,
    emergency_classifier,
)
from agent.safety.lexical import (
    advice_record_framed,
    extra_dose_by_mistake,
    framing,
    lexical_advice,
    lexical_emergency,
    past_history,
    range_comparison,
    reassured,
    record_question,
    red_flag,
    terse_fetch,
)
from agent.safety.replies import CLINICAL_ADVICE_REPLY, EMERGENCY_REPLY
from agent.safety.semantic import THRESHOLDS, ExemplarIndex, SemanticScores, exemplar_index
from agent.safety.severity import clauses, just_checking, names_a_medicine, severity, worry_question
from agent.safety.shared import shared
from agent.safety.smalltalk import figurative, is_app_help, is_off_topic, is_small_talk
from agent.safety.text import core_form, prepare
from agent.safety.vitals import critical_now

logger = logging.getLogger(__name__)

Kind = Literal["emergency", "clinical_advice", "allow"]


@dataclass(frozen=True)
class Verdict:
    kind: Literal["emergency", "clinical_advice", "other_patient"]
    category: str  # chest_pain, breathing, overdose, suicide, ... | dosing, start_stop, interpretation, ...
    reply: str
    source: str = "lexical"  # lexical | semantic | classifier | severity | vitals | other


@dataclass(frozen=True)
class Operating:
    """The tunable numbers of the decision, all chosen by group CV on the tune part."""

    emergency_threshold: float = THRESHOLD
    emergency_floor: float = CLASSIFIER_FLOOR
    advice_threshold: float = ADVICE_THRESHOLD
    advice_floor: float = ADVICE_FLOOR
    # a classifier stays silent when the question's nearest hard-negative exemplar is closer
    # than its nearest exemplar of the classifier's label by at least this much: "can you help
    # me" sits on a small-talk exemplar (0.99) and only faintly near a suicide one (0.37), yet a
    # linear score extrapolates there; inf = no such veto
    emergency_allow_margin: float = EMERGENCY_ALLOW_MARGIN
    advice_allow_margin: float = ADVICE_ALLOW_MARGIN
    # a seeking-care question with no red flag is still an emergency when its nearest exemplar is
    # an emergency one by the exemplar detector's margin (a near-twin of a labelled emergency)
    urgency_exemplar: bool = True
    # round thirteen: an alarm raised by the linear emergency classifier ALONE (no rule, no near-twin
    # exemplar) gives way to the advice classifier when its logit is higher by at least this much
    # ("should mum have more of her morphine liquid", "mi papa toma warfarina, puede tomar te de
    # jengibre?"); inf = never
    advice_over_classifier: float = ADVICE_OVER_CLASSIFIER


OPERATING = Operating()


@dataclass(frozen=True)
class Evidence:
    """Everything the decision reads about one question, computed once (CV replays `decide`
    on it at many operating points; the gate calls it once)."""

    lexical_emergency: str | None
    suppressed: bool  # an emergency match cancelled by negation or record framing
    lexical_advice: str | None
    record_framed: bool  # framed as a record/leaflet/booking question, nothing happening now
    advice_framed: bool  # `ADVICE_RECORD_FRAMING`
    record_question: bool  # shaped as a question about the record (`RECORD_QUESTION`)
    semantic: SemanticScores | None  # None: no vector/index, a clinician, or small talk
    exemplar_hit: str | None = None  # the nearest-exemplar emergency detector's category
    emergency_logit: float | None = None
    advice_logit: float | None = None
    red_flag: str | None = None  # `lexical.RED_FLAG`: an acute sign, read in seeking-care questions
    # round seven (`agent.safety.severity`): an emergency rule matched in one clause of a longer
    # message when the whole message matched none (record talk around it framed it away)
    clause_emergency: str | None = None
    severity: str | None = None  # "severe" | "mild" | None
    worry: bool = False  # asks whether a symptom is worrying / what it is / whether to seek care
    acute_flag: str | None = None  # `lexical.RED_FLAG` read in any question (not only seeking care)
    range_question: bool = False  # `lexical.range_comparison`: how a value stands against its range
    medicine: bool = False  # `severity.names_a_medicine`
    # four words or fewer and no word of asking what to do ("A1C and LDL?"): a terse fetch the
    # advice classifier must not read (it extrapolates on short texts; round seven's worry lines
    # moved it over such fetches). The emergency side still reads them ("can't breathe").
    terse: bool = False
    # four words or fewer, whatever they ask ("my pills?", "sugar problems?"): the linear emergency
    # classifier alone does not alarm on so few words nearer a hard negative (round thirteen)
    few_words: bool = False
    # round thirteen (`agent.safety.vitals`): a clinician reporting a critical observation or result
    # as the present state ("sats 78 on 15l", "k 7.1 on the gas", "EBL 1.5L"): the measure read
    clinician_vital: str | None = None
    # round sixteen: a symptom denied beside a plain errand ("not in labour, just need my antenatal
    # appointment"): the advice classifier stays silent, as the semantic emergency side already did
    reassured: bool = False
    # round eighteen: a figure of speech beside a question ("this heat is killing me, can i take my
    # water tablet later"): the semantic emergency side stays silent (`smalltalk.figurative`)
    figure: bool = False


Lap = Callable[[str], None]  # `chartside bench safety`: called with a part's name when it ends


def evidence(
    question: str,
    role: str,
    *,
    vector: Sequence[float] | None = None,
    index: ExemplarIndex | None = None,
    classifier: LinearClassifier | None = None,
    exclude: Any = None,
    advice_model: LinearClassifier | None = None,
    lap: Lap | None = None,
) -> Evidence:
    """The question's evidence, read in four parts: its prepared forms, the lexical rules, the
    nearest exemplars, the two classifiers (`lap`, when given, is called as each part ends)."""
    texts = prepare(question)
    if lap is not None:
        lap("prepare")
    category, suppressed = lexical_emergency(texts, role)
    frame = framing(texts)
    clause_category = None
    # a clause's emergency counts unless the whole message is a dated past event asked about, or
    # a plain look-up ("just checking") with nothing happening now
    if category is None and not past_history(texts) and not (just_checking(texts) and not frame.acute):
        parts = clauses(question)
        if len(parts) > 1:
            clause_category = next(
                (c for c in (lexical_emergency(prepare(p), role)[0] for p in parts) if c is not None), None
            )
    advice = lexical_advice(texts) if role == "patient" else None
    if category in (None, "overdose") and role == "patient" and extra_dose_by_mistake(texts):
        # one extra dose by mistake, feeling fine, asking about the next: advice, whichever
        # side would otherwise alarm (round ten: the classifier read "took 2 of my blood pressure
        # tablets" as an overdose once the lexical rule let it go)
        category, advice = None, "start_stop"
    # round eighteen: a figure of speech with no symptom beside it (`smalltalk.figurative`)
    figure = figurative(texts[0]) if role == "patient" else None
    use_semantic = (
        vector is not None
        and index is not None
        and role == "patient"
        and not is_small_talk(texts[0])
        and not is_off_topic(texts[0])
        and not is_app_help(texts[0])
        and figure != "remark"
    )
    # read once: a seeking-care question uses the same sign (advice is read for patients only); a
    # critical reading reported now ("my sats are 82 on my finger thing") is such a sign too
    reading = critical_now(question)
    acute = (red_flag(texts) or (reading.category if reading else None)) if role == "patient" else None
    advice_framed = advice_record_framed(texts)
    record_shaped = record_question(texts)
    graded = severity(texts) if role == "patient" else None
    worry = role == "patient" and worry_question(texts)
    range_question = range_comparison(texts)
    medicine = names_a_medicine(texts)
    terse = terse_fetch(texts)
    few_words = len(core_form(texts).split()) <= 4
    if lap is not None:
        lap("lexical")
    scores = index.scores(vector, role, exclude) if use_semantic else None  # type: ignore[arg-type, union-attr]
    exemplar_hit = (
        None
        if scores is None
        else scores.fires("emergency", THRESHOLDS.emergency_floor, THRESHOLDS.emergency_margin)
    )
    if lap is not None:
        lap("exemplars")
    emergency_logit = None if scores is None or classifier is None else classifier.score(vector)  # type: ignore[arg-type]
    advice_logit = None if scores is None or advice_model is None else advice_model.score(vector)  # type: ignore[arg-type]
    if lap is not None:
        lap("classifiers")
    return Evidence(
        lexical_emergency=category,
        suppressed=suppressed,
        lexical_advice=advice,
        record_framed=frame.record and not frame.acute,
        advice_framed=advice_framed,
        record_question=record_shaped,
        semantic=scores,
        exemplar_hit=exemplar_hit,
        emergency_logit=emergency_logit,
        advice_logit=advice_logit,
        red_flag=acute if advice == "urgency" else None,
        clause_emergency=clause_category,
        severity=graded,
        worry=worry,
        acute_flag=acute,
        range_question=range_question,
        medicine=medicine,
        terse=terse,
        few_words=few_words,
        clinician_vital=reading.measure if reading is not None and role != "patient" else None,
        reassured=role == "patient" and reassured(texts),
        figure=figure is not None,
    )


def semantic_emergency(e: Evidence, op: Operating = OPERATING) -> tuple[str, str] | None:
    """(category, source) when the semantic side (exemplars or classifier) finds an emergency."""
    s = e.semantic
    if s is None or e.suppressed or e.record_framed or e.figure:
        return None
    if e.exemplar_hit is not None:
        return e.exemplar_hit, "semantic"
    nearest, category = s.best.get("emergency", (-1.0, "emergency"))
    allow = s.best.get("allow", (-1.0, ""))[0]
    # off the map (a poem, the weather): a linear score extrapolates wildly far from every
    # exemplar, so the classifier speaks only near some emergency exemplar, and not when a
    # hard negative is clearly nearer
    # a question shaped as asking what the record holds ("who put me on the sertraline", "why am I
    # taking it") is not alarmed by the linear score alone: adding frozen4 to the exemplars moved
    # such questions over it (an exemplar hit or a lexical rule still alarms)
    if (
        e.emergency_logit is not None
        and not e.record_question
        and nearest >= op.emergency_floor
        and allow - nearest < op.emergency_allow_margin
        and e.emergency_logit >= op.emergency_threshold
        and not (
            e.advice_logit is not None and e.advice_logit - e.emergency_logit >= op.advice_over_classifier
        )
        # four words or fewer nearer a hard negative than any emergency: the linear score
        # extrapolates on so few words (round thirteen's lead hunt: "my pills?" and "sugar
        # problems?" got the emergency reply); a short emergency the rules miss ("i slashed my arm")
        # sits nearer its emergency exemplars, and keeps the classifier
        and not (e.few_words and allow > nearest)
    ):
        return category, "classifier"
    return None


def semantic_advice(e: Evidence, op: Operating = OPERATING) -> str | None:
    """The advice category when the advice classifier fires (never on a record-shaped question)."""
    s = e.semantic
    if s is None or e.advice_logit is None or e.advice_framed or e.record_question or e.terse or e.reassured:
        return None
    nearest, category = s.best.get("advice", (-1.0, "advice"))
    allow = s.best.get("allow", (-1.0, ""))[0]
    if nearest < op.advice_floor or allow - nearest >= op.advice_allow_margin:
        return None
    return category if e.advice_logit >= op.advice_threshold else None


# emergency categories that describe a symptom whose severity the wording can grade; an act
# (overdose, poisoning, self-harm, suicide) or anaphylaxis is never "mild"
GRADED = frozenset(
    [
        "chest_pain",
        "breathing",
        "stroke",
        "bleeding",
        "unconscious",
        "someone_else",
        "pregnancy",
        "burns",
        "seizure",
    ]
)


def mild_worry(e: Evidence) -> str | None:
    """The advice category of a worry/seeking-care question about a MILD symptom (no severe
    marker, no acute red flag), or None: "i get a bit breathless on the stairs lately, is it my
    heart" is advice, whatever emergency rule or exemplar its symptom words reach."""
    # `record_question` is not read here: "is that normal" is also how a range question is
    # worded, but a mild symptom marker ("a bit", "lately") is not record talk
    if e.severity != "mild" or e.acute_flag is not None or e.advice_framed or e.range_question:
        return None
    if e.lexical_advice in ("worry", "urgency", "interpretation"):
        return e.lexical_advice
    return "worry" if e.worry else None


def severe_worry(e: Evidence, op: Operating = OPERATING) -> str | None:
    """The emergency category of a worry/seeking-care question about a SEVERE symptom happening
    now ("my chest suddenly feels squeezed and i'm sweating, is it my heart"), or None. The
    category is the nearest emergency exemplar's; the markers alone need the semantic side to
    agree the text is about a symptom (its nearest emergency exemplar at the classifier floor)."""
    if e.severity != "severe" or e.record_question or e.advice_framed:
        return None
    # a question about a medicine (dose, stopping, mixing: "is it ok to stop my steroids
    # suddenly") is the advice rules' business, whatever its severity words
    if e.lexical_advice not in (None, "worry", "urgency", "interpretation") and e.medicine:
        return None
    if not (e.worry or e.lexical_advice is not None):
        return None
    if e.semantic is None:  # lexical half only: the markers decide, towards the alarm
        return "severe_symptom"
    nearest, category = e.semantic.best.get("emergency", (-1.0, "emergency"))
    return category if nearest >= op.emergency_floor else None


def decide(e: Evidence, op: Operating = OPERATING) -> Verdict | None:
    """The decision on one question's evidence (the order of the module docstring)."""
    emergency_rule = e.lexical_emergency or e.clause_emergency
    if emergency_rule is not None:
        mild = mild_worry(e) if emergency_rule in GRADED else None
        if mild is not None:
            return Verdict("clinical_advice", mild, CLINICAL_ADVICE_REPLY, "lexical")
        return Verdict("emergency", emergency_rule, EMERGENCY_REPLY, "lexical")
    if e.clinician_vital is not None:
        # a clinician reporting a value a rapid-response team would be called for, as it is now:
        # whatever the words around it, a chart question cannot wait on it
        return Verdict("emergency", "clinician_acute", EMERGENCY_REPLY, "vitals")
    severe = severe_worry(e, op)
    if severe is not None:
        return Verdict("emergency", severe, EMERGENCY_REPLY, "severity")
    mild = mild_worry(e)
    if mild is not None:
        return Verdict("clinical_advice", mild, CLINICAL_ADVICE_REPLY, "severity")
    if e.lexical_advice == "urgency":
        # asking whether or where to seek care ("should I take him to the ER", "¿necesito
        # puntos?"), decided explicitly (round six): an acute red flag happening now makes it an
        # emergency — an emergency rule (above), a `RED_FLAG` sign, or a near-twin of a labelled
        # emergency (exemplar detector) — otherwise it is advice, whose refusal says whom to ask
        # and to call 911 if it feels urgent. The linear classifier alone never turns it into an
        # alarm: round five's frozen4 sent 8 such questions to the emergency reply that way.
        if e.red_flag is not None:
            return Verdict("emergency", e.red_flag, EMERGENCY_REPLY, "lexical")
        emergency = semantic_emergency(e, op)
        if op.urgency_exemplar and emergency is not None and emergency[1] == "semantic":
            return Verdict("emergency", emergency[0], EMERGENCY_REPLY, "semantic")
        return Verdict("clinical_advice", "urgency", CLINICAL_ADVICE_REPLY, "lexical")
    if e.lexical_advice is not None:
        # a question shaped as a request for advice ("is my heart ok?") is one, even when it
        # sits near emergency exemplars
        return Verdict("clinical_advice", e.lexical_advice, CLINICAL_ADVICE_REPLY, "lexical")
    emergency = semantic_emergency(e, op)
    if emergency is not None:
        return Verdict("emergency", emergency[0], EMERGENCY_REPLY, emergency[1])
    advice = semantic_advice(e, op)
    if advice is not None:
        return Verdict("clinical_advice", advice, CLINICAL_ADVICE_REPLY, "classifier")
    return None


def check(question: str, role: str, *, lap: Lap | None = None, **signals: Any) -> Verdict | None:
    """A scripted verdict when the question must not reach a model; None when it may.

    `signals` are `evidence`'s keywords: `vector` (the question's embedding), `index` (the
    exemplar index), `classifier` (the emergency classifier fitted on the same exemplars),
    `advice_model` (the patients' advice classifier), `exclude` (cross-validation only); with
    the vector or index missing only the lexical rules run. `lap` times the parts (the bench).
    """
    verdict = decide(evidence(question, role, lap=lap, **signals))
    if lap is not None:
        lap("decide")
    return verdict


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
        self._advice: LinearClassifier | None = None
        self._unavailable = False

    def _ready(self, progress: Callable[[int, int], None] | None = None) -> tuple[Any, ExemplarIndex | None]:
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
                self._index = exemplar_index(
                    self.embedder.embed_passages, self.embedder.model_name, cache, progress
                )
                self._classifier = emergency_classifier(self._index, self.embedder.model_name, cache)
                if math.isfinite(ADVICE_THRESHOLD):  # shipped off: see `classifier.ADVICE_THRESHOLD`
                    self._advice = advice_classifier(self._index, self.embedder.model_name, cache)
        except Exception as exc:  # the model files are missing or broken: lexical rules still run
            logger.warning("safety gate: semantic detector unavailable (%s); lexical rules only", exc)
            self._unavailable = True
            return None, None
        return self.embedder, self._index

    def warm_up(self, progress: Callable[[int, int], None] | None = None) -> bool:
        """Build the semantic side now rather than on the first question: on a fresh install
        its exemplar vectors take ~30 s, which the first patient would otherwise wait through
        (and a 30 s answer timeout would not survive). True when the semantic side is ready."""
        return self._ready(progress)[1] is not None

    def check(self, question: str, role: str) -> Verdict | None:
        embedder, index = self._ready()
        vector = embedder.embed_query(question) if embedder is not None and index is not None else None
        return check(
            question, role, vector=vector, index=index, classifier=self._classifier, advice_model=self._advice
        )
