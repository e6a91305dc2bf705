"""One MCP session = one conversation: its id, its citation handles, its call order.

The conversation id is what `find_slots` records offered slots under and what
`book_appointment` checks, so a slot offered in one MCP session cannot be booked from
another. Handles come from one `HandleBook` per session, so `[L3]` means the same lab row in
every result a client gets in that session, exactly as within one agent question.
"""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from tools.results import HandleBook


def new_conversation_id(transport: str) -> str:
    """A fresh, unguessable conversation id, prefixed so the audit log shows the transport."""
    return f"mcp-{transport}-{uuid.uuid4().hex}"


@dataclass
class Conversation:
    id: str
    handles: HandleBook = field(default_factory=HandleBook)
    # Tool calls of one session run one at a time: the handle book is not thread-safe, and a
    # client that pipelines find_slots and book_appointment must see them in order.
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    last_used: float = field(default_factory=time.monotonic)
    # run once, in a worker thread, before the conversation's first tool call (the HTTP
    # transport audits the session's binding there, with the conversation id)
    on_first_call: Callable[[Conversation], None] | None = None

    def first_call_done(self) -> None:
        """Blocking; called under `lock` before each tool call, does its work only once."""
        hook, self.on_first_call = self.on_first_call, None
        if hook is not None:
            hook(self)


class ConversationStore:
    """Conversations by MCP session id, for the HTTP transport (many sessions per process).

    An entry is forgotten once its session has been idle longer than `idle_timeout_s` (the
    SDK's session manager terminates idle sessions after the same period, after which the
    client must open a new session, i.e. a new conversation) or when more than
    `max_conversations` are open (the least recently used goes first).
    """

    def __init__(self, *, transport: str, idle_timeout_s: float, max_conversations: int) -> None:
        self._transport = transport
        self._idle_timeout_s = idle_timeout_s
        self._max = max_conversations
        self._by_session: OrderedDict[str, Conversation] = OrderedDict()

    def __len__(self) -> int:
        return len(self._by_session)

    def get(
        self, session_id: str, on_first_call: Callable[[Conversation], None] | None = None
    ) -> Conversation:
        now = time.monotonic()
        self._expire(now)
        conversation = self._by_session.get(session_id)
        if conversation is None:
            conversation = Conversation(id=new_conversation_id(self._transport), on_first_call=on_first_call)
            self._by_session[session_id] = conversation
            while len(self._by_session) > self._max:
                self._by_session.popitem(last=False)
        self._by_session.move_to_end(session_id)
        conversation.last_used = now
        return conversation

    def _expire(self, now: float) -> None:
        while self._by_session:
            oldest_key, oldest = next(iter(self._by_session.items()))
            if now - oldest.last_used <= self._idle_timeout_s:
                break
            del self._by_session[oldest_key]
