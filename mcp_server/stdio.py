"""The stdio transport: one local process, one patient chosen by the operator, one conversation.

Whoever can start `chartside mcp` already holds the database credentials, so the operator may
bind any patient that exists (the role on the command line says how the record is presented).
The binding is fixed for the life of the process: the process is the MCP session, so it is
also the conversation, whichever protocol era the client speaks.
"""

from __future__ import annotations

import getpass
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server import Server
from mcp.server.stdio import stdio_server
from sqlalchemy import text

from mcp_server import audit
from mcp_server.binding import Binding
from mcp_server.conversation import Conversation, new_conversation_id
from mcp_server.server import build_mcp_server
from records.database import Database, patient_transaction
from tools.registry import Registry
from tools.scope import Role

log = logging.getLogger(__name__)


class PatientNotFound(Exception):
    pass


def stdio_actor() -> str:
    try:
        user = getpass.getuser()
    except Exception:  # no login name (e.g. a container without a passwd entry)
        user = "unknown"
    return f"mcp-stdio:{user}"


def patient_exists(db: Database, patient_id: str) -> bool:
    """Looked up the way tools read: as the application role, under row-level security."""
    with patient_transaction(db.app, patient_id) as conn:
        return (
            conn.execute(text("SELECT 1 FROM patients WHERE patient_id = :p"), {"p": patient_id}).first()
            is not None
        )


def refuse_stdio(
    db: Database, patient_id: str, role: str, detail: str = "stdio: no such patient", actor: str | None = None
) -> None:
    """Audit a stdio binding that was refused (the id that was asked for is on the record)."""
    audit.record(
        db,
        actor=actor or stdio_actor(),
        role=role,
        target_patient_id=patient_id,
        action="mcp:bind",
        outcome="denied",
        detail=detail[:300],
    )


def bind_stdio(db: Database, patient_id: str, role: Role, actor: str | None = None) -> Binding:
    """The process-wide binding; refuses (and audits) a patient that is not in the database."""
    actor = actor or stdio_actor()
    conversation = Conversation(id=new_conversation_id("stdio"))
    if not patient_exists(db, patient_id):
        refuse_stdio(db, patient_id, role, actor=actor)
        raise PatientNotFound(f"no patient with id {patient_id!r} in the database")
    audit.record(
        db,
        actor=actor,
        role=role,
        target_patient_id=patient_id,
        action="mcp:bind",
        outcome="ok",
        detail="stdio session opened",
        conversation_id=conversation.id,
    )
    return Binding(patient_id=patient_id, role=role, actor=actor, conversation=conversation)


def build_stdio_server(
    registry: Registry, db: Database, binding: Binding, *, embedder: Any = None
) -> Server[Any]:
    return build_mcp_server(registry, db, lambda ctx: binding, embedder=embedder)


@contextmanager
def protocol_streams_diverted() -> Iterator[None]:
    """While preparing, point fd 1 at stderr and fd 0 at the null device.

    Anything started here (the embedded PostgreSQL, a library that prints) inherits these
    descriptors, so it can never write into the protocol stream nor hold the client's pipes
    open after this process exits.
    """
    sys.stdout.flush()
    saved_out, saved_in = os.dup(1), os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(2, 1)
        os.dup2(null, 0)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved_out, 1)
        os.dup2(saved_in, 0)
        for fd in (saved_out, saved_in, null):
            os.close(fd)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve until the client closes stdin. While serving, the SDK diverts fd 1 to stderr too,
    so nothing but protocol frames reaches the client."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
