"""The structured form every loader produces: headings, paragraphs and list items, in order.

Loaders differ wildly (Markdown has explicit structure, a PDF only has positioned text), so
they all reduce a file to the same small vocabulary. Chunking then works on blocks, never on
raw text, which is what lets it promise "a heading starts a chunk, a paragraph is never split".
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

BlockKind = Literal["heading", "paragraph", "list_item"]


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    text: str
    level: int = 0  # heading level (1 = top); 0 for body blocks

    def __post_init__(self) -> None:
        if self.kind == "heading" and self.level < 1:
            raise ValueError("a heading needs a level >= 1")
        if not self.text.strip():
            raise ValueError(f"empty {self.kind} block")


@dataclass(frozen=True)
class DocumentMeta:
    """What a leaflet says about itself. Missing facts stay None: they are never guessed."""

    title: str
    category: str | None = None
    reviewed: dt.date | None = None
    contact: str | None = None


@dataclass(frozen=True)
class LoadedDocument:
    meta: DocumentMeta
    blocks: list[Block] = field(default_factory=list)
    format: str = "markdown"

    def body_words(self) -> int:
        return sum(len(b.text.split()) for b in self.blocks if b.kind != "heading")


class DocumentError(ValueError):
    """A document that cannot be indexed; the message names the file and the reason."""

    def __init__(self, path: object, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
