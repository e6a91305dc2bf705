"""How times read on the page: the same words the tools' answers use, so a slot in an answer,
on a button, in the confirmation and in the record panel is recognisably the same slot."""

from __future__ import annotations

import datetime as dt


def appointment_when(starts: dt.datetime | None, ends: dt.datetime | None = None) -> str:
    """'Mon 2026-11-30 09:00–09:30 UTC' (as `find_slots` words it; chat.js formats the same way)."""
    if starts is None:
        return ""
    s = starts.astimezone(dt.UTC) if starts.tzinfo else starts
    text = f"{s.strftime('%a')} {s.date().isoformat()} {s.strftime('%H:%M')}"
    if ends is not None:
        e = ends.astimezone(dt.UTC) if ends.tzinfo else ends
        text += f"–{e.strftime('%H:%M')}"
    return text + " UTC"
