"""Metadata that PDFs and Word files print in their text rather than in a front matter.

Hospital leaflets end with lines such as "Reviewed: 2025-03-01" and "Contact: Endoscopy Unit,
555-0131". Word and PDF have no standard field for either, so we read these lines (they stay
in the body too: a phone number must remain searchable).
"""

from __future__ import annotations

import datetime as dt
import re

from knowledge.blocks import Block, DocumentMeta

_FIELD = re.compile(r"^(?:last\s+)?(reviewed|review date|contact|category)\s*:\s*(.+)$", re.IGNORECASE)


def parse_date(text: str) -> dt.date | None:
    """ISO dates, '1 March 2025', 'March 1, 2025'; anything else → None (never guessed)."""
    text = text.strip().rstrip(".")
    for fmt in ("%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%d %b %Y", "%b %d, %Y"):
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def meta_from_blocks(
    blocks: list[Block],
    fallback_title: str,
    title: str | None = None,
    category: str | None = None,
) -> DocumentMeta:
    reviewed: dt.date | None = None
    contact: str | None = None
    for block in blocks:
        if block.kind == "heading":
            continue
        match = _FIELD.match(block.text.strip())
        if not match:
            continue
        key, value = match.group(1).lower(), match.group(2).strip()
        if key in ("reviewed", "review date") and reviewed is None:
            reviewed = parse_date(value)
        elif key == "contact" and contact is None:
            contact = value
        elif key == "category" and category is None:
            category = value
    if not title:
        headings = [b.text for b in blocks if b.kind == "heading"]
        title = headings[0] if headings else fallback_title
    return DocumentMeta(title=title.strip(), category=category, reviewed=reviewed, contact=contact)


_BULLET = re.compile(r"^\s*(?:[•●▪◦‣∙·\-–*]|\d{1,2}[.)])\s+")


def strip_bullet(text: str) -> tuple[bool, str]:
    """('• Bring your card') → (True, 'Bring your card')."""
    match = _BULLET.match(text)
    if match:
        return True, text[match.end() :].strip()
    return False, text
