"""Migrations are frozen: each revision carries its own SQL and imports nothing from the product.

A revision that imported, say, `records.security` would change meaning whenever that module
changed: a database upgraded last year and one created today would differ while both report
the same revision. Third-party imports (alembic, sqlalchemy, pgvector) are fine.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_import_contract import FIRST_PARTY as PROJECT_PACKAGES

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "records" / "migrations" / "versions"
FIRST_PARTY = {*PROJECT_PACKAGES, "tests"}


def first_party_imports(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." if node.level else (node.module or "")]
        else:
            continue
        found += [n for n in names if n == "." or n.split(".")[0] in FIRST_PARTY]
    return found


@pytest.mark.parametrize("revision", sorted(VERSIONS.glob("*.py")), ids=lambda p: p.stem)
def test_a_revision_imports_nothing_from_the_product(revision):
    assert first_party_imports(revision.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "source, caught",
    [
        ("from records import security\n", ["records"]),
        ("def upgrade():\n    from records.security import grant_sql\n", ["records.security"]),
        ("from . import helpers\n", ["."]),
        ("import sqlalchemy as sa\nfrom alembic import op\n", []),
    ],
)
def test_the_check_catches_a_live_import(source, caught):
    assert first_party_imports(source) == caught
