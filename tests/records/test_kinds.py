"""One record-kind map: `records.queries.single.KINDS` / `TABLES`; everything else agrees with it."""

from __future__ import annotations

from typing import get_args

from records.models import Base
from records.queries.single import KINDS, TABLES
from server.record_rows import PATIENT_KINDS
from tools.results import PREFIXES
from tools.scoped_record import KIND_WORDS, RecordKind


def test_every_kind_names_a_real_table():
    tables = set(Base.metadata.tables)
    assert {kind: t for kind, t in TABLES.items() if t not in tables} == {}


def test_the_scoped_record_tool_and_the_row_viewer_use_the_same_kinds():
    assert set(get_args(RecordKind)) == set(KINDS) == set(KIND_WORDS)
    assert set(PATIENT_KINDS) <= set(TABLES)  # the viewer shows no kind the map does not know
    assert set(KINDS) <= set(PREFIXES)  # every kind can be cited
