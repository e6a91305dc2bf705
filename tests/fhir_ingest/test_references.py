"""Pass 1 and reference resolution: in-bundle links must exist, shared links must be safe."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields
from fhir_ingest.references import (
    ReferenceData,
    Resolver,
    SharedTarget,
    choose_target,
    display_agrees,
    display_agrees_by_words,
    index_bundle,
    parse_reference,
)

NPI = "http://hl7.org/fhir/sid/us-npi"
TYPES = ("Encounter", "Condition", "Observation", "Procedure")


def bundle_of(resources: list[tuple[str, str]]) -> dict:
    return {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {"fullUrl": f"urn:uuid:{rid}", "resource": {"resourceType": rtype, "id": rid}}
            for rtype, rid in resources
        ],
    }


def ref(reference: str | None = None, display: str | None = None, **extra) -> Fields:
    data = {k: v for k, v in {"reference": reference, "display": display, **extra}.items() if v is not None}
    return Fields(data, 3, "resource.encounter", "Condition/c1")


# --- parsing --------------------------------------------------------------------------------


def test_parse_reference_kinds():
    assert parse_reference("urn:uuid:abc").kind == "urn"
    literal = parse_reference("http://example.org/fhir/Patient/123/_history/2")
    assert (literal.kind, literal.resource_type, literal.id) == ("literal", "Patient", "123")
    conditional = parse_reference(f"Practitioner?identifier={NPI}|9999948091")
    assert (conditional.resource_type, conditional.system, conditional.identifier) == (
        "Practitioner",
        NPI,
        "9999948091",
    )
    assert parse_reference("#coverage").id == "coverage"
    for bad in ("", "#", "Practitioner?name=x", "just-words"):
        with pytest.raises(ValueError):
            parse_reference(bad)


# --- in-bundle references (property) ---------------------------------------------------------

resource_sets = st.lists(
    st.tuples(st.sampled_from(TYPES), st.uuids().map(str)), min_size=1, max_size=30, unique_by=lambda t: t[1]
)


@given(resource_sets, st.data())
def test_every_urn_resolves_to_exactly_its_entry(resources, data):
    index = index_bundle(bundle_of(resources))
    resolver = Resolver(index, ReferenceData())
    i = data.draw(st.integers(min_value=0, max_value=len(resources) - 1))
    rtype, rid = resources[i]
    target = resolver.local(ref(f"urn:uuid:{rid}"), TYPES)
    assert target is not None and (target.resource_type, target.id, target.entry) == (rtype, rid, i)
    assert resolver.local(ref(f"{rtype}/{rid}"), TYPES) == target


@given(resource_sets, st.uuids().map(str))
def test_a_urn_outside_the_bundle_is_an_error_naming_entry_and_field(resources, stranger):
    if stranger in {rid for _, rid in resources}:
        return
    resolver = Resolver(index_bundle(bundle_of(resources)), ReferenceData())
    with pytest.raises(BundleError) as caught:
        resolver.local(ref(f"urn:uuid:{stranger}"), TYPES)
    assert caught.value.entry == 3
    assert caught.value.field == "resource.encounter.reference"
    assert "dangling" in caught.value.message


@given(resource_sets, st.data())
def test_a_reference_to_the_wrong_type_is_an_error(resources, data):
    rtype, rid = data.draw(st.sampled_from(resources))
    wanted = tuple(t for t in TYPES if t != rtype)
    resolver = Resolver(index_bundle(bundle_of(resources)), ReferenceData())
    with pytest.raises(BundleError, match=f"is a {rtype}"):
        resolver.local(ref(f"urn:uuid:{rid}"), wanted)


# --- shared references (property) ------------------------------------------------------------

npis = st.integers(min_value=9_999_000_000, max_value=9_999_999_999).map(str)


@given(st.lists(npis, min_size=1, max_size=20, unique=True), npis)
def test_conditional_reference_resolves_iff_the_identifier_is_known(known_npis, asked):
    refdata = ReferenceData()
    for n in known_npis:
        refdata.add(SharedTarget.make("Practitioner", f"id-{n}", f"Doc{n} Smith"), [(NPI, n)])
    resolver = Resolver(index_bundle(bundle_of([])), refdata)
    got = resolver.shared(ref(f"Practitioner?identifier={NPI}|{asked}"), "Practitioner")
    if asked in known_npis:
        assert got == f"id-{asked}"  # the FHIR id, never the NPI itself
        assert not resolver.unresolved
    else:
        assert got is None
        assert resolver.unresolved_count == 1
        assert f"|{asked}" in resolver.warnings()[0]


@given(
    npis,
    st.text(alphabet="abcdefghij", min_size=3, max_size=8),
    st.text(alphabet="klmnopqrst", min_size=3, max_size=8),
)
def test_a_display_that_names_someone_else_never_links(npi, real, other):
    refdata = ReferenceData()
    refdata.add(SharedTarget.make("Practitioner", "p-real", f"{real} Jones"), [(NPI, npi)])
    resolver = Resolver(index_bundle(bundle_of([])), refdata)
    wrong = resolver.shared(
        ref(f"Practitioner?identifier={NPI}|{npi}", display=f"Dr. {other} Brown"), "Practitioner"
    )
    right = resolver.shared(
        ref(f"Practitioner?identifier={NPI}|{npi}", display=f"Dr. {real} Jones"), "Practitioner"
    )
    assert wrong is None and right == "p-real"
    assert "differs" in resolver.warnings()[0]


def test_npi_reused_by_two_runs_prefers_the_same_folder_and_refuses_to_guess_otherwise():
    a = SharedTarget.make("Practitioner", "p-a", "Rochell365 Stehr398", "/data/run-a")
    b = SharedTarget.make("Practitioner", "p-b", "Rochell365 Stehr398", "/data/run-b")
    assert choose_target([a, b], "Dr. Rochell365 Stehr398", "/data/run-b")[0] == b
    target, reason = choose_target([a, b], "Dr. Rochell365 Stehr398", "/elsewhere")
    assert target is None and "ambiguous" in reason


def test_logical_identifier_reference_and_display_only_reference():
    refdata = ReferenceData()
    refdata.add(SharedTarget.make("Organization", "org-1", "General Hospital"), [("sys", "o1")])
    resolver = Resolver(index_bundle(bundle_of([])), refdata)
    logical = ref(identifier={"system": "sys", "value": "o1"}, display="General Hospital")
    assert resolver.shared(logical, "Organization") == "org-1"
    assert resolver.shared(ref(display="Someone"), "Practitioner") is None
    assert not resolver.unresolved


def test_a_different_type_of_reference_is_not_linked():
    refdata = ReferenceData()
    refdata.add(SharedTarget.make("Organization", "org-1", "Clinic"), [("sys", "o1")])
    resolver = Resolver(index_bundle(bundle_of([])), refdata)
    assert resolver.shared(ref("Organization?identifier=sys|o1"), "Practitioner") is None


def test_display_agreement():
    target = SharedTarget.make("Practitioner", "p", "Arron144 Koelpin146")
    assert display_agrees("Dr. Arron144 Koelpin146", target)
    assert display_agrees(None, target)
    assert not display_agrees("Dr. Marisol435 Tórrez28", target)
    assert display_agrees("Dr. Arron144 Koelpin146", SharedTarget.make("Practitioner", "q", "Koelpin146"))
    assert not display_agrees(
        "Dr. Arron144 Koelpin1460", SharedTarget.make("Practitioner", "q", "Koelpin146")
    )


def test_overlay_is_visible_only_to_its_bundle_until_absorbed():
    base = ReferenceData()
    base.add(SharedTarget.make("Organization", "org-1", "Old Name"), [("sys", "o1")])
    layer = base.overlay()
    layer.add(SharedTarget.make("Organization", "org-1", "New Name"), [("sys", "o1-new")])
    layer.add(SharedTarget.make("Organization", "org-2", "Other"), [("sys", "o2")])
    assert [t.name for t in layer.lookup("Organization", "sys", "o1-new")] == ["New Name"]
    assert layer.lookup("Organization", "sys", "o1") == []  # the layer's org-1 replaced the base's
    assert base.lookup("Organization", "sys", "o2") == []
    base.absorb(layer)
    assert [t.id for t in base.lookup("Organization", "sys", "o2")] == ["org-2"]
    assert base.lookup("Organization", "sys", "o1") == []
    assert base.by_id("Organization", "org-1").name == "New Name"


def test_contained_references_are_scoped_to_their_parent():
    parent = Fields(
        {
            "resourceType": "MedicationRequest",
            "contained": [{"resourceType": "Medication", "id": "med1", "code": {"text": "x"}}],
        },
        2,
    )
    found = Resolver.contained(
        parent, Fields({"reference": "#med1"}, 2, "resource.medicationReference"), "Medication"
    )
    assert found.data["id"] == "med1"
    other = Fields({"resourceType": "MedicationRequest"}, 3)
    with pytest.raises(BundleError, match="contained"):
        Resolver.contained(
            other, Fields({"reference": "#med1"}, 3, "resource.medicationReference"), "Medication"
        )


# --- pass 1 structure errors -----------------------------------------------------------------


def test_index_rejects_broken_structure_with_entry_and_field():
    pid = str(uuid.uuid4())
    cases = [
        ({"resourceType": "Patient"}, None, "resourceType"),
        ({"resourceType": "Bundle", "entry": {}}, None, "entry"),
        ({"resourceType": "Bundle", "entry": [{"fullUrl": "urn:uuid:x"}]}, 0, "resource"),
        ({"resourceType": "Bundle", "entry": [{"resource": {"id": pid}}]}, 0, "resource.resourceType"),
        (
            {"resourceType": "Bundle", "entry": [{"resource": {"resourceType": 5, "id": pid}}]},
            0,
            "resource.resourceType",
        ),
        ({"resourceType": "Bundle", "entry": [{"resource": {"resourceType": "Patient"}}]}, 0, "resource.id"),
        (bundle_of([("Encounter", pid), ("Condition", pid)]), 1, "fullUrl"),
    ]
    for bundle, entry, field in cases:
        with pytest.raises(BundleError) as caught:
            index_bundle(bundle)
        assert (caught.value.entry, caught.value.field) == (entry, field), bundle


def test_id_is_taken_from_a_urn_full_url_when_missing():
    index = index_bundle(
        {
            "resourceType": "Bundle",
            "entry": [{"fullUrl": "urn:uuid:abc", "resource": {"resourceType": "Patient"}}],
        }
    )
    assert index.patients[0].id == "abc"


_target = st.tuples(
    st.sampled_from(("Organization", "Location", "Practitioner")),
    st.sampled_from(("a", "b", "c", "d")),  # few ids: later adds replace earlier ones
    st.none() | st.sampled_from(("Dr Ann Lee", "Clinic", "Ann")),
    st.none() | st.sampled_from(("/x", "/y")),
    st.lists(
        st.tuples(st.none() | st.sampled_from(("s1", "s2")), st.sampled_from(("1", "2", ""))), max_size=3
    ),
)


@given(layers=st.lists(st.lists(_target, max_size=8), min_size=1, max_size=3))
def test_reference_data_pickles_to_the_same_lookups(layers):
    """Workers get the reference data pickled (`ReferenceData.__reduce__` rebuilds it from its
    targets): every lookup must answer the same, candidates in the same order."""
    import pickle

    refdata = ReferenceData()
    for layer in layers:
        refdata = refdata.overlay()
        for rtype, rid, name, source_dir, identifiers in layer:
            refdata.add(SharedTarget.make(rtype, rid, name, source_dir), identifiers)
    copy = pickle.loads(pickle.dumps(refdata))
    for rtype in ("Organization", "Location", "Practitioner"):
        for rid in ("a", "b", "c", "d"):
            assert copy.by_id(rtype, rid) == refdata.by_id(rtype, rid)
        for system in (None, "s1", "s2"):
            for value in ("1", "2"):
                assert copy.lookup(rtype, system, value) == refdata.lookup(rtype, system, value)
    assert len(copy) == len(refdata) and copy.own_count() == refdata.own_count()


@given(
    bases=st.lists(_target, max_size=8),
    layer=st.lists(_target, max_size=8),
)
def test_absorbing_a_layer_is_adding_its_targets_one_by_one(bases, layer):
    """`absorb` takes a layer's new targets without checking them again: every lookup answers
    as if each target had been added to the base (candidates in the same order)."""
    absorbed, added = ReferenceData(), ReferenceData()
    for rtype, rid, name, source_dir, identifiers in bases:
        for refdata in (absorbed, added):
            refdata.add(SharedTarget.make(rtype, rid, name, source_dir), identifiers)
    overlay = absorbed.overlay()
    for rtype, rid, name, source_dir, identifiers in layer:
        overlay.add(SharedTarget.make(rtype, rid, name, source_dir), identifiers)
    absorbed.absorb(overlay)
    for key, target in overlay._by_id.items():
        added.add(target, overlay._identifiers[key])
    for rtype in ("Organization", "Location", "Practitioner"):
        for rid in ("a", "b", "c", "d"):
            assert absorbed.by_id(rtype, rid) == added.by_id(rtype, rid)
        for system in (None, "s1", "s2"):
            for value in ("1", "2"):
                assert absorbed.lookup(rtype, system, value) == added.lookup(rtype, system, value)
    assert absorbed._identifiers == added._identifiers and len(absorbed) == len(added)


_words = st.text(st.characters(codec="ascii"), max_size=12)
_any_words = st.text(max_size=12)


@given(
    title=st.one_of(_words, _any_words, st.sampled_from(["Dr.", "Mrs.", "", " ", "Dr.\t", "Ms\u00a0"])),
    name=st.one_of(
        _words, _any_words, st.sampled_from(["Arron144 Koelpin146", "O'Neil", "Ann-Marie  Lee ", "Tórrez28"])
    ),
    other=st.one_of(st.none(), _words, _any_words),
)
def test_display_agreement_without_words_is_display_agreement_by_words(title, name, other):
    """A display of a title, a space and the target's name agrees at once (ASCII only): it
    must be what comparing the words says, for any title and name, and any other display."""
    target = SharedTarget.make("Practitioner", "p", name)
    for display in (f"{title} {name}", f"{title}{name}", other):
        if display is None or display == name:
            continue
        assert display_agrees(display, target) == display_agrees_by_words(display, target), display
    nameless = SharedTarget.make("Practitioner", "p", None)
    for display in (f"{title} {name}", other):
        if display is not None:
            assert display_agrees(display, nameless) == display_agrees_by_words(display, nameless)


_reference_values = st.one_of(st.none(), st.integers(), st.just([]), st.just({}), st.text(max_size=4))


@given(resource_sets, st.data())
def test_a_reference_read_in_place_agrees_with_the_located_view(resources, data):
    """`local_id_at` (the encounter of every row) answers from the strings this bundle already
    resolved; whatever the field holds — a known reference, one of another type, a dangling
    one, a number, an array — it gives what `local_id(r.obj(key))` gives, or the same error."""
    resolver = Resolver(index_bundle(bundle_of(resources)), ReferenceData())
    for rtype, rid in data.draw(st.lists(st.sampled_from(resources), max_size=3)):
        resolver.local(ref(f"urn:uuid:{rid}"), (rtype,))  # remembered as resolved
    known = [f"urn:uuid:{rid}" for _, rid in resources]
    value = data.draw(
        st.one_of(
            st.none(),
            _reference_values,
            st.fixed_dictionaries({}, optional={"reference": st.sampled_from(known) | _reference_values}),
        )
    )
    expected = data.draw(st.sampled_from([("Encounter",), ("Condition", "Observation"), TYPES]))
    r = Fields({"encounter": value}, 3, "resource", "Procedure/p1")

    def outcome(read):
        try:
            return ("id", read())
        except BundleError as exc:
            return ("error", str(exc))

    in_place = outcome(lambda: resolver.local_id_at(r, "encounter", expected))
    assert in_place == outcome(lambda: resolver.local_id(r.obj("encounter"), expected))
