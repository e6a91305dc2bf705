"""PDF: rebuild the paragraphs and headings a PDF threw away (pypdf gives positioned text only).

A PDF stores lines of glyphs at coordinates; "paragraph" and "heading" are gone. We get them
back from geometry and type:

* lines = text fragments sharing a baseline, left to right;
* running headers/footers = the same line (digits ignored) on most pages → dropped;
* headings = lines set clearly larger than the body size (levels by size, largest = 1), or
  short bold lines at body size (lowest level);
* paragraphs = body lines joined while the gap to the next line is an ordinary line gap;
  a wider gap, a first-line indent, a bullet, a heading, or a sentence that ends on a
  short line ends one ("Reviewed:"/"Contact:" lines stand alone); a paragraph that
  runs off the bottom of a page continues on the next when it did not end a sentence;
* words hyphenated at a line end are joined again.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pypdf

from knowledge.blocks import Block, DocumentError, LoadedDocument
from knowledge.loaders.common import meta_from_blocks, parse_date, strip_bullet

HEADING_SIZE_RATIO = 1.15
PARAGRAPH_GAP_RATIO = 1.35
SHORT_LINE_RATIO = 0.6  # a sentence ending on a line this much shorter than a full one ends its paragraph
META_LINE = re.compile(r"^(?:last\s+)?(?:reviewed|review date|contact|category)\s*:", re.IGNORECASE)


@dataclass
class Line:
    page: int
    y: float
    x: float
    size: float
    bold: bool
    text: str


def _fragments(page: pypdf.PageObject, page_no: int) -> list[Line]:
    found: list[Line] = []

    def visit(text, cm, tm, font_dict, font_size):  # pypdf visitor signature
        if not text or not text.strip():
            return
        scale_y = abs(tm[3] * cm[3]) or 1.0
        y = tm[5] * cm[3] + cm[5]
        x = tm[4] * cm[0] + cm[4]
        font = str((font_dict or {}).get("/BaseFont", ""))
        bold = bool(re.search(r"bold|black|heavy|semibold", font, re.IGNORECASE))
        found.append(
            Line(page_no, round(y, 1), x, round(font_size * scale_y, 1), bold, text.replace("\n", " "))
        )

    page.extract_text(visitor_text=visit)
    return found


def _lines(fragments: list[Line]) -> list[Line]:
    """Fragments on one baseline (within 1.5 pt) → one line, in reading order."""
    lines: list[Line] = []
    for frag in sorted(fragments, key=lambda f: (f.page, -f.y, f.x)):
        last = lines[-1] if lines else None
        if last and last.page == frag.page and abs(last.y - frag.y) <= 1.5:
            joiner = "" if last.text.endswith(" ") or frag.text.startswith(" ") else " "
            last.text = last.text + joiner + frag.text
            last.size = max(last.size, frag.size)
            last.bold = last.bold and frag.bold
        else:
            lines.append(Line(frag.page, frag.y, frag.x, frag.size, frag.bold, frag.text))
    for line in lines:
        line.text = " ".join(line.text.split())
    return [line for line in lines if line.text]


def _drop_running_lines(lines: list[Line], pages: int) -> list[Line]:
    """Headers and footers repeat on most pages (page numbers differ: digits are ignored)."""
    if pages < 2:
        return lines
    key = lambda line: re.sub(r"\d+", "#", line.text.lower())  # noqa: E731
    pages_with = Counter()
    for k, _page in {(key(line), line.page) for line in lines}:
        pages_with[k] += 1
    repeated = {k for k, n in pages_with.items() if n >= max(2, (pages + 1) // 2)}
    return [
        line
        for line in lines
        if key(line) not in repeated and not re.fullmatch(r"(page\s*)?\d+", line.text, re.I)
    ]


def _dehyphenate(left: str, right: str) -> str:
    if re.search(r"[a-z]-$", left) and right[:1].islower():
        return left[:-1] + right
    return f"{left} {right}"


def _usual_gap(gaps: list[float]) -> float:
    """The ordinary distance between two lines of one paragraph: the most common gap (ties → the
    smaller). A median would be pulled up by paragraph breaks in short documents."""
    counts = Counter(round(g * 2) / 2 for g in gaps)
    top = max(counts.values())
    return min(g for g, n in counts.items() if n == top)


def _heading_levels(lines: list[Line], body_size: float) -> dict[float, int]:
    sizes = sorted({line.size for line in lines if line.size >= body_size * HEADING_SIZE_RATIO}, reverse=True)
    return {size: i + 1 for i, size in enumerate(sizes)}


def _is_bold_heading(line: Line, body_size: float) -> bool:
    return line.bold and len(line.text.split()) <= 12 and not line.text.endswith((".", ",", ";"))


def lines_to_blocks(lines: list[Line]) -> list[Block]:
    if not lines:
        return []
    weights = Counter()
    for line in lines:
        weights[line.size] += len(line.text)
    body_size = weights.most_common(1)[0][0]
    levels = _heading_levels(lines, body_size)
    bold_level = len(levels) + 1
    body = [line for line in lines if line.size not in levels]
    gaps = [a.y - b.y for a, b in itertools.pairwise(body) if a.page == b.page and a.y > b.y]
    line_gap = _usual_gap(gaps) if gaps else body_size * 1.2
    left_margin = min(line.x for line in body) if body else 0.0
    lengths = sorted(len(line.text) for line in body)
    full_line = lengths[int(len(lengths) * 0.9)] if lengths else 0

    blocks: list[Block] = []
    current: dict | None = None  # {"kind", "text", "line"}

    def flush() -> None:
        nonlocal current
        if current and current["text"].strip():
            blocks.append(Block(current["kind"], current["text"].strip()))
        current = None

    for line in lines:
        if line.size in levels or (line.size == body_size and _is_bold_heading(line, body_size)):
            flush()
            level = levels.get(line.size, bold_level)
            if blocks and blocks[-1].kind == "heading" and blocks[-1].level == level and current is None:
                prev = blocks.pop()  # a heading wrapped over two lines
                blocks.append(Block("heading", f"{prev.text} {line.text}", level=level))
            else:
                blocks.append(Block("heading", line.text, level=level))
            continue
        is_bullet, text = strip_bullet(line.text)
        if current is not None:
            prev = current["line"]
            same_page = prev.page == line.page
            gap = prev.y - line.y if same_page else None
            continues = (
                not is_bullet
                and (
                    (same_page and gap is not None and 0 < gap <= line_gap * PARAGRAPH_GAP_RATIO)
                    or (not same_page and not current["text"].rstrip().endswith((".", "!", "?", ":")))
                )
                and not (current["kind"] == "paragraph" and line.x > left_margin + body_size and same_page)
                and not META_LINE.match(line.text)
                and not (
                    len(prev.text) < full_line * SHORT_LINE_RATIO and prev.text.endswith((".", "!", "?", ":"))
                )
            )
            if continues:
                current["text"] = _dehyphenate(current["text"], text)
                current["line"] = line
                continue
            flush()
        current = {"kind": "list_item" if is_bullet else "paragraph", "text": text, "line": line}
    flush()
    return blocks


def load_pdf(path: Path) -> LoadedDocument:
    try:
        reader = pypdf.PdfReader(str(path))
    except pypdf.errors.PdfReadError as exc:
        raise DocumentError(path, f"not a readable PDF: {exc}") from exc
    if reader.is_encrypted:
        raise DocumentError(path, "the PDF is encrypted; export an unprotected copy")
    fragments: list[Line] = []
    for number, page in enumerate(reader.pages):
        fragments.extend(_fragments(page, number))
    lines = _drop_running_lines(_lines(fragments), len(reader.pages))
    blocks = lines_to_blocks(lines)
    info = reader.metadata or {}
    meta = meta_from_blocks(
        blocks,
        fallback_title=path.stem.replace("-", " ").capitalize(),
        title=(str(info.get("/Title") or "").strip() or None),
        category=(str(info.get("/Category") or info.get("/Subject") or "").strip() or None),
    )
    if meta.reviewed is None and info.get("/Reviewed"):
        meta = type(meta)(meta.title, meta.category, parse_date(str(info["/Reviewed"])), meta.contact)
    if meta.contact is None and info.get("/Contact"):
        meta = type(meta)(meta.title, meta.category, meta.reviewed, str(info["/Contact"]))
    return LoadedDocument(meta=meta, blocks=blocks, format="pdf")
