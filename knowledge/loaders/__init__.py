"""File → `LoadedDocument`. Supporting a new format is one function added to `LOADERS`.

Every loader returns structured blocks plus the metadata the file carries. A file that yields
no text (a scanned PDF, an empty document) raises `DocumentError` instead of quietly
becoming a leaflet with nothing in it: a silently empty leaflet would make "no leaflet
covers this" a lie.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from knowledge.blocks import DocumentError, LoadedDocument
from knowledge.loaders.markdown import load_markdown

Loader = Callable[[Path], LoadedDocument]


def load_pdf(path: Path) -> LoadedDocument:
    """pypdf (and the crypto it imports) costs ~1 s to import: only when a PDF is read, so a
    `make run` that finds every leaflet unchanged never pays it."""
    from knowledge.loaders.pdf import load_pdf as load

    return load(path)


def load_docx(path: Path) -> LoadedDocument:
    from knowledge.loaders.docx import load_docx as load  # as load_pdf: only when one is read

    return load(path)


LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".pdf": load_pdf,
    ".docx": load_docx,
}

MIN_BODY_WORDS = 5


def supported(path: Path) -> bool:
    return path.suffix.lower() in LOADERS


def load_document(path: Path) -> LoadedDocument:
    """Load one file, refusing formats we cannot read and documents with no usable text."""
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        known = ", ".join(sorted(LOADERS))
        raise DocumentError(path, f"unsupported format {path.suffix or '(no suffix)'!r}; known: {known}")
    try:
        document = loader(path)
    except DocumentError:
        raise
    except Exception as exc:  # a library's parse error, re-said with the file's name
        raise DocumentError(path, f"could not be read as {path.suffix.lstrip('.')}: {exc}") from exc
    if document.body_words() < MIN_BODY_WORDS:
        hint = " (a scanned PDF has images, not text: it needs OCR first)" if document.format == "pdf" else ""
        raise DocumentError(path, f"no readable body text found{hint}; not indexed")
    return document
