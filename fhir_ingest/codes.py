"""Codes and display names: which coding to keep, and how drug names are normalised.

A CodeableConcept often carries several codings (Synthea puts SNOMED and LOINC side by side
on some observations). The tools look labs and vitals up by LOINC (blood pressure parts by
8480-6 / 8462-4, never by position), so each resource type states which code systems it
prefers and the first coding of the best system wins; the order of codings in the file
does not matter.

Drug names arrive in tall-man lettering (`amLODIPine`, `clonazePAM`, `NIFEdipine`): the
capitals are a safety device for people reading labels, not part of the name. Matching
"amlodipine" must find them, so `display_normalized` folds case (Unicode-aware) and spaces;
`display` keeps the source text unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple, TypeVar

from fhir_ingest.fields import Fields

LOINC = "http://loinc.org"
SNOMED = "http://snomed.info/sct"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
CVX = "http://hl7.org/fhir/sid/cvx"
NPI = "http://hl7.org/fhir/sid/us-npi"

OBSERVATION_SYSTEMS = (LOINC, SNOMED)
MEDICATION_SYSTEMS = (RXNORM,)
VACCINE_SYSTEMS = (CVX,)
CLINICAL_SYSTEMS = (SNOMED,)

_SPACES = re.compile(r"\s+")
T = TypeVar("T")


class Code(NamedTuple):
    """One chosen coding. A tuple, not a frozen dataclass: ~16k are made per 22 patients, and
    a frozen dataclass's `__init__` (three `object.__setattr__` calls) cost 3× a tuple's."""

    system: str | None = None
    code: str | None = None
    display: str | None = None

    @property
    def empty(self) -> bool:
        return self.code is None and self.display is None


NO_CODE = Code()


def coding(f: Fields) -> Code:
    """One `Coding` object."""
    return Code(f.string("system"), f.string("code"), f.string("display"))


def codeable(f: Fields | None, prefer: tuple[str, ...] = ()) -> Code:
    """The best coding of a CodeableConcept: first coding of the most preferred system.

    The display falls back to `CodeableConcept.text` when the chosen coding has none.
    """
    if f is None:
        return NO_CODE
    # ~16k concepts per 22 patients: read well-typed ones straight from the dicts; anything
    # of an unexpected type goes through the checked reader, which names the bad field
    fast = _codeable_unchecked(f.data, prefer)
    return fast if fast is not None else _codeable_checked(f, prefer)


def codeable_at(f: Fields, key: str, prefer: tuple[str, ...] = ()) -> Code:
    """`codeable(f.obj(key), prefer)`, read straight from the dict when it is well typed (no
    located view is made for the ~16k concepts of a sample load that are)."""
    value = f.data.get(key)
    if value is None:
        return NO_CODE
    if type(value) is dict:
        fast = _codeable_unchecked(value, prefer)
        if fast is not None:
            return fast
    return codeable(f.obj(key), prefer)


def first_code_at(f: Fields, key: str) -> str | None:
    """The code of the first CodeableConcept of the array `f[key]` (`category`), or None."""
    value = f.data.get(key)
    if type(value) is list and all(type(item) is dict for item in value):
        if not value:
            return None
        fast = _codeable_unchecked(value[0], ())
        if fast is not None:
            return fast.code
    items = f.objs(key)
    return codeable(items[0]).code if items else None


def _is_text(value: object) -> bool:
    return value is None or type(value) is str


def _codeable_unchecked(data: dict, prefer: tuple[str, ...]) -> Code | None:
    """`codeable` on plain dicts, or None when some field has a type the checked reader rejects."""
    text = data.get("text")
    codings = data.get("coding")
    if not _is_text(text) or (codings is not None and type(codings) is not list):
        return None
    if not codings:
        return Code(None, None, text)
    for c in codings:
        if type(c) is not dict:
            return None
    chosen = codings[0]
    if prefer and len(codings) > 1:
        rank = rank_of(prefer)
        best = len(prefer)
        for c in codings:
            system = c.get("system")
            if not _is_text(system):
                return None
            r = rank.get(system, len(prefer))
            if r < best:
                best, chosen = r, c
    system, code, display = chosen.get("system"), chosen.get("code"), chosen.get("display")
    if not (_is_text(system) and _is_text(code) and _is_text(display)):
        return None
    return Code(system, code, text if display is None else display)


@lru_cache(maxsize=64)
def rank_of(prefer: tuple[str, ...]) -> dict[str, int]:
    """System → its place in `prefer` (the same few tuples, asked ~16k times a sample load)."""
    return {system: i for i, system in enumerate(prefer)}


def _codeable_checked(f: Fields, prefer: tuple[str, ...] = ()) -> Code:
    text = f.string("text")
    codings = f.objs("coding")
    if not codings:
        return Code(None, None, text)
    chosen = codings[0]
    if prefer and len(codings) > 1:
        rank = {system: i for i, system in enumerate(prefer)}
        best = len(prefer)
        for c in codings:
            r = rank.get(c.string("system"), len(prefer))
            if r < best:
                best, chosen = r, c
    picked = coding(chosen)
    if picked.display is None and text is not None:
        picked = Code(picked.system, picked.code, text)
    return picked


def codeables(items: list[Fields], prefer: tuple[str, ...] = ()) -> Code:
    """The best coding across a list of CodeableConcepts (e.g. `category`)."""
    return best_code(items, codeable, prefer)


def best_code(
    items: Sequence[T] | None, read: Callable[[T, tuple[str, ...]], Code], prefer: tuple[str, ...]
) -> Code:
    """The best coding across CodeableConcepts, each read by `read(item, prefer)`: the first
    concept's without a preference, else the first of the most preferred system."""
    if not items:
        return NO_CODE
    if not prefer:
        return read(items[0], ())
    best_rank, best = len(prefer) + 1, NO_CODE
    for item in items:
        c = read(item, prefer)
        rank = prefer.index(c.system) if c.system in prefer else len(prefer)
        if rank < best_rank:
            best_rank, best = rank, c
    return best


def fold_display(text: str | None) -> str | None:
    """Case- and space-folded text for matching (tall-man letters folded, NFKC, casefold)."""
    if text is None:
        return None
    folded = _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()
    return folded or None


def normalize_drug_name(display: str | None) -> str | None:
    """`amLODIPine 2.5 MG Oral Tablet` → `amlodipine 2.5 mg oral tablet`."""
    return fold_display(display)


@lru_cache(maxsize=1 << 14)  # a support bundle names each organization and location many times
def name_tokens(text: str | None) -> frozenset[str]:
    """Folded words of a person/organisation name, for comparing a reference's display.

    Cached (the result is immutable); `transform_bundle` empties the cache per bundle, as it
    does the other parse caches."""
    folded = fold_display(text)
    if not folded:
        return frozenset()
    return frozenset(t for t in re.split(r"[^\w']+", folded) if t)
