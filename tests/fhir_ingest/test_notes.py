"""Note text: base64 decoded with the declared charset, line endings normalised, bad input named."""

from __future__ import annotations

import base64

import pytest

from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields
from fhir_ingest.notes import (
    DecodedText,
    NotText,
    decode_attachment,
    normalize_newlines,
    parse_content_type,
    text_sha256,
)


def attachment(data: str | None, content_type: str | None = "text/plain; charset=utf-8", **extra) -> Fields:
    value = {"contentType": content_type, "data": data, **extra}
    return Fields(
        {k: v for k, v in value.items() if v is not None},
        7,
        "resource.content[0].attachment",
        "DocumentReference/d1",
    )


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def test_utf8_note_with_windows_line_endings():
    decoded = decode_attachment(attachment(b64("Plan:\r\n- café\r\n".encode())))
    assert isinstance(decoded, DecodedText)
    assert decoded.text == "Plan:\n- café\n"
    assert decoded.sha256 == text_sha256("Plan:\n- café\n")


def test_charset_comes_from_content_type():
    decoded = decode_attachment(attachment(b64("Zoë".encode("latin-1")), "text/plain; charset=ISO-8859-1"))
    assert isinstance(decoded, DecodedText) and decoded.text == "Zoë"


def test_same_text_same_hash_whatever_the_line_endings_or_bom():
    crlf = decode_attachment(attachment(b64(b"\xef\xbb\xbfa\r\nb\rc")))
    lf = decode_attachment(attachment(b64(b"a\nb\nc")))
    assert isinstance(crlf, DecodedText) and isinstance(lf, DecodedText)
    assert crlf.text == lf.text == "a\nb\nc" and crlf.sha256 == lf.sha256


def test_base64_wrapped_over_lines_is_accepted():
    data = b64(b"hello world, this is a note")
    wrapped = data[:10] + "\n" + data[10:]
    decoded = decode_attachment(attachment(wrapped))
    assert isinstance(decoded, DecodedText) and decoded.text == "hello world, this is a note"


def test_invalid_base64_names_the_field():
    with pytest.raises(BundleError) as caught:
        decode_attachment(attachment("not base64!!"))
    assert caught.value.entry == 7
    assert caught.value.field == "resource.content[0].attachment.data"
    assert "base64" in caught.value.message


def test_bytes_that_do_not_match_the_charset_are_an_error():
    with pytest.raises(BundleError, match="not valid utf-8"):
        decode_attachment(attachment(b64(b"\xff\xfe\xfa")))


def test_unknown_charset_is_an_error():
    with pytest.raises(BundleError) as caught:
        decode_attachment(attachment(b64(b"x"), "text/plain; charset=klingon-8"))
    assert caught.value.field.endswith("attachment.contentType")


def test_non_text_attachments_are_not_guessed_at():
    assert isinstance(decode_attachment(attachment(b64(b"%PDF-1.4"), "application/pdf")), NotText)
    assert "only a url" in decode_attachment(attachment(None, url="http://x/y")).reason


def test_helpers():
    assert parse_content_type('text/plain; charset="UTF-8"') == ("text/plain", "utf-8")
    assert parse_content_type(None) == (None, "utf-8")
    assert normalize_newlines("a\r\n\r\nb\r") == "a\n\nb\n"


def test_a_repeated_attachment_is_decoded_once_and_an_error_each_time(monkeypatch):
    # Synthea writes each note twice (DocumentReference and DiagnosticReport, same base64)
    from fhir_ingest import notes

    notes.clear_cache()
    calls = []
    real = notes.base64.b64decode
    monkeypatch.setattr(notes.base64, "b64decode", lambda *a, **k: calls.append(1) or real(*a, **k))
    text = b64(b"Plan: rest")
    first = decode_attachment(attachment(text))
    second = decode_attachment(attachment(text))
    assert first == second and first.text == "Plan: rest" and len(calls) == 1
    # what fails is never remembered: each bad copy is refused, naming its own place
    for entry in (3, 9):
        bad = Fields({"data": "not base64!!"}, entry, "resource.presentedForm[0]", "DiagnosticReport/r")
        with pytest.raises(BundleError) as caught:
            decode_attachment(bad)
        assert caught.value.entry == entry
    calls.clear()
    assert decode_attachment(attachment(text)) == first and calls == []  # still remembered
    notes.clear_cache()  # a new bundle
    assert decode_attachment(attachment(text)) == first and len(calls) == 1
