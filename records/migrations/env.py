"""Alembic environment: runs against the connection handed over by records.migrate."""

from __future__ import annotations

from alembic import context

from records.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
