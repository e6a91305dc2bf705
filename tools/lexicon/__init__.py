"""The clinical lexicon, kept as reviewable data with its sources (the YAML files here).

* `synonyms.yaml` — lay words and abbreviations per record section → a name and a tool query,
  plus ingredient names known to be drugs (so an absent drug is still a recognised concept);
* `drug_classes.yaml` — classes people ask about (statins, inhalers, blood thinners, …);
* `brands.yaml` — brand → ingredient;
* `allergens.yaml` — allergy substance → the classes/ingredients a prescription must avoid;
* `reference_ranges.yaml` — typical adult ranges per LOINC code, labelled as such;
* `body_systems.yaml` — organ words → the conditions and labs of that body system;
* `spanish.yaml` — a gloss of basic Spanish record questions into the words the planner reads.

Both the tools (allergy check, reference ranges) and the offline planner (linking) read it.
A malformed file fails loudly with the file, entry and field named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).parent
SECTIONS = ("labs", "conditions", "immunizations", "procedures", "allergies", "encounters")


class LexiconError(ValueError):
    """A lexicon file that cannot be used; the message names the file, entry and field."""


@dataclass(frozen=True)
class Term:
    section: str
    name: str
    query: str
    said: tuple[str, ...]
    # encounters: every visit type the kind covers, as words of the record's type names
    # ("checkup": "general examination", "check up", "well child visit"); the query is the first
    types: tuple[str, ...] = ()


@dataclass(frozen=True)
class DrugClass:
    name: str
    atc: str
    said: tuple[str, ...]
    members: tuple[str, ...]
    display_terms: tuple[str, ...] = ()
    treats: tuple[str, ...] = ()  # what a medicine of the class is said to be "for"
    reason: str | None = None  # the condition query its prescriptions' recorded reason matches


@dataclass(frozen=True)
class TypicalRange:
    code: str
    name: str
    low: float | None
    high: float | None
    unit: str
    source: str


@dataclass(frozen=True)
class Allergen:
    classes: tuple[str, ...]
    ingredients: tuple[str, ...]


@dataclass(frozen=True)
class BodySystem:
    """An organ or system asked about as a whole ("anything wrong with my kidneys?")."""

    name: str
    label: str  # "kidney": "1 kidney condition"
    said: tuple[str, ...]
    conditions: tuple[str, ...]  # words of condition names (the condition tool's queries)
    labs: tuple[str, ...]  # lexicon lab terms that follow it
    chapter: str


@dataclass(frozen=True)
class Lexicon:
    terms: tuple[Term, ...]
    classes: dict[str, DrugClass]
    brands: dict[str, str]
    allergens: dict[str, Allergen]
    ranges: dict[str, TypicalRange]
    known_drugs: frozenset[str]
    sources: dict[str, tuple[str, ...]]
    systems: dict[str, BodySystem] = field(default_factory=dict)

    def drugs_for_allergen(self, substance: str) -> tuple[set[str], list[DrugClass]]:
        """(ingredients, classes) an allergy to `substance` (words of its display) rules out."""
        words = set(substance.lower().replace("(", " ").replace(")", " ").split())
        ingredients: set[str] = set()
        classes: list[DrugClass] = []
        for key, allergen in self.allergens.items():
            if key in words or any(w.startswith(key) for w in words):
                ingredients |= set(allergen.ingredients)
                classes += [self.classes[c] for c in allergen.classes if self.classes[c] not in classes]
        for cls in classes:
            ingredients |= set(cls.members)
        return ingredients, classes

    def all_drug_names(self) -> frozenset[str]:
        members = {m for c in self.classes.values() for m in c.members}
        return frozenset(self.known_drugs | members | set(self.brands.values()))


def _read(name: str) -> dict[str, Any]:
    path = HERE / name
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise LexiconError(f"{path}: cannot be read: {exc}") from exc
    if not isinstance(data, dict):
        raise LexiconError(f"{path}: must be a mapping at the top level")
    if not data.get("sources"):
        raise LexiconError(f"{path}: field 'sources' is required (where the data comes from)")
    return data


def _words(path: str, entry: str, field: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise LexiconError(f"{path}: entry '{entry}': field '{field}' must be a list of non-empty strings")
    return tuple(v.strip().lower() for v in value)


def tablets_too(said: tuple[str, ...]) -> tuple[str, ...]:
    """British English says "tablet" where American says "pill" ("water tablet", "sugar
    tablets"): every "pill" phrase of a class is also said with "tablet", so the data lists one."""
    extra = [re.sub(r"\bpill(s?)\b", r"tablet\1", w) for w in said if re.search(r"\bpills?\b", w)]
    return tuple(dict.fromkeys((*said, *extra)))


def _number(path: str, entry: str, field: str, value: Any) -> float | None:
    if value is None or isinstance(value, int | float):
        return None if value is None else float(value)
    raise LexiconError(f"{path}: entry '{entry}': field '{field}' must be a number or null")


@lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    syn = _read("synonyms.yaml")
    terms: list[Term] = []
    for section in SECTIONS:
        for name, body in (syn.get(section) or {}).items():
            if not isinstance(body, dict) or not isinstance(body.get("query"), str):
                raise LexiconError(f"synonyms.yaml: entry '{section}.{name}': field 'query' must be a string")
            said = _words("synonyms.yaml", f"{section}.{name}", "said", body.get("said"))
            types = _words("synonyms.yaml", f"{section}.{name}", "types", body.get("types"))
            terms.append(Term(section, str(name), body["query"], said or (str(name).lower(),), types))
    classes_file = _read("drug_classes.yaml")
    classes: dict[str, DrugClass] = {}
    for name, body in (classes_file.get("classes") or {}).items():
        if not isinstance(body, dict):
            raise LexiconError(f"drug_classes.yaml: entry '{name}' must be a mapping")
        members = _words("drug_classes.yaml", name, "members", body.get("members"))
        if not members:
            raise LexiconError(f"drug_classes.yaml: entry '{name}': field 'members' is required")
        classes[name] = DrugClass(
            name=name,
            atc=str(body.get("atc", "")),
            said=tablets_too(_words("drug_classes.yaml", name, "said", body.get("said"))),
            members=members,
            display_terms=_words("drug_classes.yaml", name, "display_terms", body.get("display_terms")),
            treats=_words("drug_classes.yaml", name, "treats", body.get("treats")),
            reason=str(body["reason"]) if body.get("reason") else None,
        )
    brands_file = _read("brands.yaml")
    brands = {str(k).lower(): str(v).lower() for k, v in (brands_file.get("brands") or {}).items()}
    allergens_file = _read("allergens.yaml")
    allergens: dict[str, Allergen] = {}
    for key, body in (allergens_file.get("allergens") or {}).items():
        cls = _words("allergens.yaml", key, "classes", (body or {}).get("classes"))
        unknown = [c for c in cls if c not in classes]
        if unknown:
            raise LexiconError(
                f"allergens.yaml: entry '{key}': field 'classes' names unknown class {unknown[0]!r}"
            )
        allergens[str(key).lower()] = Allergen(
            cls, _words("allergens.yaml", key, "ingredients", body.get("ingredients"))
        )
    ranges_file = _read("reference_ranges.yaml")
    ranges: dict[str, TypicalRange] = {}
    for code, body in (ranges_file.get("ranges") or {}).items():
        entry = str(code)
        if not isinstance(body, dict) or not body.get("source"):
            raise LexiconError(f"reference_ranges.yaml: entry '{entry}': field 'source' is required")
        low = _number("reference_ranges.yaml", entry, "low", body.get("low"))
        high = _number("reference_ranges.yaml", entry, "high", body.get("high"))
        if low is None and high is None:
            raise LexiconError(f"reference_ranges.yaml: entry '{entry}': give 'low' or 'high'")
        ranges[entry] = TypicalRange(
            entry, str(body.get("name", entry)), low, high, str(body.get("unit", "")), str(body["source"])
        )
    systems_file = _read("body_systems.yaml")
    lab_terms = {t.name for t in terms if t.section == "labs"}
    systems: dict[str, BodySystem] = {}
    for key, body in (systems_file.get("systems") or {}).items():
        entry = str(key)
        if not isinstance(body, dict) or not body.get("label"):
            raise LexiconError(f"body_systems.yaml: entry '{entry}': field 'label' is required")
        labs = tuple(str(x) for x in body.get("labs") or ())
        unknown = [x for x in labs if x not in lab_terms]
        if unknown:
            raise LexiconError(
                f"body_systems.yaml: entry '{entry}': field 'labs' names unknown lab {unknown[0]!r}"
            )
        conditions = _words("body_systems.yaml", entry, "conditions", body.get("conditions"))
        said = _words("body_systems.yaml", entry, "said", body.get("said"))
        if not conditions or not said:
            raise LexiconError(
                f"body_systems.yaml: entry '{entry}': fields 'said' and 'conditions' are required"
            )
        systems[entry] = BodySystem(
            entry, str(body["label"]), said, conditions, labs, str(body.get("chapter", ""))
        )
    return Lexicon(
        systems=systems,
        terms=tuple(terms),
        classes=classes,
        brands=brands,
        allergens=allergens,
        ranges=ranges,
        known_drugs=frozenset(_words("synonyms.yaml", "known_drugs", "known_drugs", syn.get("known_drugs"))),
        sources={
            "synonyms.yaml": tuple(syn["sources"]),
            "drug_classes.yaml": tuple(classes_file["sources"]),
            "brands.yaml": tuple(brands_file["sources"]),
            "allergens.yaml": tuple(allergens_file["sources"]),
            "reference_ranges.yaml": tuple(ranges_file["sources"]),
            "body_systems.yaml": tuple(systems_file["sources"]),
        },
    )


@dataclass(frozen=True)
class Gloss:
    """Basic Spanish → English: the words that mark a question as Spanish, and the phrases."""

    marks: frozenset[str]
    phrases: tuple[tuple[str, str], ...]  # longest first


@lru_cache(maxsize=1)
def load_spanish() -> Gloss:
    data = _read("spanish.yaml")
    marks = _words("spanish.yaml", "marks", "marks", data.get("marks"))
    phrases = data.get("phrases")
    if not isinstance(phrases, dict) or not phrases:
        raise LexiconError("spanish.yaml: field 'phrases' must be a non-empty mapping")
    pairs = []
    for said, english in phrases.items():
        if not isinstance(english, str) or not str(said).strip():
            raise LexiconError(f"spanish.yaml: entry 'phrases.{said}' must map a phrase to English text")
        pairs.append((str(said).strip(), english.strip()))
    return Gloss(frozenset(marks), tuple(sorted(pairs, key=lambda p: -len(p[0]))))
