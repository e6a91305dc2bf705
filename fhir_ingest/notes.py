"""Clinical note text from FHIR attachments (DocumentReference.content, DiagnosticReport.presentedForm).

The text is base64 in `attachment.data`; its character set comes from `contentType`
(`text/plain; charset=utf-8`), defaulting to UTF-8. Line endings are normalised to `\\n`
and a byte-order mark is dropped, so the same note written on Windows and on Linux hashes
the same — which is how a DiagnosticReport's copy of a note is recognised and not stored
twice. Anything else about the text is kept exactly (citations point into it).

Only plain-text types are decoded; a PDF or image attachment is reported, not guessed at.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import hashlib
from dataclasses import dataclass

from fhir_ingest.fields import Fields

TEXT_MEDIA_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
DEFAULT_CHARSET = "utf-8"


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    sha256: str
    content_type: str | None


@dataclass(frozen=True, slots=True)
class NotText:
    """An attachment that carries no decodable plain text (why, for the warning)."""

    reason: str


def parse_content_type(content_type: str | None) -> tuple[str | None, str]:
    """`text/plain; charset=UTF-8` → (`text/plain`, `utf-8`)."""
    if not content_type:
        return None, DEFAULT_CHARSET
    media, *params = (p.strip() for p in content_type.split(";"))
    charset = DEFAULT_CHARSET
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip('"').lower()
    return media.lower() or None, charset


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR → LF; a leading byte-order mark is removed."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Synthea writes each note twice, base64 for base64: as the DocumentReference's content and as
# its DiagnosticReport's presentedForm. Decoding is a pure function of (contentType, data), so
# the second copy is answered from here (what fails is raised, never remembered). Emptied per
# bundle (`clear_cache`, from `transform_bundle`) so memory stays one bundle's notes.
_decoded: dict[tuple[str | None, str], DecodedText | NotText] = {}


def clear_cache() -> None:
    _decoded.clear()


class AttachmentError(ValueError):
    """An attachment whose text cannot be decoded: `field` (`data`, `contentType`) and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def decode_attachment(att: Fields) -> DecodedText | NotText:
    """Decode one Attachment. Bad base64 or bytes that do not match the charset are errors."""
    content_type = att.string("contentType")
    data = att.string("data")
    try:
        return decode_text(content_type, data, att.has("url"))
    except AttachmentError as exc:
        raise att.error(exc.field, str(exc)) from None


def decode_text(content_type: str | None, data: str | None, has_url: bool) -> DecodedText | NotText:
    """`decode_attachment` on an attachment's fields, read already; raises `AttachmentError`."""
    if data is None:
        return NotText("the attachment has no inline data" + (" (only a url)" if has_url else ""))
    key = (content_type, data)
    known = _decoded.get(key)
    if known is None:
        known = _decoded[key] = _decode(content_type, data)
    return known


def _decode(content_type: str | None, data: str) -> DecodedText | NotText:
    media, charset = parse_content_type(content_type)
    if media is not None and media not in TEXT_MEDIA_TYPES:
        return NotText(f"contentType {media} is not plain text")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        try:  # base64Binary may be wrapped over lines
            raw = base64.b64decode("".join(data.split()), validate=True)
        except (binascii.Error, ValueError):
            raise AttachmentError("data", "is not valid base64") from None
    try:
        codecs.lookup(charset)
    except LookupError:
        raise AttachmentError("contentType", f"unknown charset {charset!r}") from None
    try:
        text = raw.decode(charset)
    except UnicodeDecodeError as exc:
        raise AttachmentError("data", f"bytes are not valid {charset} (at byte {exc.start})") from None
    text = normalize_newlines(text)
    return DecodedText(text=text, sha256=text_sha256(text), content_type=content_type)
