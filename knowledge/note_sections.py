"""Clinical note text → blocks, by the note's own sections.

Synthea notes look like::

    2022-03-23

    # Chief Complaint
    No complaints.

    # History of Present Illness
    Lela622
     is a 40 year-old non-hispanic white female. Patient has a history of ...

    # Assessment and Plan
    Patient is presenting with ...

    ## Plan
    The following procedures were conducted:
    - insertion of intrauterine contraceptive device

Each `#` heading is a section ("## Plan" a subsection of "Assessment and Plan"); lines within
a paragraph are wrapped arbitrarily (a name alone on a line), so they are joined; "- " lines
are list items. A leading date line is dropped: the note's date is stored with the note.
"""

from __future__ import annotations

import re

from knowledge.blocks import Block

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_DATE_LINE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def note_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            joined = " ".join(" ".join(paragraph).split())
            if joined:
                blocks.append(Block("paragraph", joined))
            paragraph.clear()

    seen_heading = False
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        heading = _HEADING.match(line)
        if heading:
            flush()
            blocks.append(Block("heading", heading.group(2), level=len(heading.group(1))))
            seen_heading = True
        elif not line:
            flush()
        elif line.startswith(("- ", "* ")):
            flush()
            if line[2:].strip():
                blocks.append(Block("list_item", line[2:].strip()))
        elif not seen_heading and _DATE_LINE.match(line):
            continue
        else:
            paragraph.append(line)
    flush()
    return blocks
