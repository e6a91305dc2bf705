"""The offline planner: no API key → parse → link → plan → tools → compose a cited answer.

It is the embedded default (a fresh clone has no key), so it speaks the same event protocol
as the Claude loop and goes through the same registry, executor (structural write guard),
grounding check and guardrails. It says plainly that it is the offline mode.

The seams, one module each:

* `request` / `windows` / `parse` — the typed request: section intents, operation (latest,
  max, trend, count, exists, range, …), time window (python-dateutil), follow-up reference;
* `link` — concepts from the bound patient's own record vocabulary (an internal tool) and
  the sourced lexicon (`tools/lexicon`), fuzzy for typos; leftover words never become filters;
* `plan` — topics and tool calls (computations are tools: `summarize_labs`,
  `count_encounters`, `get_medication_changes`, `check_drug_allergies`), booking follow-ups;
* `leads` / `compose` — the conclusion first (yes/no, the number, the direction), then the
  cited rows; "no X" only for a recognised concept after the whole history was searched;
* `agent` — the event stream around them.
"""

from agent.offline.agent import OfflineAgent
from agent.offline.compose import OFFLINE_BANNER, UNKNOWN_REPLY, compose, render_result
from agent.offline.embedding import EmbeddingIntents
from agent.offline.parse import notes_query
from agent.offline.plan import Plan, Planner

__all__ = [
    "OFFLINE_BANNER",
    "UNKNOWN_REPLY",
    "EmbeddingIntents",
    "OfflineAgent",
    "Plan",
    "Planner",
    "compose",
    "notes_query",
    "render_result",
]
