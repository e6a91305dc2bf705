"""Linking a question's words to concepts: the bound patient's own record vocabulary (their
medication ingredients, conditions, labs, vaccines, procedures, allergies, visit types) plus
the sourced lexicon (`tools/lexicon`: lay words, abbreviations, brands, drug classes).

Nothing here turns leftover words into a filter: a word that links to nothing is reported
as unlinked, and the planner then answers the whole section instead of searching for it.
Typos are caught by fuzzy matching (rapidfuzz) against the same two vocabularies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from agent.offline.spelling import is_english
from agent.text import normalise
from tools.lexicon import Lexicon, load_lexicon

FUZZY_MIN_LEN = 5

# words of record names that say nothing about what a row is
GENERIC = frozenset(
    [
        "disorder",
        "finding",
        "situation",
        "procedure",
        "substance",
        "regime",
        "therapy",
        "environment",
        "chronic",
        "acute",
        "history",
        "type",
        "stage",
        "due",
        "with",
        "without",
        "from",
        "for",
        "and",
        "the",
        "body",
        "blood",
        "serum",
        "plasma",
        "mass",
        "volume",
        "moles",
        "ratio",
        "automated",
        "count",
        "entitic",
        "by",
        "in",
        "of",
        "on",
        "or",
        "per",
        "total",
        "level",
        "test",
        "oral",
        "tablet",
        "capsule",
        "extended",
        "release",
        "injection",
        "injectable",
        "solution",
        "suspension",
        "metered",
        "dose",
        "actuat",
        "topical",
        "cream",
        "product",
        "hydrochloride",
        "sodium",
        "potassium",
        "hyclate",
        "propionate",
        "acetate",
        "besylate",
        "maleate",
        "succinate",
        "tartrate",
        "citrate",
        "human",
        "isophane",
        "encounter",
        "general",
        "examination",
        "patient",
        "clinic",
        "care",
        "visit",
        "check",
        "review",
        "medication",
        "due",
        "screening",
        "assessment",
        "plan",
        "education",
        "simple",
        "single",
        "primary",
        "other",
        "unspecified",
        "disease",
        "syndrome",
        "severe",
        "mild",
        "moderate",
        "left",
        "right",
        "lower",
        "upper",
        "area",
        "site",
        "hour",
        "hours",
        "prefilled",
        "syringe",
        "auto",
        "injector",
        "chewable",
        "mg",
        "ml",
        "mcg",
        "unt",
        "unit",
        "units",
        "seasonal",
        "injectable",
        "preservative",
        "free",
        "vaccine",
        "administration",
        "health",
        "questionnaire",
        "score",
        "social",
        "needs",
        "active",
        "immunity",
        "produce",
    ]
)
SECTIONS = ("medications", "conditions", "labs", "immunizations", "procedures", "allergies", "encounters")


@dataclass(frozen=True)
class Concept:
    """One thing the question is about, as the record or the lexicon knows it."""

    section: str
    name: str  # how the answer names it
    queries: tuple[str, ...]  # what the section's tool is asked for (one call per query)
    said: str  # the question's words it came from
    kind: str  # record | term | drug | brand | class
    record_names: tuple[str, ...] = ()  # names in this record it matches (medications, conditions)

    @property
    def in_record(self) -> bool:
        return bool(self.record_names)


@dataclass
class Linking:
    concepts: list[Concept] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)
    # each misspelled word → the spelling it was linked by: a concept's `said` is the corrected
    # word, so a clause of the question is read with these before it is searched for a concept
    respelled: dict[str, str] = field(default_factory=dict)

    def as_read(self, text: str) -> str:
        """`text` with the linker's spelling corrections ("i take sertarline" → "i take sertraline")."""
        if not self.respelled:
            return text
        return " ".join(self.respelled.get(w, w) for w in text.split())

    def of(self, section: str) -> list[Concept]:
        return [c for c in self.concepts if c.section == section]

    @property
    def sections(self) -> list[str]:
        return list(dict.fromkeys(c.section for c in self.concepts))


def display_words(display: str) -> list[str]:
    """The words of a record name that identify it ('24 HR Metformin hydrochloride 500 MG …' →
    ['metformin']; 'Essential hypertension (disorder)' → ['essential', 'hypertension'])."""
    text = re.sub(r"\([^)]*\)", " ", display)
    words = re.findall(r"[a-z][a-z\-]+", normalise(text))
    return [w for w in words if len(w) >= 3 and w not in GENERIC and not re.match(r"^(nda|anda|bla)\d", w)]


def _split_marks(text: str) -> str:
    """Hyphens and slashes as word breaks, the one way record names and query words are split."""
    return text.replace("/", " ").replace("-", " ")


def short_name(display: str) -> str:
    """A record name without its semantic tag: 'Essential hypertension (disorder)' → 'essential hypertension'."""
    return normalise(
        re.sub(
            r"\s*\((disorder|finding|situation|procedure|substance|regime/therapy|environment)\)\s*$",
            "",
            display,
        )
    )


@dataclass
class Vocabulary:
    """The record's own names per section, as `get_record_vocabulary` returned them."""

    names: dict[str, list[str]] = field(default_factory=dict)
    _index: dict[str, list[tuple[str, str]]] | None = field(default=None, repr=False, compare=False)
    _known: frozenset[str] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_row(cls, row: dict | None) -> Vocabulary:
        if not row:
            return cls()
        out: dict[str, list[str]] = {}
        for section in SECTIONS:
            values = row.get(section) or []
            if section == "labs":  # "code|display"
                values = [v.split("|", 1)[-1] for v in values]
            out[section] = [v for v in values if v]
        return cls(out)

    def index(self) -> dict[str, list[tuple[str, str]]]:
        """word → [(section, record name)] (computed once per vocabulary: once per question)."""
        if self._index is not None:
            return self._index
        out: dict[str, list[tuple[str, str]]] = {}
        for section, names in self.names.items():
            for name in names:
                for w in display_words(name):
                    out.setdefault(w, [])
                    if (section, name) not in out[w]:
                        out[w].append((section, name))
        self._index = out
        return out

    def known_words(self) -> frozenset[str]:
        """Every word of the record's names and of the lexicon: never "corrected" into another."""
        if self._known is None:
            self._known = frozenset(self.index()) | lexicon_words()
        return self._known

    def phrases(self) -> list[tuple[str, str, str]]:
        """(section, record name, its words) for multi-word names of conditions, procedures,
        allergies and immunizations."""
        out = []
        for section in ("conditions", "procedures", "allergies", "immunizations"):
            for name in self.names.get(section, []):
                short = short_name(name)
                if len(short.split()) >= 2:
                    out.append((section, name, short))
        return out

    def medications_matching(self, ingredients: set[str], display_terms: tuple[str, ...] = ()) -> list[str]:
        hits = []
        for name in self.names.get("medications", []):
            words = normalise(name).replace("/", " ").split()
            if any(w.startswith(i) for w in words for i in ingredients if len(i) >= 4) or any(
                t in normalise(name) for t in display_terms
            ):
                hits.append(name)
        return hits

    def names_with(self, section: str, words: list[str]) -> list[str]:
        """Names of `section` in which every one of `words` starts a word. A word is split where a
        record name is ("x-ray" is the "X-ray" of "Plain chest X-ray": the record's "x" and "ray"),
        so a hyphenated or slashed term still finds the rows that spell it the same way."""
        hits = []
        words = [part for w in words for part in _split_marks(w).split()]
        for name in self.names.get(section, []):
            own = _split_marks(normalise(name)).split()
            if words and all(any(o.startswith(w) for o in own) for w in words):
                hits.append(name)
        return hits


@dataclass(frozen=True)
class _Entry:
    section: str
    name: str
    query: str
    kind: str


@lru_cache(maxsize=1)
def lexicon_phrases() -> dict[str, list[_Entry]]:
    """Every phrase the lexicon knows → what it names (phrases are normalised)."""
    lex = load_lexicon()
    out: dict[str, list[_Entry]] = {}

    def put(phrase: str, entry: _Entry) -> None:
        key = normalise(phrase)
        if key and entry not in out.setdefault(key, []):
            out[key].append(entry)

    for term in lex.terms:
        for said in (*term.said, term.name):
            put(said, _Entry(term.section, term.name, term.query, "term"))
    drugs = lex.all_drug_names()
    for cls in lex.classes.values():
        for said in cls.said:
            if said not in drugs:  # "penicillin" is the drug; "penicillins" the class
                put(said, _Entry("medications", cls.name, cls.name, "class"))
    for brand, ingredient in lex.brands.items():
        put(brand, _Entry("medications", ingredient, ingredient, "brand"))
    for drug in lex.all_drug_names():
        put(drug, _Entry("medications", drug, drug.split()[0], "drug"))
    return out


def _concept_of(entry: _Entry, said: str, vocab: Vocabulary, lex: Lexicon) -> Concept:
    if entry.section == "medications":
        if entry.kind == "class":
            cls = lex.classes[entry.name]
            names = vocab.medications_matching(set(cls.members), cls.display_terms)
        else:
            names = vocab.medications_matching({entry.query})
        queries = tuple(dict.fromkeys(_ingredient_query(n, entry) for n in names)) or (entry.query,)
        return Concept("medications", entry.name, queries, said, entry.kind, tuple(names))
    if entry.section in ("conditions", "allergies", "immunizations", "procedures"):
        words = normalise(entry.query).split()
        names = vocab.names_with(entry.section, words)
        queries = [entry.query]
        if entry.kind == "term":
            # every way the term is said names the record's rows too: "emphysema" is one of COPD's,
            # and this record calls it "Pulmonary emphysema"; "strep throat" is its "Streptococcal
            # sore throat". The tool is asked for those rows by their own names, so a term the record
            # words differently is never answered "no".
            for phrase in _term_said(entry.section, entry.name):
                if any(len(w) < 4 for w in phrase.split()):
                    continue  # "mi", "my ear": too short to start a record word safely
                for name in vocab.names_with(entry.section, phrase.split()):
                    if name not in names:
                        names.append(name)
                        queries.append(short_name(name))
        return Concept(entry.section, entry.name, tuple(queries), said, entry.kind, tuple(names))
    if entry.section == "encounters":
        # a kind of visit ("checkup"): looked up by each visit type it covers
        term = next(t for t in lex.terms if t.section == "encounters" and t.name == entry.name)
        types = term.types or (entry.query,)
        names = [n for t in types for n in vocab.names_with("encounters", t.split())]
        if len(types) == 1 and len(names) == 1:  # the record's own type ("urgent care clinic")
            return Concept(
                "encounters", short_name(names[0]), (short_name(names[0]),), said, "record", (names[0],)
            )
        return Concept("encounters", entry.name, types, said, entry.kind, tuple(names))
    names = tuple(n for n in vocab.names.get("labs", []) if _names_lab(n, entry))
    return Concept(entry.section, entry.name, (entry.query,), said, entry.kind, names)


@cache
def _term_said(section: str, name: str) -> tuple[str, ...]:
    """The normalised phrases a lexicon term is said by (its name too)."""
    for t in load_lexicon().terms:
        if t.section == section and t.name == name:
            return tuple(dict.fromkeys(normalise(p) for p in (*t.said, t.name) if normalise(p)))
    return ()


@lru_cache(maxsize=1)
def _lab_phrases() -> dict[str, tuple[frozenset[str], ...]]:
    """Lexicon lab term → the word sets of its phrases (built once)."""
    return {
        t.name: tuple(frozenset(normalise(p).split()) for p in (*t.said, t.name.lower()) if len(p) >= 3)
        for t in load_lexicon().terms
        if t.section == "labs"
    }


def _names_lab(display: str, entry: _Entry) -> bool:
    """Whether a record lab name is one the lexicon term names (all words of one of its phrases)."""
    own = set(normalise(display).replace("/", " ").split())
    phrases = _lab_phrases().get(entry.name)
    if phrases is None:
        phrases = (frozenset(normalise(entry.query.lower()).split()),) if len(entry.query) >= 3 else ()
    return any(p <= own for p in phrases)


def _ingredient_query(display: str, entry: _Entry) -> str:
    """The word of a medication's name that the tool should search for."""
    words = display_words(display)
    if entry.kind != "class":
        return entry.query
    cls = load_lexicon().classes[entry.name]
    for w in words:
        if any(w.startswith(m) for m in cls.members):
            return w
    return words[0] if words else entry.query


# Spanish words that are also an English abbreviation of the lexicon (lead, round six: "puedo
# cambiar mi cita del jueves?" was answered "No. Your record has no heart attack"), read as
# Spanish when the question has Spanish function words
SPANISH_HOMOGRAPHS = frozenset({"mi"})
SPANISH = re.compile(
    r"\b(?:del|de|la|el|los|las|que|por|para|puedo|tengo|tiene|tienes|es|una|cita|citas|mis|cuando|"
    r"como|donde|quiero|necesito|esta|estoy|con|sin|mas|hola|gracias)\b"
)


# how the asker feels about asking ("i'm a bit anxious about this, so bear with me: …"): a mood said
# in passing, never the condition asked about (round seventeen: "No. Your record has no anxiety" led
# the answer to the highest weight, a confident false negative; paraphrase frozen14). Only said of
# the asker and followed by what the feeling is about, so "do I have anxiety" still asks.
ASKER_FEELING = re.compile(
    r"\b(?:im|i am|i feel|were|we are)(?: feeling)?"
    r"(?: (?:a (?:little |tiny )?bit|a little|quite|so|very|really|rather|pretty|kind of|kinda|super))?"
    r" (?:anxious|depressed|nervous|worried|stressed|scared)"
    r"(?= (?:about|so|but|and|asking|to ask|as|because|sorry|bear|if)\b)"
)


def link(text: str, vocab: Vocabulary, stop: frozenset[str] = frozenset()) -> Linking:
    """Concepts named in `text` (already normalised), longest phrase first; fuzzy for typos."""
    lex = load_lexicon()
    phrases = lexicon_phrases()
    index = vocab.index()
    found: list[Concept] = []
    said = text
    text = correct(text, index, stop)
    respelled = {w: c for w, c in zip(said.split(), text.split(), strict=True) if w != c}
    padded = ASKER_FEELING.sub(" | ", f" {text} ")
    if (asked_for := MEDS_FOR.search(text)) is not None:
        for concept, phrase in _classes_for(asked_for.group("what"), vocab, lex):
            found.append(concept)
            padded = padded.replace(f" {phrase} ", " | ")
    if SYSTEM_ASKED.search(padded):
        found += _systems(padded, vocab, lex)
        for system in lex.systems.values():
            for said in sorted(system.said, key=len, reverse=True):
                padded = _system_word(said).sub(" | ", padded)
    # the record's own multi-word names first: "streptococcal sore throat" is that row, not
    # the lexicon's broader "sore throat"
    for section, name, short in sorted(vocab.phrases(), key=lambda x: -len(x[2])):
        needle = f" {short} "
        if needle in padded:
            found.append(Concept(section, short, (short,), short, "record", (name,)))
            padded = padded.replace(needle, " | ")
    for phrase in sorted((p for p in phrases if " " in p), key=len, reverse=True):
        # the phrase as written or with its last word in the plural: "covid vaccines" is the
        # lexicon's "covid vaccine", not a bare "covid" left over for the conditions
        for needle in (f" {phrase} ", f" {phrase}s ", f" {phrase}es "):
            if needle in padded:
                for entry in phrases[phrase]:
                    found.append(_concept_of(entry, phrase, vocab, lex))
                padded = padded.replace(needle, " | ")
                break
    unlinked: list[str] = []
    singles = [p for p in phrases if " " not in p]
    for token in padded.split():
        if token == "|" or token in stop or len(token) < 2 or token.isdigit():
            continue
        if token in SPANISH_HOMOGRAPHS and SPANISH.search(padded):
            continue  # "puedo cambiar mi cita": Spanish "mi" (my), not MI (a heart attack)
        entries = phrases.get(token) or (phrases.get(token[:-1]) if token.endswith("s") else None)
        if entries:
            found += [_concept_of(e, token, vocab, lex) for e in entries]
            continue
        record = index.get(token) or (index.get(token[:-1]) if token.endswith("s") else None)
        if record:
            word = token if token in index else token[:-1]
            found += [_record_concept(section, name, token, word) for section, name in record]
            continue
        if len(token) >= FUZZY_MIN_LEN and not said_as_is(token):
            guess = _fuzzy(token, tuple(index), tuple(singles))
            if guess is not None:
                word, from_record = guess
                if from_record:
                    found += [_record_concept(s, n, token, word) for s, n in index[word]]
                else:
                    found += [_concept_of(e, token, vocab, lex) for e in phrases[word]]
                continue
        unlinked.append(token)
    return Linking(_dedupe(found), unlinked, respelled)


# a medicine asked for by what it treats: "am I on anything for blood pressure?", "what do I take
# for my diabetes", "any tablets for my cholesterol?"
MEDS_FOR = re.compile(
    r"\b(anything|something|any|meds?|medicines?|medications?|tablets?|pills?|drugs?|treatment|take|taking|"
    r"takes|prescribed|given|getting|using)( \w+)? (for|to treat|to control|to help with|to lower) (?P<what>.+)$"
)


def _classes_for(what: str, vocab: Vocabulary, lex: Lexicon) -> list[tuple[Concept, str]]:
    """The drug class whose `treats` phrase the words after "for" start with: its members in the
    record, and every prescription whose recorded reason is the class's condition."""
    padded = f" {what} "
    for cls in lex.classes.values():
        for phrase in sorted(cls.treats, key=len, reverse=True):
            if f" {phrase} " in padded:
                concept = _concept_of(_Entry("medications", cls.name, cls.name, "class"), phrase, vocab, lex)
                if cls.reason:
                    concept = Concept(
                        concept.section,
                        concept.name,
                        (*concept.queries, cls.reason),
                        phrase,
                        "class",
                        concept.record_names,
                    )
                return [(concept, phrase)]
    return []


# a body system asked about as a whole: "anything wrong with my kidneys?", "is my thyroid ok on
# paper?", "any problems with my sugar?" (not "is my blood sugar normal?": that is the lab's range)
SYSTEM_ASKED = re.compile(
    r"\b(wrong|problems?|issues?|trouble|troubles|ok|okay|alright|fine|healthy|going on|conditions?|"
    r"diseases?|disorders?|damage|damaged|concerns?|anything found|find anything)\b"
)
_LAB_AFTER = r"(?! (rate|rates|level|levels|test|tests|function|reading|readings|results?|numbers?|scans?|x ray|xray|infections?)\b)"


@cache
def _system_word(said: str) -> re.Pattern[str]:
    """The organ word said as a system, not as the start of a lab or a visit ("heart rate")."""
    return re.compile(rf" {re.escape(said)}(?= ){_LAB_AFTER}")


def _systems(padded: str, vocab: Vocabulary, lex: Lexicon) -> list[Concept]:
    """The body systems named in the question: the conditions of each (every condition whose name
    carries one of the system's words, active or resolved) and the labs that follow it, those the
    record holds."""
    out: list[Concept] = []
    for system in lex.systems.values():
        said = next(
            (w for w in sorted(system.said, key=len, reverse=True) if _system_word(w).search(padded)), None
        )
        if said is None:
            continue
        names = [
            n
            for n in vocab.names.get("conditions", [])
            if any(re.search(rf"\b{re.escape(w)}", normalise(n)) for w in system.conditions)
        ]
        out.append(Concept("conditions", system.label, system.conditions, said, "system", tuple(names)))
        terms = {t.name: t for t in lex.terms if t.section == "labs"}
        for lab in system.labs:
            concept = _concept_of(_Entry("labs", lab, terms[lab].query, "term"), said, vocab, lex)
            if concept.in_record:
                out.append(concept)
    return out


@lru_cache(maxsize=1)
def lexicon_words() -> frozenset[str]:
    return frozenset(w for p in lexicon_phrases() for w in p.split())


def correct(text: str, index: dict[str, list[tuple[str, str]]], stop: frozenset[str]) -> str:
    """Each unknown word replaced by the record's or the lexicon's nearest spelling, when one is
    within the allowed edits ("wihte blood cell count" → "white blood cell count")."""
    known = lexicon_words()
    out = []
    for token in text.split():
        if (
            len(token) < FUZZY_MIN_LEN
            or token in stop
            or token in known
            or token in index
            or not token.isalpha()
            or said_as_is(token)
        ):
            out.append(token)
            continue
        guess = _fuzzy(token, tuple(index), tuple(known))
        out.append(guess[0] if guess else token)
    return " ".join(out)


def _record_concept(section: str, name: str, said: str, word: str) -> Concept:
    """A concept found in the record's own names; `word` is the record's spelling of it."""
    if section == "medications":
        return Concept(section, word, (word,), said, "record", (name,))
    if section == "labs":  # 'Leukocytes [#/volume] in Blood by Automated count' → 'leukocytes'
        return Concept(section, normalise(re.split(r"[\[(/]", name)[0]), (word,), said, "record", (name,))
    return Concept(section, short_name(name), (word,), said, "record", (name,))


def allowed_edits(word: str) -> int:
    """Typos tolerated: one slip (a swap of neighbours counts as one) up to 9 letters, two from 10."""
    return 1 if len(word) < 10 else 2


def said_as_is(token: str) -> bool:
    """A short, correctly spelt English word is what it says, never a slip of a record or lexicon
    word (lead, round eight: "any trips to the ER" was linked to triglycerides' "trigs")."""
    return len(token) <= 6 and is_english(token)


def _fuzzy(
    token: str, record_words: tuple[str, ...], lexicon_words: tuple[str, ...]
) -> tuple[str, bool] | None:
    """The nearest known word within the allowed Damerau–Levenshtein edits (record words win
    ties). A plural record word is also tried without its "s": the record says "Leukocytes",
    the question "leuokcyte"."""
    best: tuple[str, bool] | None = None
    best_distance = allowed_edits(token) + 1
    for choices, from_record in ((record_words, True), (lexicon_words, False)):
        pool: list[str] = []
        owners: list[str] = []
        for c in choices:
            if len(c) < FUZZY_MIN_LEN - 1 or c[0] != token[0]:
                continue
            for variant in (c, c[:-1]) if c.endswith("s") and len(c) > FUZZY_MIN_LEN else (c,):
                if abs(len(variant) - len(token)) <= 2:
                    pool.append(variant)
                    owners.append(c)
        hit = process.extractOne(
            token, pool, scorer=DamerauLevenshtein.distance, score_cutoff=allowed_edits(token)
        )
        if hit is not None and hit[1] < best_distance:
            best, best_distance = (owners[hit[2]], from_record), hit[1]
    return best


def _dedupe(concepts: list[Concept]) -> list[Concept]:
    """One concept per (section, queries); a record concept gives way to a lexicon one that
    covers the same record names (the lexicon's name reads better)."""
    out: list[Concept] = []
    for c in concepts:
        same = next((o for o in out if o.section == c.section and (o.queries == c.queries or (
            c.record_names and set(c.record_names) <= set(o.record_names)))), None)  # fmt: skip
        if same is None:
            out.append(c)
    return out
