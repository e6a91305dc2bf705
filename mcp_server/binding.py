"""Who is connected, whose record they may read, and which conversation a call belongs to.

A `Binding` is decided by the transport (the command line for stdio, the authenticated HTTP
request for streamable HTTP), never by anything a client puts in tool arguments; tool input
schemas cannot even name a patient.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from mcp_server.conversation import Conversation
from tools.scope import PatientScope, Role


class BindingRefused(Exception):
    """The request cannot be tied to a patient and a conversation; the message says why."""


@dataclass(frozen=True)
class Binding:
    patient_id: str
    role: Role
    actor: str
    conversation: Conversation

    def scope(self, message_id: str | None) -> PatientScope:
        return PatientScope(
            patient_id=self.patient_id,
            role=self.role,
            actor=self.actor,
            conversation_id=self.conversation.id,
            message_id=message_id,
        )


def call_message_id(
    conversation_id: str, tool: str, arguments: dict[str, Any], *, writes: bool, request_id: Any
) -> str:
    """The message id a tool call runs under (booking derives its idempotency key from it).

    For a writing tool it is derived from what is asked, not from the JSON-RPC request id:
    a client that retries a timed-out `book_appointment` sends a new request id with the same
    arguments, and must get the booking it already has, not a second one. Reads carry the
    request id so audit rows can be traced back to a request.
    """
    if not writes:
        return f"mcp-call-{request_id}"
    payload = json.dumps([conversation_id, tool, arguments], sort_keys=True, default=str)
    return "mcp-" + hashlib.sha256(payload.encode()).hexdigest()[:32]
