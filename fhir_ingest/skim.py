"""Parse a bundle for ingestion without building the resources nothing reads.

About half of a Synthea patient bundle is `Claim` and `ExplanationOfBenefit` (plus
`Provenance`, `CareTeam`, `ImagingStudy`, …), which no mapper reads: for them ingestion needs
only the type and the id (pass 1 indexes every entry, and counts what it skips). Building
them as Python dicts was a third of the parse. Here msgspec walks the bundle once, keeping
each entry's resource as its raw bytes (`msgspec.Raw`, a slice, not a copy). The others become
a two-key stub (`resourceType`, `id`); the resources a mapper reads are decoded by msgspec into
the typed structs of `fhir_ingest.typed` where their type has one (three quarters of them, since
round thirteen) and they decode, else parsed by orjson into dicts as before.

The result is the dict shape `orjson.loads` gives (`{"resourceType", "entry": [{"fullUrl",
"resource"}]}`), a typed resource standing for its dict, so pass 1 and pass 2 read either, and
bad input is still refused:

* msgspec checks the JSON syntax of every byte, including the parts it skips;
* it does not check UTF-8 inside what it skips, so those slices are checked here (a pure
  ASCII file, most of them, in one `isascii()`);
* anything unusual — a syntax error, a shape other than a Bundle of entries holding objects, a
  `\\u0000` escape, a field an entry does not have in FHIR — goes to the full parse
  (`source.parse_json`), which either names the file, line, entry and field of the error, or
  returns the plain parse. The answer is never different, only slower.

One difference is known and left: msgspec skips what it does not build without converting its
numbers, so a number too large for a double (`1e400`, which orjson refuses) inside a resource
nothing reads, or inside a field no typed struct declares, does not stop the bundle; it never
reaches a row. (A resource read again as a dict by its checked mapper is refused, naming its
entry: `BundleIndex.as_dict`.)

`tests/fhir_ingest/test_skim.py` holds the two paths equal on generated bundles and bytes.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import msgspec
import orjson

from fhir_ingest.source import RawFile, may_hold_escaped_nul, parse_json
from fhir_ingest.typed import DECODERS

# Synthea writes a resource's type first and its id second: read both without a parse (an
# object holding a key twice is not FHIR; for such a file this reads the first of the two,
# where orjson keeps the last)
_TYPE_FIRST = re.compile(rb'\s*\{\s*"resourceType"\s*:\s*"([A-Za-z]{1,64})"')
_ID_SECOND = re.compile(rb'\s*,\s*"id"\s*:\s*"([A-Za-z0-9\-.]{1,64})"\s*[,}]')
_ABSENT = msgspec.Raw()  # a field not in the JSON (msgspec cannot make `Raw | None`)


class _Entry(msgspec.Struct, forbid_unknown_fields=True):
    """Bundle.entry as FHIR R4 defines it (an unknown field sends the file to the full parse)."""

    fullUrl: Any = None
    resource: msgspec.Raw = _ABSENT
    request: msgspec.Raw = _ABSENT
    response: msgspec.Raw = _ABSENT
    search: msgspec.Raw = _ABSENT
    link: msgspec.Raw = _ABSENT
    id: msgspec.Raw = _ABSENT
    extension: msgspec.Raw = _ABSENT
    modifierExtension: msgspec.Raw = _ABSENT

    def unread(self) -> tuple[msgspec.Raw, ...]:
        return (
            self.request,
            self.response,
            self.search,
            self.link,
            self.id,
            self.extension,
            self.modifierExtension,
        )


class _Bundle(msgspec.Struct, forbid_unknown_fields=True):
    """Bundle as FHIR R4 defines it; only `resourceType` and `entry` are read."""

    resourceType: Any = None
    entry: list[_Entry] | None = None
    id: msgspec.Raw = _ABSENT
    meta: msgspec.Raw = _ABSENT
    implicitRules: msgspec.Raw = _ABSENT
    language: msgspec.Raw = _ABSENT
    identifier: msgspec.Raw = _ABSENT
    type: msgspec.Raw = _ABSENT
    timestamp: msgspec.Raw = _ABSENT
    total: msgspec.Raw = _ABSENT
    link: msgspec.Raw = _ABSENT
    signature: msgspec.Raw = _ABSENT

    def unread(self) -> tuple[msgspec.Raw, ...]:
        return (
            self.id,
            self.meta,
            self.implicitRules,
            self.language,
            self.identifier,
            self.type,
            self.timestamp,
            self.total,
            self.link,
            self.signature,
        )


class _Head(msgspec.Struct):
    resourceType: Any = None
    id: Any = None


_decode_bundle = msgspec.json.Decoder(_Bundle).decode
_decode_head = msgspec.json.Decoder(_Head).decode


class _Unusual(Exception):
    """The fast path does not handle this input: use the full parse."""


def skim_bundle(raw: RawFile, read_types: Collection[str], *, typed: bool = True) -> object:
    """The bundle as `orjson.loads` would give it, except that resources whose type is not in
    `read_types` are `{"resourceType": …, "id": …}` only, and (`typed`) those of the types
    `fhir_ingest.typed` reads are its structs where they decode. Raises `BundleError` for bad
    input, exactly as `parse_json` does."""
    data = raw.data
    if may_hold_escaped_nul(data):  # the full parse finds and names the NUL
        return parse_json(raw)
    try:
        return _skim(data, read_types, typed)
    except (_Unusual, msgspec.DecodeError, orjson.JSONDecodeError, UnicodeDecodeError):
        return parse_json(raw)


def _skim(data: bytes, read_types: Collection[str], typed: bool) -> dict:
    bundle = _decode_bundle(data)
    checked = data.isascii()  # nothing to check in a pure ASCII file (most of them)
    if not checked:
        _check_utf8(bundle.unread())
    out: dict = {} if bundle.resourceType is None else {"resourceType": bundle.resourceType}
    if bundle.entry is None:
        return out
    entries: list[dict] = []
    append = entries.append
    loads = orjson.loads  # a local: once per entry
    typed_decoders = DECODERS if typed else {}
    for item in bundle.entry:
        resource_raw = item.resource
        if len(resource_raw) < 5:  # absent, `null`, or no room for a resourceType
            raise _Unusual  # the full parse names the entry without a resource
        if not checked:
            _check_utf8(item.unread())
        hint = _TYPE_FIRST.match(resource_raw)
        rtype = hint.group(1).decode() if hint is not None else None
        if rtype in read_types:
            resource = _read(resource_raw, rtype, typed_decoders, checked)
        else:
            rid = None
            if rtype is not None:
                second = _ID_SECOND.match(resource_raw, hint.end())
                rid = second.group(1).decode() if second is not None else None
            if rid is None:
                head = _decode_head(resource_raw)  # also refuses a resource that is not an object
                rtype, rid = head.resourceType, head.id
            if not isinstance(rtype, str):
                resource = loads(memoryview(resource_raw))
            elif rtype in read_types:
                resource = _read(resource_raw, rtype, typed_decoders, checked)
            else:
                if not checked:
                    _check_utf8((resource_raw,))
                resource = {"resourceType": rtype}
                if rid is not None:
                    resource["id"] = rid
        entry: dict = {"resource": resource}
        if item.fullUrl is not None:
            entry["fullUrl"] = item.fullUrl
        append(entry)
    out["entry"] = entries
    return out


def _read(resource_raw: msgspec.Raw, rtype: str, decoders: dict[str, Any], checked: bool) -> Any:
    """A resource a mapper reads: its typed struct (`fhir_ingest.typed`) where its type has
    one and it decodes, else the dict `orjson.loads` gives."""
    decode = decoders.get(rtype)
    if decode is not None:
        if not checked:
            _check_utf8((resource_raw,))
        try:
            resource = decode(resource_raw)
        except msgspec.ValidationError:
            pass  # a field of another type: the dict, for the checked mapper to name it
        else:
            if resource.resourceType == rtype:  # not so: `resourceType` twice, the last one counts
                resource._raw = resource_raw
                return resource
    return orjson.loads(memoryview(resource_raw))


def _check_utf8(parts: tuple[msgspec.Raw, ...]) -> None:
    """What msgspec skipped was syntax-checked, not UTF-8 checked."""
    for part in parts:
        if part:
            chunk = bytes(part)
            if not chunk.isascii():
                chunk.decode("utf-8")  # UnicodeDecodeError → the full parse locates the bad byte
