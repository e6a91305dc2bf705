"""Pass 1: index every entry of a bundle, and resolve references against it.

Three kinds of reference occur in Synthea output and each fails differently:

* `urn:uuid:…` (and `Type/id`) point inside the same bundle. If the target is not there the
  bundle is broken: that is an error naming the entry and field, and nothing is written.
* Conditional references — `Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|<npi>`,
  `Organization?identifier=…|…`, `Location?identifier=…|…` — and logical references
  (`{"identifier": {...}}`) point at reference data from the support bundles
  (`hospitalInformation*`, `practitionerInformation*`). A practitioner's FHIR id is NOT its
  NPI, so they are looked up by identifier. When nothing matches, the foreign key is left
  empty and the reference is counted as a warning: never a crash, never a wrong link.
* `#id` points at a resource contained in the same resource (`#coverage` in every
  ExplanationOfBenefit uses the same local id); it is resolved only within its parent.

NPIs are not unique across Synthea runs (two runs in the samples reuse three NPIs for
different doctors), so an identifier match is only accepted when the reference's display
name agrees with the target's name, and several agreeing candidates are narrowed to the
ones loaded from the same folder as the bundle; if that still leaves more than one the
reference is reported as ambiguous instead of picking one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, NamedTuple, Protocol

import orjson

from fhir_ingest.codes import name_tokens
from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields

URN_PREFIX = "urn:uuid:"


# --------------------------------------------------------------------------------------------
# Parsing reference strings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ParsedReference:
    """One reference string, classified. `kind` is urn | literal | conditional | contained."""

    kind: str
    value: str
    resource_type: str | None = None
    id: str | None = None
    system: str | None = None
    identifier: str | None = None


@lru_cache(maxsize=1 << 16)  # a bundle names the same patient, encounter, practitioner thousands of times
def parse_reference(reference: str) -> ParsedReference:
    """Classify a `Reference.reference` string. Raises ValueError for shapes FHIR does not allow."""
    if not reference:
        raise ValueError("empty reference")
    if reference.startswith(URN_PREFIX) or reference.startswith("urn:oid:"):
        return ParsedReference("urn", reference)
    if reference.startswith("#"):
        if len(reference) == 1:
            raise ValueError("'#' names no contained resource")
        return ParsedReference("contained", reference, id=reference[1:])
    if "?" in reference:
        rtype, _, query = reference.partition("?")
        rtype = rtype.rsplit("/", 1)[-1]
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        token = params.get("identifier")
        if not rtype or not token:
            raise ValueError(f"conditional reference {reference!r} has no Type?identifier=system|value")
        system, bar, value = token.partition("|")
        if not bar:  # identifier=value without a system
            system, value = "", token
        if not value:
            raise ValueError(f"conditional reference {reference!r} has an empty identifier value")
        return ParsedReference("conditional", reference, rtype, None, system or None, value)
    parts = [p for p in reference.split("/") if p]
    if "_history" in parts:
        parts = parts[: parts.index("_history")]
    if len(parts) >= 2 and parts[-2][:1].isupper():
        return ParsedReference("literal", reference, parts[-2], parts[-1])
    raise ValueError(f"{reference!r} is not a urn:uuid, Type/id, Type?identifier=… or #id reference")


# --------------------------------------------------------------------------------------------
# Reference data: what conditional references can point at
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SharedTarget:
    """A practitioner, organization or location known to the database or to this run."""

    resource_type: str
    id: str
    name: str | None = None
    source_dir: str | None = None

    @classmethod
    def make(
        cls, resource_type: str, id: str, name: str | None, source_dir: str | None = None
    ) -> SharedTarget:
        return cls(resource_type, id, name, source_dir)

    @cached_property
    def tokens(self) -> frozenset[str]:
        """Words of the name, computed only when a display is compared (most targets never are)."""
        return name_tokens(self.name)


class ReferenceData:
    """Identifier → shared targets. Built from the database, extended by support bundles.

    `overlay()` gives a layer for one bundle: its own organizations/practitioners are
    visible while the bundle is mapped, and join the base only once the bundle's
    transaction has committed (`absorb`), so a failed bundle can never leave behind a
    target that a later bundle links to.
    """

    def __init__(self, parent: ReferenceData | None = None) -> None:
        self.parent = parent
        self._by_identifier: dict[tuple[str, str | None, str], list[SharedTarget]] = defaultdict(list)
        self._by_value: dict[tuple[str, str], list[SharedTarget]] = defaultdict(list)
        self._by_id: dict[tuple[str, str], SharedTarget] = {}
        self._identifiers: dict[tuple[str, str], list[tuple[str | None, str]]] = {}

    def __reduce__(self) -> tuple:
        """Pickled as its targets, in order (worker processes get the reference data so): made
        in a third of the default pickle's time, by the process the run waits on; `add`
        rebuilds the indexes on load, in the worker."""
        own = [
            (t.resource_type, t.id, t.name, t.source_dir, self._identifiers.get(key, []))
            for key, t in self._by_id.items()
        ]
        return (_rebuild_reference_data, (self.parent, own))

    def add(self, target: SharedTarget, identifiers: Iterable[tuple[str | None, str]] = ()) -> None:
        """Add (or replace: same type and id) one target under its identifiers."""
        key = (target.resource_type, target.id)
        idents = [(system, value) for system, value in identifiers if value]
        known = self._by_id.get(key)
        if known is not None:
            if known == target and self._identifiers.get(key) == idents:
                return  # the same resource again (collection bundles repeat them in every patient)
            self._remove(key)
        self._put(key, target, idents)

    def _put(self, key: tuple[str, str], target: SharedTarget, idents: list[tuple[str | None, str]]) -> None:
        """Index a target whose key is not here (`idents`: its identifiers that have a value)."""
        self._by_id[key] = target
        self._identifiers[key] = idents
        rtype, by_identifier, by_value = target.resource_type, self._by_identifier, self._by_value
        for system, value in idents:
            by_identifier[(rtype, system, value)].append(target)
            by_value[(rtype, value)].append(target)

    def _remove(self, key: tuple[str, str]) -> None:
        old = self._by_id.pop(key)
        for system, value in self._identifiers.pop(key, []):
            for index, k in (
                (self._by_identifier, (old.resource_type, system, value)),
                (self._by_value, (old.resource_type, value)),
            ):
                targets = index.get(k)
                if targets and old in targets:
                    targets.remove(old)
                    if not targets:
                        del index[k]

    def overlay(self) -> ReferenceData:
        return ReferenceData(parent=self)

    def absorb(self, layer: ReferenceData) -> None:
        """Take over the targets of a committed overlay."""
        for key, target in layer._by_id.items():
            idents = layer._identifiers.get(key, [])
            if key in self._by_id:
                self.add(target, idents)
            else:  # as `add` would, without checking again what the layer's `add` checked
                self._put(key, target, list(idents))

    def by_id(self, resource_type: str, id: str) -> SharedTarget | None:
        found = self._by_id.get((resource_type, id))
        if found is None and self.parent is not None:
            return self.parent.by_id(resource_type, id)
        return found

    def lookup(self, resource_type: str, system: str | None, value: str) -> list[SharedTarget]:
        """The targets under an identifier, this layer's first; a layer's version of a resource
        replaces the version of the same id in the layers below it."""
        found: list[SharedTarget] = []
        above: list[ReferenceData] = []  # the layers over the one being read
        layer: ReferenceData | None = self
        while layer is not None:
            if system:
                own = layer._by_identifier.get((resource_type, system, value))
            else:
                own = layer._by_value.get((resource_type, value))
            if own:
                if not above:
                    found.extend(own)
                else:
                    found.extend(
                        t for t in own if not any((t.resource_type, t.id) in a._by_id for a in above)
                    )
            above.append(layer)
            layer = layer.parent
        return found

    def __len__(self) -> int:
        return len(self._by_id) + (len(self.parent) if self.parent is not None else 0)

    def own_count(self) -> int:
        """Targets of this layer alone (what a bundle brings; 0 for a Synthea patient bundle)."""
        return len(self._by_id)


def _rebuild_reference_data(
    parent: ReferenceData | None, own: list[tuple[str, str, str | None, str | None, list]]
) -> ReferenceData:
    refdata = ReferenceData(parent)
    for resource_type, rid, name, source_dir, identifiers in own:
        refdata.add(SharedTarget(resource_type, rid, name, source_dir), identifiers)
    return refdata


def display_agrees(display: str | None, target: SharedTarget) -> bool:
    """Does a reference's display name fit the target? (Either one's words contain the other's.)

    `Dr. Arron144 Koelpin146` fits the practitioner named Arron144 Koelpin146; a missing
    display or name cannot disagree.
    """
    name = target.name
    if display is None or display == name:  # the same words (most references say the name)
        return True
    if (
        name
        and display.endswith(name)
        and display[-len(name) - 1 : -len(name)] == " "
        and display.isascii()
        and name.isascii()
    ):
        # a title before the name ("Dr. " in every practitioner role): ASCII text folds letter
        # by letter and the space keeps the name's words apart, so its words are the display's
        return True
    return display_agrees_by_words(display, target)


def display_agrees_by_words(display: str, target: SharedTarget) -> bool:
    """`display_agrees` by its definition: the words of one contain the other's."""
    shown = name_tokens(display)
    if not shown or not target.tokens:
        return True
    return target.tokens <= shown or shown <= target.tokens


def choose_target(
    candidates: list[SharedTarget], display: str | None, source_dir: str | None
) -> tuple[SharedTarget | None, str]:
    """Pick the one target an identifier reference means, or explain why none is safe."""
    if not candidates:
        return None, "no such identifier in the loaded support bundles"
    if len(candidates) == 1 and display_agrees(display, candidates[0]):  # the usual case, at once
        return candidates[0], ""
    agreeing = [c for c in candidates if display_agrees(display, c)]
    if not agreeing:
        names = ", ".join(sorted({c.name or c.id for c in candidates}))
        return (
            None,
            f"the identifier belongs to {names}, whose name differs from the reference's display {display!r}",
        )
    if len(agreeing) > 1 and source_dir is not None:
        same_folder = [c for c in agreeing if c.source_dir == source_dir]
        if same_folder:
            agreeing = same_folder
    if len({c.id for c in agreeing}) > 1:
        return None, f"ambiguous: {len(agreeing)} resources share this identifier"
    return agreeing[0], ""


# --------------------------------------------------------------------------------------------
# Pass 1 over one bundle
# --------------------------------------------------------------------------------------------


class EntryTarget(NamedTuple):
    """One entry of a bundle (a tuple: one is made per entry, ~470 per patient bundle)."""

    resource_type: str
    id: str
    entry: int


@dataclass
class BundleIndex:
    """Every entry of one bundle by fullUrl and by Type/id."""

    by_full_url: dict[str, EntryTarget] = field(default_factory=dict)
    by_type_id: dict[tuple[str, str], EntryTarget] = field(default_factory=dict)
    # dicts; from the skim also typed structs, and None for what nothing reads (`fhir_ingest.skim`)
    resources: list[Any] = field(default_factory=list)
    patients: list[EntryTarget] = field(default_factory=list)

    def add(
        self, rtype: str, rid: str, entry: int, full_url: str | None, resource: Any
    ) -> tuple[str, EntryTarget] | None:
        """Index one entry, the next one (pass 1): None, or the field it clashes on (`fullUrl`
        or `resource.id`) and the entry that holds it already."""
        target = EntryTarget(rtype, rid, entry)
        if full_url:
            first = self.by_full_url.setdefault(full_url, target)
            if first is not target:
                return "fullUrl", first
        twin = self.by_type_id.setdefault((rtype, rid), target)
        if twin is not target:
            return "resource.id", twin
        self.resources.append(resource)
        if rtype == "Patient":
            self.patients.append(target)
        return None

    def resource(self, target: EntryTarget) -> Any:
        """The resource of an entry: a dict, or a typed struct (`fhir_ingest.typed`)."""
        return self.resources[target.entry]

    def as_dict(self, entry: int) -> dict:
        """The resource of an entry as the full parse gives it (a typed one parsed from its own
        bytes, then kept so), for the checked mappers."""
        resource = self.resources[entry]
        if type(resource) is dict:
            return resource
        try:
            data = orjson.loads(memoryview(resource._raw))
        except orjson.JSONDecodeError as exc:
            # msgspec skips what no struct declares without converting numbers: a number too
            # large for a double there is only found here (the full parse refuses the bundle)
            raise BundleError(
                f"invalid JSON: {exc.msg}",
                entry=entry,
                field="resource",
                resource=f"{resource.resourceType}/{resource.id}",
            ) from None
        if data.get("id") is None:
            data["id"] = resource.id  # as `index_bundle` gave the struct (from a urn:uuid fullUrl)
        self.resources[entry] = data
        return data


def resource_label(resource: dict) -> str | None:
    rtype, rid = resource.get("resourceType"), resource.get("id")
    if isinstance(rtype, str) and isinstance(rid, str):
        return f"{rtype}/{rid}"
    return rtype if isinstance(rtype, str) else None


def index_bundle(bundle: object) -> BundleIndex:
    """Check the bundle's shape and index its entries (pass 1). Raises BundleError."""
    if not isinstance(bundle, dict):
        raise BundleError(f"expected a JSON object (a FHIR Bundle), got {type(bundle).__name__}")
    rtype = bundle.get("resourceType")
    if rtype != "Bundle":
        what = "no resourceType" if rtype is None else f"resourceType {rtype!r}"
        raise BundleError(f"not a FHIR Bundle ({what})", field="resourceType")
    entries = bundle.get("entry")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise BundleError("expected an array of entries", field="entry")
    index = BundleIndex()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise BundleError("expected an object", entry=i, field="(entry)")
        resource = entry.get("resource")
        if not isinstance(resource, dict):
            what = "missing" if resource is None else f"not an object ({type(resource).__name__})"
            raise BundleError(f"resource is {what}", entry=i, field="resource")
        rtype = resource.get("resourceType")
        if not isinstance(rtype, str) or not rtype:
            what = "missing" if rtype is None else f"not a string ({rtype!r})"
            raise BundleError(
                f"resourceType is {what}",
                entry=i,
                field="resource.resourceType",
                resource=resource_label(resource),
            )
        full_url = entry.get("fullUrl")
        if full_url is not None and not isinstance(full_url, str):
            raise BundleError(f"expected a string, got {type(full_url).__name__}", entry=i, field="fullUrl")
        rid = resource.get("id")
        if rid is None and full_url and full_url.startswith(URN_PREFIX):
            rid = full_url[len(URN_PREFIX) :]
            resource["id"] = rid
        if not isinstance(rid, str) or not rid:
            what = "missing (and the fullUrl is not a urn:uuid)" if rid is None else f"not a string ({rid!r})"
            raise BundleError(f"id is {what}", entry=i, field="resource.id", resource=rtype)
        clash = index.add(rtype, rid, i, full_url, resource)
        if clash is not None:
            field, other = clash
            raise BundleError(
                f"fullUrl {full_url} is also used by entry {other.entry}"
                if field == "fullUrl"
                else f"{rtype}/{rid} is also entry {other.entry}",
                entry=i,
                field=field,
                resource=f"{rtype}/{rid}",
            )
    return index


# --------------------------------------------------------------------------------------------
# Resolving references during pass 2
# --------------------------------------------------------------------------------------------


class Unlinkable(ValueError):
    """A shared reference that is an error, not a warning (the message says why)."""


class TypedIdentifier(Protocol):
    system: str | None
    value: str | None


class TypedReference(Protocol):
    """A Reference read by `fhir_ingest.typed`: every field already of its JSON type, or None."""

    reference: str | None
    display: str | None
    identifier: TypedIdentifier | None


@dataclass
class UnresolvedReference:
    reference: str
    reason: str
    count: int
    first_field: str

    def describe(self) -> str:
        uses = f"{self.count} use{'s' if self.count != 1 else ''}"
        return f"unresolved reference {self.reference} ({uses}, first at {self.first_field}): {self.reason}; link left empty"


class Resolver:
    """Resolves the references of one bundle; collects unresolved shared references as warnings."""

    def __init__(self, index: BundleIndex, refdata: ReferenceData, source_dir: str | None = None) -> None:
        self.index = index
        self.refdata = refdata
        self.source_dir = source_dir
        self.unresolved: dict[str, UnresolvedReference] = {}
        self._shared_cache: dict[tuple[str, str | None], tuple[str | None, str]] = {}
        self._local_cache: dict[str, EntryTarget] = {}
        # (reference, type, display) -> (target id, why it is unresolved or "")
        self._shared_ref_cache: dict[tuple[str, str, str | None], tuple[str | None, str]] = {}

    # --- in-bundle (patient record) references ---------------------------------------------

    def local(self, ref: Fields | None, expected: tuple[str, ...]) -> EntryTarget | None:
        """A reference that must point inside this bundle (subject, encounter, result, ...).

        A reference that does not resolve, or resolves to the wrong type, is an error.
        """
        if ref is None:
            return None
        reference = ref.string("reference")
        if reference is None:
            return None
        # the same string always finds the same entry; only successes are remembered, so a
        # bad reference is reported at every field that holds it (the first one stops the bundle)
        target = self._local_cache.get(reference)
        if target is None:
            target = self._find_local(ref, reference)
            self._local_cache[reference] = target
        if target.resource_type not in expected:
            raise ref.error(
                "reference",
                f"{reference} is a {target.resource_type}, expected {' or '.join(expected)}",
            )
        return target

    def _find_local(self, ref: Fields, reference: str) -> EntryTarget:
        found = self._locate(reference)
        if type(found) is str:
            raise ref.error("reference", found)
        return found

    def _locate(self, reference: str) -> EntryTarget | str:
        """The entry a reference string names inside this bundle, or why it names none."""
        try:
            parsed = parse_reference(reference)
        except ValueError as exc:
            return str(exc)
        if parsed.kind == "urn":
            target = self.index.by_full_url.get(reference)
            if target is None:
                return f"{reference} is not the fullUrl of any entry in this bundle (dangling reference)"
            return target
        if parsed.kind == "literal":
            target = self.index.by_type_id.get((parsed.resource_type, parsed.id))
            if target is None:
                return f"{reference} is not in this bundle (dangling reference)"
            return target
        return f"{reference}: expected a reference to an entry of this bundle"

    def local_target(self, reference: str | None, expected: tuple[str, ...]) -> EntryTarget | bool | None:
        """`local` for a reference string already known to be a string or absent (a typed
        resource, `fhir_ingest.typed`), without raising: False where `local` would raise."""
        if reference is None:
            return None
        target = self._local_cache.get(reference)
        if target is None:
            found = self._locate(reference)
            if type(found) is str:
                return False
            target = self._local_cache[reference] = found
        return target if target.resource_type in expected else False

    def local_id(self, ref: Fields | None, expected: tuple[str, ...]) -> str | None:
        target = self.local(ref, expected)
        return target.id if target else None

    def local_id_at(self, r: Fields, key: str, expected: tuple[str, ...]) -> str | None:
        """`local_id(r.obj(key), expected)`, without a located view when the reference string
        is one this bundle already resolved to an entry of an expected type (most are: every
        observation of an encounter names it)."""
        value = r.data.get(key)
        if type(value) is dict:
            reference = value.get("reference")
            if type(reference) is str:
                target = self._local_cache.get(reference)
                if target is not None and target.resource_type in expected:
                    return target.id
        return self.local_id(r.obj(key), expected)

    # --- shared (reference-data) references -------------------------------------------------

    def shared(self, ref: Fields | None, resource_type: str) -> str | None:
        """Resolve a reference to a practitioner/organization/location; None (with a warning) if unsafe.

        A reference to another type (a PractitionerRole where a Practitioner could be) links
        nothing and is not a warning; a `urn:uuid:` that is not in the bundle is an error.
        """
        if ref is None:
            return None
        data = ref.data
        display, reference = data.get("display"), data.get("reference")
        if type(reference) is str and (display is None or type(display) is str):
            # the typed reads below would accept these: a string seen before is answered at once
            known = self._shared_ref_cache.get((reference, resource_type, display))
            if known is not None:
                if known[1]:
                    self.warn(reference, known[1], ref.path + ".reference")
                return known[0]
        display = ref.string("display")
        reference = ref.string("reference")
        if reference is None:
            ident = ref.obj("identifier")
            if ident is None:
                return None  # a display-only reference names nothing to link
            value = ident.string("value")
            if not value:
                return None
            target_id, pending = self._identifier_link(
                resource_type, ident.string("system"), value, display, ref.path + ".identifier"
            )
        else:
            try:
                target_id, reason = self._by_reference(reference, resource_type, display)
            except Unlinkable as exc:
                raise ref.error("reference", str(exc)) from None
            pending = (reference, reason, ref.path + ".reference") if reason else None
        if pending is not None:
            self.warn(*pending)
        return target_id

    def shared_pending(
        self, ref: TypedReference | None, resource_type: str, where: str
    ) -> tuple[str | None, tuple[str, str, str] | None] | bool:
        """`shared` for a typed reference (`fhir_ingest.typed`: every field already a string or
        absent) with `where` its path, and without its side effect: (target id, the warning
        `shared` would record or None; `warn(*it)` records it), or False where `shared` would
        raise."""
        if ref is None:
            return None, None
        reference, display = ref.reference, ref.display
        if reference is None:
            ident = ref.identifier
            if ident is None or not ident.value:
                return None, None
            return self._identifier_link(
                resource_type, ident.system, ident.value, display, where + ".identifier"
            )
        try:
            target_id, reason = self._by_reference(reference, resource_type, display)
        except Unlinkable:
            return False
        return target_id, ((reference, reason, where + ".reference") if reason else None)

    def _by_reference(
        self, reference: str, resource_type: str, display: str | None
    ) -> tuple[str | None, str]:
        key = (reference, resource_type, display)
        found = self._shared_ref_cache.get(key)
        if found is None:  # errors are raised, never remembered
            found = self._shared_ref_cache[key] = self._shared_cache_miss(reference, resource_type, display)
        return found

    def _shared_cache_miss(
        self, reference: str, resource_type: str, display: str | None
    ) -> tuple[str | None, str]:
        """(target id, "") or (None, why not; "" when a link of another type is simply not this one).
        Raises `Unlinkable` for a reference that is an error."""
        try:
            parsed = parse_reference(reference)
        except ValueError as exc:
            raise Unlinkable(str(exc)) from None
        if parsed.kind in ("urn", "literal"):
            target = (
                self.index.by_full_url.get(reference)
                if parsed.kind == "urn"
                else (self.index.by_type_id.get((parsed.resource_type, parsed.id)))
            )
            if target is not None:
                # e.g. generalPractitioner may name an Organization: valid, just not this link
                return (target.id if target.resource_type == resource_type else None), ""
            if parsed.kind == "urn":
                raise Unlinkable(
                    f"{reference} is not the fullUrl of any entry in this bundle (dangling reference)"
                )
            if parsed.resource_type != resource_type:
                return None, ""
            known = self.refdata.by_id(resource_type, parsed.id or "")
            if known is not None:
                return known.id, ""
            return None, "not in this bundle nor in the loaded support bundles"
        if parsed.kind == "conditional":
            if parsed.resource_type != resource_type:
                return None, ""
            return self._identifier_target(
                reference, resource_type, parsed.system, parsed.identifier or "", display
            )
        return None, "a contained practitioner/organization is not linked"

    def _identifier_link(
        self, resource_type: str, system: str | None, value: str, display: str | None, where: str
    ) -> tuple[str | None, tuple[str, str, str] | None]:
        """A logical reference (`{"identifier": …}`): (target id, the warning when there is none)."""
        label = f"{resource_type}?identifier={system or ''}|{value}"
        target_id, reason = self._identifier_target(label, resource_type, system, value, display)
        return target_id, (None if target_id is not None else (label, reason, where))

    def _identifier_target(
        self, label: str, resource_type: str, system: str | None, value: str, display: str | None
    ) -> tuple[str | None, str]:
        key = (label, display)
        cached = self._shared_cache.get(key)
        if cached is None:
            target, reason = choose_target(
                self.refdata.lookup(resource_type, system, value), display, self.source_dir
            )
            cached = (target.id if target else None, reason)
            self._shared_cache[key] = cached
        return cached

    def warn(self, reference: str, reason: str, where: str) -> None:
        """Count one use of an unresolved shared reference (the first use's field is kept)."""
        known = self.unresolved.get(reference)
        if known is None:
            self.unresolved[reference] = UnresolvedReference(reference, reason, 1, where)
        else:
            known.count += 1

    # --- contained resources ----------------------------------------------------------------

    @staticmethod
    def contained(parent: Fields, ref: Fields, expected: str) -> Fields:
        """Resolve `#id` inside `parent.contained` only (local ids repeat across resources)."""
        reference = ref.string("reference") or ""
        wanted = reference[1:]
        for item in parent.objs("contained"):
            if item.data.get("id") == wanted:
                if item.data.get("resourceType") != expected:
                    raise ref.error(
                        "reference", f"{reference} is a {item.data.get('resourceType')}, expected {expected}"
                    )
                return item
        raise ref.error("reference", f"{reference} is not among this resource's contained resources")

    def warnings(self) -> list[str]:
        return [u.describe() for u in self.unresolved.values()]

    @property
    def unresolved_count(self) -> int:
        return sum(u.count for u in self.unresolved.values())
