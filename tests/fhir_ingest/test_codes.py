"""Which coding is kept, and how drug names are folded for matching."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fhir_ingest.codes import (
    LOINC,
    SNOMED,
    Code,
    codeable,
    codeables,
    fold_display,
    name_tokens,
    normalize_drug_name,
)
from fhir_ingest.fields import Fields


def f(data: dict) -> Fields:
    return Fields(data, 0)


def test_preferred_system_wins_whatever_the_order():
    concept = {
        "coding": [
            {"system": SNOMED, "code": "43396009", "display": "HbA1c measurement"},
            {"system": LOINC, "code": "4548-4", "display": "Hemoglobin A1c"},
        ]
    }
    assert codeable(f(concept), (LOINC, SNOMED)) == Code(LOINC, "4548-4", "Hemoglobin A1c")
    concept["coding"].reverse()
    assert codeable(f(concept), (LOINC, SNOMED)).code == "4548-4"
    assert codeable(f(concept), (SNOMED,)).code == "43396009"


def test_first_coding_without_preference_and_text_fallback():
    concept = {"coding": [{"system": "x", "code": "1"}], "text": "One"}
    assert codeable(f(concept)) == Code("x", "1", "One")
    assert codeable(f({"text": "free text only"})) == Code(None, None, "free text only")
    assert codeable(None).empty


def test_codeables_picks_the_preferred_category():
    categories = [
        f(
            {
                "coding": [
                    {
                        "system": "http://hl7.org/fhir/us/core/CodeSystem/careplan-category",
                        "code": "assess-plan",
                    }
                ]
            }
        ),
        f({"coding": [{"system": SNOMED, "code": "443402002", "display": "Lifestyle education"}]}),
    ]
    assert codeables(categories, (SNOMED,)).code == "443402002"
    assert codeables(categories).code == "assess-plan"


def test_tall_man_letters_fold():
    assert normalize_drug_name("amLODIPine 2.5 MG Oral Tablet") == "amlodipine 2.5 mg oral tablet"
    assert normalize_drug_name("clonazePAM 0.25 MG Oral Tablet") == normalize_drug_name(
        "Clonazepam 0.25 mg oral tablet"
    )
    assert normalize_drug_name("  NIFEdipine\t 30 MG ") == "nifedipine 30 mg"
    assert normalize_drug_name(None) is None


drug_words = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.", min_size=1, max_size=12), min_size=1, max_size=6
)


@given(drug_words, st.lists(st.booleans(), min_size=72, max_size=72))
def test_any_capitalisation_of_a_name_folds_to_the_same_text(words, caps):
    plain = " ".join(words)
    tall = "".join(ch.upper() if caps[i % len(caps)] else ch for i, ch in enumerate(plain))
    assert fold_display(tall) == fold_display(plain) == plain
    assert fold_display(fold_display(tall)) == fold_display(tall)


def test_name_tokens_ignore_titles_punctuation_and_case():
    assert name_tokens("Dr. Arron144 Koelpin146") >= name_tokens("arron144 KOELPIN146")
    assert name_tokens("Zoë O'Brien") == {"zoë", "o'brien"}


# Any JSON value where a CodeableConcept field is expected: mostly well-typed, sometimes not.
_json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)
)
_text_or_junk = st.one_of(
    st.none(), st.sampled_from([SNOMED, LOINC, "x", ""]), _json_scalar, st.just([]), st.just({})
)
_coding = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"system": _text_or_junk, "code": _text_or_junk, "display": _text_or_junk}
    ),
    _json_scalar,
)
_concept = st.fixed_dictionaries(
    {},
    optional={
        "text": _text_or_junk,
        "coding": st.one_of(st.lists(_coding, max_size=4), _json_scalar, st.just({})),
    },
)


@given(_concept, st.sampled_from([(), (LOINC, SNOMED), (SNOMED,)]))
def test_the_fast_reader_agrees_with_the_checked_one_on_any_concept(concept, prefer):
    """`codeable` reads well-typed concepts without the checked accessors: same result, and
    anything mistyped still fails with the checked reader's error naming the field."""
    from fhir_ingest.codes import _codeable_checked
    from fhir_ingest.errors import BundleError

    try:
        expected = _codeable_checked(f(concept), prefer)
    except BundleError as exc:
        try:
            codeable(f(concept), prefer)
        except BundleError as got:
            assert str(got) == str(exc)
        else:
            raise AssertionError(f"{concept!r} was accepted, the checked reader says: {exc}") from None
    else:
        assert codeable(f(concept), prefer) == expected


def _outcome(read):
    """What a reader gives: its value, or the error it raises (as the message a user sees)."""
    from fhir_ingest.errors import BundleError

    try:
        return ("value", read())
    except BundleError as exc:
        return ("error", str(exc))


_field = st.one_of(_concept, _json_scalar, st.lists(_concept, max_size=3))


@given(
    st.dictionaries(st.sampled_from(["code", "category"]), _field, max_size=2),
    st.sampled_from([(), (LOINC, SNOMED), (SNOMED,)]),
)
def test_reading_a_concept_in_place_agrees_with_the_located_view(resource, prefer):
    """`codeable_at` / `first_code_at` (what the mappers call) give what the checked path
    gives — `codeable(r.obj(key))` and the first item of `r.objs(key)` — value for value, and
    the same error naming the entry and field for anything mistyped."""
    from fhir_ingest.codes import codeable_at, first_code_at

    r = Fields(resource, 7, "resource", "Observation/o-1")

    def first_code_checked():
        items = r.objs("category")
        return codeable(items[0]).code if items else None

    assert _outcome(lambda: codeable_at(r, "code", prefer)) == _outcome(
        lambda: codeable(r.obj("code"), prefer)
    )
    assert _outcome(lambda: first_code_at(r, "category")) == _outcome(first_code_checked)
