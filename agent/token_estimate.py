"""The one offline estimate of a request's input tokens (no tokenizer for Claude ships offline).

Estimated tokens = characters ÷ 3.5 of the compact JSON of the parts the API counts as input
— `system`, `tools` and `messages` — which are exactly the content fields of a
`messages.count_tokens` request (the SDK's `count_tokens` takes the same system, tools,
messages and thinking, and no `max_tokens`). 3.5 characters per token is a rough rule for
English and JSON; the API's `usage.input_tokens` is the real count.

Not in the estimate: the tool-use system prompt the API adds whenever `tools` is sent (the
official tool-use pricing page lists it per model; public measurements give 346 tokens with
`tool_choice: auto` for recent models), and image or document blocks (Chartside sends none).
"""

from __future__ import annotations

import json
import math
from typing import Any

CHARS_PER_TOKEN = 3.5
COUNTED_FIELDS = ("system", "tools", "messages")
# per call, not in the request body: what public measurements give for recent models
TOOL_USE_SYSTEM_PROMPT_TOKENS = 346


def json_chars(value: Any) -> int:
    """Characters of the compact JSON the SDK sends (0 for a missing or empty part)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"))) if value else 0


def tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def input_chars(body: dict[str, Any]) -> int:
    return sum(json_chars(body.get(name)) for name in COUNTED_FIELDS)


def estimate_input_tokens(body: dict[str, Any]) -> int:
    """The estimate for one Messages (or count_tokens) request body."""
    return tokens(input_chars(body))
