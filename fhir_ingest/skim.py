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
* it does not check UTF-8 inside what it skips, so the file is checked here, whole (a pure
  ASCII file, most of them, in one `isascii()`; the others by decoding them once: cheaper
  than a copy and a check of every slice, as before round thirteen);
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
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from fhir_ingest.references import URN_PREFIX, BundleIndex
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


class _Head(msgspec.Struct):
    resourceType: Any = None
    id: Any = None


_decode_bundle = msgspec.json.Decoder(_Bundle).decode
_decode_head = msgspec.json.Decoder(_Head).decode


class _Unusual(Exception):
    """The fast path does not handle this input: use the full parse."""


@dataclass
class Skimmed:
    """A bundle skimmed and indexed (pass 1 done): the index (`None` for each resource nothing
    reads), the entries something reads as (entry, type, dict or typed struct), and how many
    of each other type there are."""

    index: BundleIndex
    read: list[tuple[int, str, Any]]
    unread: Counter


def skim_bundle(raw: RawFile, read_types: Collection[str]) -> Skimmed | object:
    """The bundle skimmed and indexed; for any input the skim does not handle (bad input
    included), the full parse: `orjson.loads`'s dicts, or the `BundleError` `parse_json` raises."""
    data = raw.data
    if may_hold_escaped_nul(data):  # the full parse finds and names the NUL
        return parse_json(raw)
    try:
        return _skim(data, read_types)
    except (_Unusual, msgspec.DecodeError, orjson.JSONDecodeError, UnicodeDecodeError):
        return parse_json(raw)


def _skim(data: bytes, read_types: Collection[str]) -> Skimmed:
    bundle = _decode_bundle(data)
    if not data.isascii():  # nothing to check in a pure ASCII file (most of them)
        data.decode("utf-8")  # what msgspec skips is syntax-checked, not UTF-8 checked
    if bundle.resourceType != "Bundle":
        raise _Unusual  # `index_bundle` names what it is
    index = BundleIndex()
    add = index.add
    read: list[tuple[int, str, Any]] = []
    unread: Counter = Counter()
    for i, item in enumerate(bundle.entry or ()):
        resource_raw = item.resource
        if len(resource_raw) < 5:  # absent, `null`, or no room for a resourceType
            raise _Unusual  # the full parse names the entry without a resource
        full_url = item.fullUrl
        if full_url is not None and type(full_url) is not str:
            raise _Unusual
        hint = _TYPE_FIRST.match(resource_raw)
        rtype = hint.group(1).decode() if hint is not None else None
        resource = rid = None
        if rtype not in read_types:
            if rtype is not None:
                second = _ID_SECOND.match(resource_raw, hint.end())
                rid = second.group(1).decode() if second is not None else None
            if rid is None:
                head = _decode_head(resource_raw)  # also refuses a resource that is not an object
                rtype, rid = head.resourceType, head.id
                if type(rtype) is not str:
                    raise _Unusual
        if rtype in read_types:  # (a read resource's own type and id: `resourceType` may repeat)
            resource = _read(resource_raw, rtype)
            if type(resource) is dict:
                rtype, rid = resource.get("resourceType"), resource.get("id")
            else:
                rid = resource.id
        if type(rtype) is not str or not rtype:
            raise _Unusual
        if rid is None and full_url and full_url.startswith(URN_PREFIX):
            rid = full_url[len(URN_PREFIX) :]
            if type(resource) is dict:
                resource["id"] = rid
            elif resource is not None:
                resource.id = rid
        if type(rid) is not str or not rid or add(rtype, rid, i, full_url, resource) is not None:
            raise _Unusual  # `index_bundle` names what is wrong
        if resource is not None and rtype in read_types:
            read.append((i, rtype, resource))
        else:
            unread[rtype] += 1
    return Skimmed(index, read, unread)


def _read(resource_raw: msgspec.Raw, rtype: str) -> Any:
    """A resource a mapper reads: its typed struct (`fhir_ingest.typed`) where its type has
    one and it decodes, else the dict `orjson.loads` gives."""
    decode = DECODERS.get(rtype)
    if decode is not None:
        try:
            resource = decode(resource_raw)
        except msgspec.ValidationError:
            pass  # a field of another type: the dict, for the checked mapper to name it
        else:
            if resource.resourceType == rtype:  # not so: `resourceType` twice, the last one counts
                resource._raw = resource_raw
                return resource
    return orjson.loads(memoryview(resource_raw))
