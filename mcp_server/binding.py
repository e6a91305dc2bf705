"""Who is connected, whose record they may read, and which conversation a call belongs to.

A `Binding` is decided by the transport (the command line for stdio, the authenticated HTTP
request for streamable HTTP), never by anything a client puts in tool arguments; tool input
schemas cannot even name a patient.
"""

from __future__ import annotations

import json
import uuid
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


def call_message_id(conversation_id: str, request_id: Any) -> str:
    """The message id a tool call runs under; booking derives its idempotency key from it.

    It is the JSON-RPC request id within this session's conversation: a request delivered
    twice (a transport retry, a resumed stream, a client resending after a dropped
    connection) replays the booking it already made instead of booking again. A *new*
    request for a slot the patient already holds is refused by the booking itself ("nothing
    new was booked"), and a new request after a cancellation can book the slot again.
    """
    if request_id is None:  # not a request (no id to retry with): never deduplicated
        return f"{conversation_id}:once:{uuid.uuid4().hex}"
    return f"{conversation_id}:req:{json.dumps(request_id)}"  # JSON keeps 1 and "1" apart
