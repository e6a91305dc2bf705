"""What each kind of account may do: the one table every door (web API, pages, MCP, tools) reads.

* **patients** and **clinicians** read the records they are bound to, ask, use the web
  page and MCP, and book or cancel appointments (writes judged by the wall clock);
* **evaluators** ask (and pin "now" for reproducible answers), and since an answer about
  medications *is* the medication list, they may also open the record rows answers cite:
  pretending otherwise was a restriction that asking bypassed. They never write, unless
  their account is marked as an evaluation sandbox's (`chartside users add --role evaluator
  --sandbox-writes`): then bookings are allowed and judged by the pinned "now", because the
  evaluation harness snapshots and undoes them. Evaluators have no web page and no MCP.

Pure functions of (role, sandbox flag), so the decision is made here once and the callers
only ask; `tools.registry` refuses write tools for a scope whose write mode is "none".
"""

from __future__ import annotations

from typing import Literal

WriteMode = Literal["live", "sandbox", "none"]

READ_RECORD = "read_record"  # the side panel and opening cited rows
ASK = "ask"  # questions and their answer streams
PAGES = "pages"  # the web page (login form, chat)
PIN_NOW = "pin_now"  # fix "now" for reproducible evaluation answers
MCP = "mcp"  # the tools over MCP (stdio and /mcp)
WRITE = "write"  # book and cancel appointments

_BY_ROLE: dict[str, frozenset[str]] = {
    "patient": frozenset({READ_RECORD, ASK, PAGES, MCP, WRITE}),
    "clinician": frozenset({READ_RECORD, ASK, PAGES, MCP, WRITE}),
    "evaluator": frozenset({READ_RECORD, ASK, PIN_NOW}),
}


def capabilities_for(role: str, *, evaluation_sandbox: bool = False) -> frozenset[str]:
    """Everything an account of `role` may do; unknown roles may do nothing."""
    granted = _BY_ROLE.get(role, frozenset())
    if role == "evaluator" and evaluation_sandbox:
        granted |= {WRITE}
    return granted


def write_mode_for(role: str, *, evaluation_sandbox: bool = False) -> WriteMode:
    """How tool writes are treated for this account: live (wall clock), sandbox (pinned clock,
    undone by the harness) or none (refused)."""
    if WRITE not in capabilities_for(role, evaluation_sandbox=evaluation_sandbox):
        return "none"
    return "sandbox" if role == "evaluator" else "live"
