"""Fields read in place (no located view) agree with the checked accessors on any JSON value:
the same value, or the same error naming the entry and the field."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields
from fhir_ingest.mappers import _value_columns, _value_columns_checked

_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.sampled_from(["2019", "2019-07-14", "2019-07-14T10:00:00+02:00", "2019-07-14T10:00:00", "2019-13"]),
)
_value = st.one_of(_scalar, st.just([]), st.lists(_scalar, max_size=2))


def _outcome(read):
    try:
        return ("value", read())
    except BundleError as exc:
        return ("error", str(exc))


@given(st.one_of(_value, st.fixed_dictionaries({}, optional={"start": _value, "end": _value})))
def test_a_period_read_in_place_agrees_with_the_located_view(period):
    r = Fields({"period": period}, 4, "resource", "Encounter/e-1")

    def checked():
        p = r.obj("period")
        return (None, None) if p is None else (p.instant("start"), p.instant("end"))

    assert _outcome(lambda: r.period("period")) == _outcome(checked)


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "valueQuantity": st.one_of(
                _value, st.fixed_dictionaries({}, optional={"value": _value, "unit": _value, "code": _value})
            ),
            "valueString": _value,
        },
    )
)
def test_an_observation_value_read_in_place_agrees_with_the_located_view(observation):
    r = Fields(observation, 9, "resource", "Observation/o-1")
    assert _outcome(lambda: _value_columns(r)) == _outcome(lambda: _value_columns_checked(r))


def _well_typed(good):
    return good


def _observations(vary):
    """Observations whose every field is `vary(a well-typed value)`."""
    text = vary(st.one_of(st.none(), st.text(max_size=4), st.sampled_from(["final", "mm[Hg]", "8480-6"])))
    number = vary(
        st.one_of(st.none(), st.integers(-1000, 1000), st.floats(allow_nan=False, allow_infinity=False))
    )
    when = vary(st.one_of(st.none(), st.sampled_from(["2019", "2019-07-14", "2019-07-14T10:00:00+02:00"])))
    system = vary(st.sampled_from(["http://loinc.org", "http://snomed.info/sct", "urn:other"]))
    coding = vary(st.fixed_dictionaries({}, optional={"system": system, "code": text, "display": text}))
    concept = vary(
        st.fixed_dictionaries({}, optional={"coding": vary(st.lists(coding, max_size=3)), "text": text})
    )
    quantity = vary(st.fixed_dictionaries({}, optional={"value": number, "unit": text, "code": text}))
    values = {
        "valueQuantity": quantity,
        "valueCodeableConcept": concept,
        "valueString": text,
        "valueBoolean": vary(st.one_of(st.none(), st.booleans())),
        "valueInteger": number,
        "valueDateTime": when,
    }
    component = vary(st.fixed_dictionaries({}, optional={"code": concept, **values}))
    bounds = vary(st.fixed_dictionaries({}, optional={"low": quantity, "high": quantity}))

    def listed(item):
        return vary(st.lists(item, max_size=3))

    return st.fixed_dictionaries(
        {"resourceType": st.just("Observation"), "id": st.just("o-1")},
        optional={
            "status": text,
            "category": listed(concept),
            "code": concept,
            **values,
            "component": listed(component),
            "referenceRange": listed(bounds),
            "interpretation": listed(concept),
            "effectiveDateTime": when,
            "effectiveInstant": when,
            "effectivePeriod": vary(st.fixed_dictionaries({}, optional={"start": when, "end": when})),
            "issued": when,
            "encounter": vary(
                st.fixed_dictionaries({"reference": st.sampled_from(["urn:uuid:e-1", "Encounter/e-1"])})
            ),
        },
    )


def _mapped(observation: dict, mapper) -> tuple:
    """Rows (or the error, named) of one observation in a bundle with its patient and encounter."""
    import copy

    from fhir_ingest.mappers import MapContext
    from fhir_ingest.references import ReferenceData, Resolver, index_bundle

    resources = [{"resourceType": "Patient", "id": "p-1"}, {"resourceType": "Encounter", "id": "e-1"}]
    observation = copy.deepcopy(observation)
    entries = [{"fullUrl": f"urn:uuid:{r['id']}", "resource": r} for r in [*resources, observation]]
    index = index_bundle({"resourceType": "Bundle", "entry": entries})
    ctx = MapContext(patient_id="p-1", resolver=Resolver(index, ReferenceData()))
    try:
        mapper(Fields(observation, 2, "resource", "Observation/o-1"), ctx)
    except BundleError as exc:
        return ("error", str(exc), exc.entry, exc.field)
    return ("rows", dict(ctx.rows), ctx.warnings)


@settings(max_examples=300)
@given(_observations(_well_typed))
def test_a_well_typed_observation_read_in_place_gives_the_checked_rows(observation):
    from fhir_ingest.mappers import _map_observation_checked, _observation_in_place, map_observation

    assert _observation_in_place(observation, "p-1") is not None  # taken, not a detour
    assert _mapped(observation, map_observation) == _mapped(observation, _map_observation_checked)


def _places(node, out):
    """Every (container, key) inside a JSON value, the resource's own fields included."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        out.append((node, key))
        _places(value, out)
    return out


@settings(max_examples=1000)
@given(_observations(_well_typed), st.data())
def test_an_observation_with_one_bad_field_agrees_with_the_checked_mapper(observation, data):
    # the same rows, or the same error naming entry and field, whatever one field holds
    from fhir_ingest.mappers import _map_observation_checked, map_observation

    places = [(c, k) for c, k in _places(observation, []) if k not in ("resourceType", "id")]
    if places:
        container, key = data.draw(st.sampled_from(places))
        # any JSON value; also dates of the right shape that are no dates, references elsewhere
        odd = st.sampled_from(["2020-02-30", "2019-07-14T10:00:00", "urn:uuid:elsewhere", "Patient/p-1"])
        container[key] = data.draw(st.one_of(_value, odd, st.just({}), st.just([{}])))
    assert _mapped(observation, map_observation) == _mapped(observation, _map_observation_checked)


def test_a_synthea_observation_is_read_in_place():
    # the fast path must actually take the common shapes (else it is only a detour)
    from fhir_ingest.mappers import _observation_in_place

    bp = {
        "resourceType": "Observation",
        "id": "o-1",
        "status": "final",
        "category": [
            {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/observation-category",
                        "code": "vital-signs",
                    }
                ]
            }
        ],
        "code": {
            "coding": [{"system": "http://loinc.org", "code": "85354-9", "display": "Blood pressure panel"}]
        },
        "encounter": {"reference": "urn:uuid:e-1"},
        "effectiveDateTime": "2019-07-14T10:00:00+02:00",
        "issued": "2019-07-14T10:00:00.123+02:00",
        "component": [
            {
                "code": {"coding": [{"system": "http://loinc.org", "code": "8480-6"}]},
                "valueQuantity": {"value": 120, "unit": "mm[Hg]"},
            },
            {
                "code": {"coding": [{"system": "http://loinc.org", "code": "8462-4"}]},
                "valueQuantity": {"value": 80.5, "unit": "mm[Hg]"},
            },
        ],
    }
    row, parts = _observation_in_place(bp, "p-1")
    assert (row["value_type"], row["category"], row["code"]) == ("components", "vital-signs", "85354-9")
    assert [(p["code"], p["value_num"]) for p in parts] == [("8480-6", 120.0), ("8462-4", 80.5)]
    from fhir_ingest.mappers import _map_observation_checked, map_observation

    mapped = _mapped(bp, map_observation)
    assert mapped == _mapped(bp, _map_observation_checked)
    assert mapped[1]["observations"][0]["encounter_id"] == "e-1"
