"""Markdown leaflets: YAML front matter + CommonMark body (markdown-it-py, already a rich dependency)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt

from knowledge.blocks import Block, DocumentError, DocumentMeta, LoadedDocument

REQUIRED_FIELDS = ("title", "category", "reviewed", "contact")


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """`---\\nyaml\\n---\\nbody` → (fields, body). No front matter → ({}, text)."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            fields = yaml.safe_load("".join(lines[1:i])) or {}
            if not isinstance(fields, dict):
                raise ValueError("front matter is not a mapping of fields")
            return fields, "".join(lines[i + 1 :])
    raise ValueError("front matter opened with '---' but never closed")


def markdown_blocks(body: str) -> list[Block]:
    """Headings, paragraphs and list items, in reading order, with inline markup stripped."""
    tokens = MarkdownIt("commonmark").parse(body)
    blocks: list[Block] = []
    pending: tuple[str, int] | None = None  # the block the next inline token belongs to
    list_depth = 0
    for token in tokens:
        if token.type == "heading_open":
            pending = ("heading", int(token.tag[1]))
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif token.type == "paragraph_open":
            pending = ("list_item" if list_depth else "paragraph", 0)
        elif token.type == "inline" and pending is not None:
            text = " ".join(plain_text(token).split())
            if text:
                blocks.append(Block(kind=pending[0], text=text, level=pending[1]))  # type: ignore[arg-type]
            pending = None
    return blocks


def plain_text(inline_token: Any) -> str:
    parts = []
    for child in inline_token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _date(value: Any, path: Path) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError as exc:
        raise DocumentError(path, f"front matter 'reviewed' is not a date (YYYY-MM-DD): {value!r}") from exc


def load_markdown(path: Path) -> LoadedDocument:
    try:
        fields, body = split_front_matter(path.read_text(encoding="utf-8"))
    except (ValueError, yaml.YAMLError) as exc:
        raise DocumentError(path, f"bad front matter: {exc}") from exc
    blocks = markdown_blocks(body)
    title = fields.get("title")
    if not title:
        headings = [b.text for b in blocks if b.kind == "heading"]
        title = headings[0] if headings else path.stem.replace("-", " ").capitalize()
    meta = DocumentMeta(
        title=str(title).strip(),
        category=fields.get("category"),
        reviewed=_date(fields.get("reviewed"), path),
        contact=fields.get("contact"),
    )
    return LoadedDocument(meta=meta, blocks=blocks, format="markdown")
