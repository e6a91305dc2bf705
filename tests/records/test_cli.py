"""`chartside db status` lists the schema from the catalogue (it starts without the models):
the list must be exactly the tables the models declare."""

from __future__ import annotations

from records.cli import schema_tables
from records.models import Base


def test_db_status_lists_exactly_the_model_tables(db):
    with db.admin.connect() as conn:
        listed = schema_tables(conn)
    assert listed == sorted(t.name for t in Base.metadata.sorted_tables)
