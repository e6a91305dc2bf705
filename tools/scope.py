"""Who is asking, about which patient. Built only by the server or the CLI, never by a model.

Tools receive a `PatientScope` through their context; no tool input has a patient field, so a
model cannot choose (or even name) the patient whose record a tool reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from records.capabilities import WriteMode, write_mode_for

Role = Literal["patient", "clinician", "evaluator"]


class PatientScope(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    patient_id: str = Field(min_length=1)
    role: Role
    actor: str = Field(min_length=1, description="Account name (or 'cli:<user>') for the audit log.")
    conversation_id: str = Field(min_length=1)
    message_id: str | None = Field(
        default=None, description="The triggering message; booking derives its idempotency key from it."
    )
    writes: WriteMode | None = Field(
        default=None,
        description="live | sandbox | none; unset: what records.capabilities gives the role "
        "(evaluators: none).",
    )

    @property
    def write_mode(self) -> WriteMode:
        """Whether write tools may run, and by which clock (tools.registry enforces it)."""
        return self.writes if self.writes is not None else write_mode_for(self.role)
