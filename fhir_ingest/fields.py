"""Typed, located access to the fields of one FHIR resource.

The mappers read plain dicts (about 300× cheaper than building fhir.resources models), so
this is where "wrong types" are caught: every accessor checks the JSON type it expects and,
when the data disagrees, raises a `BundleError` naming the entry index and the full field
path (`resource.component[1].valueQuantity.value`). A missing optional field is `None`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fhir_ingest.errors import BundleError
from fhir_ingest.timestamps import TimestampError, parse_date, parse_datetime_with_precision

_JSON_NAMES = {
    str: "a string",
    bool: "true/false",
    dict: "an object",
    list: "an array",
    int: "a number",
    float: "a number",
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    return _JSON_NAMES.get(type(value), type(value).__name__)


class Fields:
    """One JSON object inside a bundle entry, with its location for error messages.

    The location is kept as a link to the parent and built into a string only when an error
    needs it: most fields are read without ever failing, and formatting a path for each of
    them cost more than reading them.
    """

    __slots__ = ("_entry", "_index", "_key", "_parent", "_resource", "_root", "data")

    def __init__(self, data: dict, entry: int, path: str = "resource", resource: str | None = None) -> None:
        self.data = data
        self._entry = entry
        self._resource = resource
        self._root = path
        self._parent: Fields | None = None
        self._key: str | None = None
        self._index: int | None = None

    def _child(self, data: dict, key: str, index: int | None = None) -> Fields:
        # a child holds its data and its place under the parent, nothing more (~44k are made
        # per 22 patients): the entry, the resource and the path are looked up from the root
        # only when an error or a warning needs them
        child = _new_fields(Fields)
        child.data = data
        child._parent = self
        child._key = key
        child._index = index
        return child

    def _top(self) -> Fields:
        node = self
        while node._parent is not None:
            node = node._parent
        return node

    @property
    def entry(self) -> int:
        return self._top()._entry

    @property
    def resource(self) -> str | None:
        return self._top()._resource

    @property
    def path(self) -> str:
        if self._parent is None:
            return self._root
        suffix = self._key if self._index is None else f"{self._key}[{self._index}]"
        return f"{self._parent.path}.{suffix}"

    # --- errors -----------------------------------------------------------------------------

    def error(self, key: str | None, message: str) -> BundleError:
        field = f"{self.path}.{key}" if key else self.path
        return BundleError(message, entry=self.entry, field=field, resource=self.resource)

    def _wrong(self, key: str, expected: str, value: Any) -> BundleError:
        return self.error(key, f"expected {expected}, got {_json_type(value)} ({_short(value)})")

    # --- scalars ----------------------------------------------------------------------------

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def string(self, key: str, *, required: bool = False) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.error(key, "is required but missing")
            return None
        if not isinstance(value, str):
            raise self._wrong(key, "a string", value)
        return value

    def boolean(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self._wrong(key, "true/false", value)
        return value

    def number(self, key: str) -> float | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(key, "a number", value)
        return float(value)

    def instant(self, key: str) -> dt.datetime | None:
        """A FHIR dateTime/instant as an aware UTC datetime."""
        value = self.data.get(key)
        if value is None:
            return None
        try:
            return parse_datetime_with_precision(value)[0]
        except TimestampError as exc:
            raise self.error(key, str(exc)) from None

    def date(self, key: str) -> dt.date | None:
        value = self.data.get(key)
        if value is None:
            return None
        try:
            return parse_date(value)
        except TimestampError as exc:
            raise self.error(key, str(exc)) from None

    # --- structure --------------------------------------------------------------------------

    def obj(self, key: str, *, required: bool = False) -> Fields | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.error(key, "is required but missing")
            return None
        if not isinstance(value, dict):
            raise self._wrong(key, "an object", value)
        return self._child(value, key)

    def objs(self, key: str) -> list[Fields]:
        """A list of objects (an absent list is empty)."""
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._wrong(key, "an array", value)
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise self._wrong(f"{key}[{i}]", "an object", item)
            out.append(self._child(item, key, i))
        return out

    def first(self, key: str) -> Fields | None:
        items = self.objs(key)
        return items[0] if items else None

    def strs(self, key: str) -> list[str]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self._wrong(key, "an array", value)
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self._wrong(f"{key}[{i}]", "a string", item)
        return value

    def period(self, key: str) -> tuple[dt.datetime | None, dt.datetime | None]:
        value = self.data.get(key)
        if type(value) is dict:  # read in place; anything wrong is read again, located, below
            start, end = value.get("start"), value.get("end")
            try:
                return (
                    None if start is None else parse_datetime_with_precision(start)[0],
                    None if end is None else parse_datetime_with_precision(end)[0],
                )
            except TimestampError:
                pass
        p = self.obj(key)
        if p is None:
            return None, None
        return p.instant("start"), p.instant("end")


_new_fields = object.__new__


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
