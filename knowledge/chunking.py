"""Blocks → chunks. Pure functions: no I/O, so the rules below are property-tested.

The rules, and why:

* **A heading starts a chunk.** A passage about "After your scan" must not open with the tail
  of "Before your scan"; the citation's heading path has to be true for all of its text.
* **A paragraph (or list item) is never split.** Half a sentence about fasting is worse
  than a slightly long chunk; the size is a budget the chunker aims for, and a single
  block larger than the budget becomes a chunk of its own.
* **Overlap is carried separately from new text.** A chunk may repeat the last sentences of
  the previous chunk of the same section for context (`overlap_text`), but it is stored apart
  from its own `text`, no chunk is made of overlap alone, and keyword hits and citations
  count only the new text, so the same sentence never answers twice.
* **The heading path is embedded with the passage**: "Colonoscopy › The day before › Diet"
  is what makes a short list item findable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowledge.blocks import Block

DEFAULT_BUDGET_WORDS = 140  # ~180 tokens: the model truncates at 256 (path and overlap included)
DEFAULT_OVERLAP_WORDS = 25
PATH_SEPARATOR = " › "

Measure = Callable[[str], int]


def word_count(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class Chunk:
    seq: int
    heading_path: tuple[str, ...]
    text: str  # this chunk's own text (body blocks joined by newlines)
    overlap_text: str = ""  # carried from the previous chunk of the same section, for context only
    block_count: int = 0

    @property
    def heading(self) -> str:
        return PATH_SEPARATOR.join(self.heading_path)


def block_text(block: Block) -> str:
    return f"- {block.text}" if block.kind == "list_item" else block.text


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def tail_overlap(texts: Sequence[str], overlap_words: int, measure: Measure = word_count) -> str:
    """The last whole sentences of `texts` that fit in `overlap_words` ('' when none fits)."""
    if overlap_words <= 0:
        return ""
    sentences: list[str] = []
    for text in texts:
        for line in text.split("\n"):
            sentences.extend(s for s in _SENTENCE_END.split(line.strip()) if s)
    picked: list[str] = []
    used = 0
    for sentence in reversed(sentences):
        size = measure(sentence)
        if used + size > overlap_words:
            break
        picked.append(sentence)
        used += size
    return " ".join(reversed(picked))


def chunk_blocks(
    blocks: Sequence[Block],
    *,
    budget: int = DEFAULT_BUDGET_WORDS,
    overlap: int = DEFAULT_OVERLAP_WORDS,
    measure: Measure = word_count,
    base_path: tuple[str, ...] = (),
) -> list[Chunk]:
    """Group body blocks under their heading path into chunks of about `budget` words."""
    if budget < 1:
        raise ValueError("budget must be at least 1")
    chunks: list[Chunk] = []
    path: list[str] = []
    pending: list[str] = []  # texts of this chunk's new blocks
    pending_size = 0
    carried = ""

    def flush() -> None:
        nonlocal pending, pending_size, carried
        if pending:
            chunks.append(
                Chunk(
                    seq=len(chunks),
                    heading_path=(*base_path, *path),
                    text="\n".join(pending),
                    overlap_text=carried,
                    block_count=len(pending),
                )
            )
            carried = tail_overlap(pending, overlap, measure)
        pending, pending_size = [], 0

    for block in blocks:
        if block.kind == "heading":
            flush()
            carried = ""  # never carry text across a heading
            del path[block.level - 1 :]
            path.append(block.text)
            continue
        text = block_text(block)
        size = measure(text)
        if pending and pending_size + size > budget:
            flush()
        pending.append(text)
        pending_size += size
    flush()
    return chunks


def embedding_text(chunk: Chunk, title: str | None = None) -> str:
    """What the model embeds: the heading path (with the title first), the overlap, the text."""
    path = [p for p in ((title,) if title else ()) + chunk.heading_path if p]
    # drop a top heading that only repeats the title
    deduped = [p for i, p in enumerate(path) if i == 0 or p.casefold() != path[i - 1].casefold()]
    parts = [PATH_SEPARATOR.join(deduped)] if deduped else []
    if chunk.overlap_text:
        parts.append(chunk.overlap_text)
    parts.append(chunk.text)
    return "\n".join(parts)
