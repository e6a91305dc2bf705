"""Fixtures for tool tests: the default registry and contexts bound to a patient."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest

from records.database import Database
from tools.catalog import build_registry
from tools.registry import Registry, ToolContext
from tools.results import ToolResult
from tools.scope import PatientScope

NOW = dt.datetime(2025, 6, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="session")
def registry() -> Registry:
    return build_registry()


def make_ctx(
    db: Database,
    patient_id: str,
    *,
    conversation_id: str = "conv-1",
    message_id: str | None = None,
    role: str = "patient",
    now: dt.datetime | None = NOW,
    writes: str | None = "sandbox",
) -> ToolContext:
    """A tool context at the pinned NOW. Each test's database is throwaway, so writes run as in
    an evaluation sandbox (judged by NOW) unless a test asks for `writes="live"` or None (the
    role's own mode)."""
    scope = PatientScope(
        patient_id=patient_id,
        role=role,
        actor=f"test:{patient_id}",
        conversation_id=conversation_id,
        message_id=message_id,
        writes=writes,
    )
    return ToolContext(scope=scope, db=db, now=now)


@pytest.fixture()
def call(registry: Registry, db: Database) -> Callable[..., ToolResult]:
    """call(patient_id, tool, **args) → ToolResult, with a fresh context each time."""

    def run(patient_id: str, tool: str, /, **args) -> ToolResult:
        return registry.execute(make_ctx(db, patient_id), tool, args)

    return run
