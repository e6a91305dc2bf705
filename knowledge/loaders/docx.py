"""Word .docx: heading styles give the structure (python-docx)."""

from __future__ import annotations

import re
from pathlib import Path

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from knowledge.blocks import Block, LoadedDocument
from knowledge.loaders.common import meta_from_blocks, strip_bullet

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)


def paragraph_block(paragraph: Paragraph) -> tuple[Block | None, str | None]:
    """A paragraph → (block, title text if it is the document's Title style)."""
    text = " ".join(paragraph.text.split())
    if not text:
        return None, None
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    if style.lower() == "title":
        return None, text
    heading = _HEADING_STYLE.match(style)
    if heading:
        return Block("heading", text, level=int(heading.group(1))), None
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None
    bulleted, stripped = strip_bullet(text)
    if style.lower().startswith("list") or numbered or bulleted:
        return Block("list_item", stripped or text), None
    return Block("paragraph", text), None


def table_blocks(table: Table) -> list[Block]:
    """Each row as one paragraph, 'cell | cell', so a table's facts stay together and searchable."""
    blocks = []
    for row in table.rows:
        cells = []
        for cell in row.cells:
            value = " ".join(cell.text.split())
            if value and (not cells or cells[-1] != value):  # merged cells repeat their text
                cells.append(value)
        if cells:
            blocks.append(Block("paragraph", " | ".join(cells)))
    return blocks


def load_docx(path: Path) -> LoadedDocument:
    document = docx.Document(str(path))
    blocks: list[Block] = []
    title: str | None = None
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            block, found_title = paragraph_block(item)
            title = title or found_title
            if block is not None:
                blocks.append(block)
        elif isinstance(item, Table):
            blocks.extend(table_blocks(item))
    props = document.core_properties
    meta = meta_from_blocks(
        blocks,
        fallback_title=path.stem.replace("-", " ").capitalize(),
        title=(props.title or "").strip() or title,
        category=(props.category or "").strip() or None,
    )
    return LoadedDocument(meta=meta, blocks=blocks, format="docx")
