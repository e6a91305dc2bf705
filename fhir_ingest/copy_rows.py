"""Rows → the bytes of a binary `COPY … FROM STDIN`, made where the rows are made.

With worker processes (`fhir_ingest.parallel`) the writer's process is the chain the run
waits on: it commits the bundles one after another. Encoding the rows there cost it
~0.03 s of CPU on the samples, and sending them as dicts cost the pickling on both sides;
a worker now encodes them once (psycopg's own C row formatter), and the writer only sends
the bytes (`Copy.write`, which takes a preformatted stream). The writer's own path
(`copy.write_row`) stays for everything else, and both must put the same rows in the
database (`tests/fhir_ingest/test_copy_rows.py`).

psycopg exposes the formatter only from a private module; where it is missing (another
psycopg version), `encoder_available()` is False and the writer encodes as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import psycopg
from psycopg.adapt import Transformer
from psycopg.pq import Format

try:  # psycopg ≥ 3.2
    from psycopg._copy_base import BinaryFormatter
except ImportError:  # pragma: no cover - depends on the installed psycopg
    BinaryFormatter = None  # type: ignore[assignment,misc]
try:  # the function the formatter calls for each row (C in psycopg_binary)
    from psycopg._copy_base import format_row_binary
except ImportError:  # pragma: no cover - depends on the installed psycopg
    format_row_binary = None  # type: ignore[assignment]


@dataclass(frozen=True)
class EncodedRows:
    """One table's rows of one bundle, ready for `COPY table (columns) FROM STDIN (FORMAT BINARY)`."""

    columns: tuple[str, ...]
    data: bytes  # signature, rows, trailer
    count: int


def encoder_available() -> bool:
    return BinaryFormatter is not None


def row_values(names: Sequence[str]):
    """A function giving a row dict's values in `names` order, as a tuple (one C call a row)."""
    values = itemgetter(*names)
    if len(names) == 1:
        return lambda row: (values(row),)
    return values


def encode(typed: Sequence[tuple[str, str]], rows: Sequence[dict[str, Any]]) -> EncodedRows:
    """`typed`: (column, PostgreSQL type name) pairs, as the writer's `table_columns` gives them."""
    assert BinaryFormatter is not None
    types = psycopg.adapters.types
    transformer = Transformer()
    transformer.set_dumper_types([types.get_oid(t) for _, t in typed], Format.BINARY)
    values = row_values([c for c, _ in typed])
    if format_row_binary is not None:
        # the formatter's own row function straight into one buffer: what `write_row` does
        # for each row, without its bookkeeping per row (a fifth of the encoding's time)
        buffer = bytearray(COPY_HEADER)
        for row in rows:
            format_row_binary(values(row), transformer, buffer)
        buffer += COPY_TRAILER
        return EncodedRows(tuple(c for c, _ in typed), bytes(buffer), len(rows))
    formatter = BinaryFormatter(transformer)
    write_row = formatter.write_row
    parts = []
    for row in rows:
        full = write_row(values(row))  # the formatter hands back a buffer only when one is full
        if full:
            parts.append(bytes(full))
    parts.append(bytes(formatter.end()))
    return EncodedRows(tuple(c for c, _ in typed), b"".join(parts), len(rows))


# A binary COPY stream: this header (signature, flags 0, no header extension), the rows, then
# the trailer (a field count of -1). psycopg's formatter writes exactly these.
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
COPY_TRAILER = b"\xff\xff"


def concat_encoded(parts: Sequence[EncodedRows]) -> EncodedRows:
    """Several bundles' rows of one table, with the same columns, as one COPY stream: one
    header, every part's rows in order, one trailer (what `encode` gives for all the rows)."""
    if len(parts) == 1:
        return parts[0]
    columns = parts[0].columns
    bodies = []
    for part in parts:
        data = part.data
        if part.columns != columns or not (data.startswith(COPY_HEADER) and data.endswith(COPY_TRAILER)):
            raise ValueError("only streams of the same columns, as `encode` makes them, can be joined")
        bodies.append(memoryview(data)[len(COPY_HEADER) : -len(COPY_TRAILER)])
    return EncodedRows(columns, b"".join((COPY_HEADER, *bodies, COPY_TRAILER)), sum(p.count for p in parts))
