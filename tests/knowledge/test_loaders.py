"""Loaders: Markdown, PDF and Word reduce to the same blocks; unreadable documents are refused."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import docx
import pytest
from fpdf import FPDF
from fpdf.enums import XPos, YPos

from knowledge.blocks import Block, DocumentError
from knowledge.loaders import load_document

LONG = (
    "An MRI scanner uses a strong magnet and radio waves to make detailed pictures of the inside of "
    "your body. It does not use X-rays, and most scans take between fifteen and sixty minutes to complete."
)


def _pdf(header: bool = True) -> FPDF:
    pdf = FPDF()
    pdf.set_auto_page_break(True, margin=20)
    if header:

        def header_fn():
            pdf.set_font("Helvetica", "", 8)
            pdf.cell(
                0, 5, "Riverside General Hospital - patient information", new_x=XPos.LMARGIN, new_y=YPos.NEXT
            )
            pdf.ln(3)

        def footer_fn():
            pdf.set_y(-12)
            pdf.set_font("Helvetica", "", 8)
            pdf.cell(0, 5, f"Page {pdf.page_no()}")

        pdf.header = header_fn  # type: ignore[method-assign]
        pdf.footer = footer_fn  # type: ignore[method-assign]
    return pdf


def _write(pdf: FPDF, size: float, style: str, text: str, height: float, gap: float = 0) -> None:
    pdf.set_font("Helvetica", style, size)
    pdf.multi_cell(0, height, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    if gap:
        pdf.ln(gap)


def test_pdf_paragraphs_headings_and_lists_are_rebuilt(tmp_path: Path):
    pdf = _pdf(header=False)
    pdf.add_page()
    _write(pdf, 20, "B", "Having an MRI scan", 10, 3)
    _write(pdf, 11, "", LONG, 6, 4)
    _write(pdf, 11, "", "Tell us if you might be pregnant.", 6, 4)
    _write(pdf, 14, "B", "Before your scan", 8, 2)
    _write(
        pdf, 11, "", "- Remove all metal objects.\n- Tell us about any implants, such as a pacemaker.", 6, 4
    )
    _write(pdf, 11, "", "Reviewed: 2025-04-15", 6)
    _write(pdf, 11, "", "Contact: Radiology, 555-0132", 6)
    path = tmp_path / "mri.pdf"
    pdf.output(str(path))

    document = load_document(path)
    assert document.format == "pdf"
    assert document.blocks[:5] == [
        Block("heading", "Having an MRI scan", level=1),
        Block("paragraph", LONG),  # three wrapped lines → one paragraph again
        Block("paragraph", "Tell us if you might be pregnant."),
        Block("heading", "Before your scan", level=2),
        Block("list_item", "Remove all metal objects."),
    ]
    assert document.blocks[5] == Block("list_item", "Tell us about any implants, such as a pacemaker.")
    assert document.meta.title == "Having an MRI scan"
    assert document.meta.reviewed == dt.date(2025, 4, 15)
    assert document.meta.contact == "Radiology, 555-0132"


def test_pdf_paragraph_running_over_a_page_break_is_joined(tmp_path: Path):
    pdf = _pdf()
    pdf.add_page()
    _write(pdf, 18, "B", "Colonoscopy preparation", 10, 2)
    for i in range(7):
        _write(pdf, 11, "", f"Filler paragraph {i}. " + LONG, 6, 4)
    pdf.set_font("Helvetica", "", 11)
    # push the start of the last paragraph near the bottom so it wraps onto page 2
    pdf.set_y(pdf.h - 20 - 8)
    _write(
        pdf,
        11,
        "",
        "The clear liquid diet starts the day before your test and includes water, clear broth and apple juice, but nothing red or purple and nothing with milk in it at all.",
        6,
    )
    path = tmp_path / "colonoscopy.pdf"
    pdf.output(str(path))
    assert len(pdf.pages) == 2

    document = load_document(path)
    assert all(
        "Page" not in b.text and "Riverside General" not in b.text for b in document.blocks
    )  # running lines
    last = document.blocks[-1]
    assert last.kind == "paragraph"
    assert last.text.startswith("The clear liquid diet starts") and last.text.endswith(
        "nothing with milk in it at all."
    )


def test_pdf_words_hyphenated_at_line_end_are_joined(tmp_path: Path):
    pdf = _pdf(header=False)
    pdf.add_page()
    _write(pdf, 11, "", "Take your anti-", 6)
    _write(pdf, 11, "", "coagulant at the same time every day, and keep a medi-", 6)
    _write(pdf, 11, "", "cation list with you.", 6)
    path = tmp_path / "hyphen.pdf"
    pdf.output(str(path))
    assert load_document(path).blocks == [
        Block(
            "paragraph",
            "Take your anticoagulant at the same time every day, and keep a medication list with you.",
        )
    ]


def test_pdf_without_text_is_reported_not_indexed(tmp_path: Path):
    from PIL import Image

    image = tmp_path / "scan.png"
    Image.new("RGB", (200, 280), "white").save(image)
    pdf = FPDF()
    pdf.add_page()
    pdf.image(str(image), x=10, y=10, w=180)
    path = tmp_path / "scanned.pdf"
    pdf.output(str(path))
    with pytest.raises(DocumentError, match=r"scanned\.pdf: no readable body text.*OCR"):
        load_document(path)


def test_corrupt_pdf_is_named(tmp_path: Path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    with pytest.raises(DocumentError, match=r"broken\.pdf"):
        load_document(path)


def test_docx_heading_styles_lists_tables_and_metadata(tmp_path: Path):
    document = docx.Document()
    document.core_properties.category = "Tests and procedures"
    document.add_paragraph("Your lipid panel", style="Title")
    document.add_heading("What the test measures", level=1)
    document.add_paragraph("A lipid panel measures the fats in your blood.")
    document.add_paragraph("LDL cholesterol", style="List Bullet")
    document.add_paragraph("HDL cholesterol", style="List Bullet")
    document.add_heading("Do I need to fast?", level=2)
    document.add_paragraph("Most people no longer need to fast.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Test", "Fasting"
    table.cell(1, 0).text, table.cell(1, 1).text = "Lipid panel", "Usually not"
    document.add_paragraph("Reviewed: 20 January 2025")
    document.add_paragraph("Contact: Blood Test Centre, 555-0130")
    path = tmp_path / "lipid-panel.docx"
    document.save(str(path))

    loaded = load_document(path)
    assert loaded.format == "docx"
    assert loaded.meta.title == "Your lipid panel"
    assert loaded.meta.category == "Tests and procedures"
    assert loaded.meta.reviewed == dt.date(2025, 1, 20)
    assert loaded.meta.contact == "Blood Test Centre, 555-0130"
    assert loaded.blocks[:7] == [
        Block("heading", "What the test measures", level=1),
        Block("paragraph", "A lipid panel measures the fats in your blood."),
        Block("list_item", "LDL cholesterol"),
        Block("list_item", "HDL cholesterol"),
        Block("heading", "Do I need to fast?", level=2),
        Block("paragraph", "Most people no longer need to fast."),
        Block("paragraph", "Test | Fasting"),
    ]


def test_empty_docx_is_reported(tmp_path: Path):
    path = tmp_path / "empty.docx"
    document = docx.Document()
    document.add_heading("Only a heading", level=1)
    document.save(str(path))
    with pytest.raises(DocumentError, match=r"empty\.docx: no readable body text"):
        load_document(path)


def test_markdown_front_matter_and_structure(tmp_path: Path):
    path = tmp_path / "statins.md"
    path.write_text(
        "---\ntitle: Statins\ncategory: Medicines\nreviewed: 2025-01-20\ncontact: Medicines line, 555-0121\n---\n\n"
        "# Statins\n\nStatins lower **LDL** cholesterol made by\nyour liver.\n\n## Side effects\n\n"
        "- Muscle aches\n- Headache\n\n1. Tell your doctor.\n",
        encoding="utf-8",
    )
    loaded = load_document(path)
    assert loaded.meta.title == "Statins" and loaded.meta.reviewed == dt.date(2025, 1, 20)
    assert loaded.meta.contact == "Medicines line, 555-0121"
    assert loaded.blocks == [
        Block("heading", "Statins", level=1),
        Block("paragraph", "Statins lower LDL cholesterol made by your liver."),
        Block("heading", "Side effects", level=2),
        Block("list_item", "Muscle aches"),
        Block("list_item", "Headache"),
        Block("list_item", "Tell your doctor."),
    ]


def test_markdown_with_bad_review_date_names_file_and_field(tmp_path: Path):
    path = tmp_path / "bad.md"
    path.write_text("---\ntitle: X\nreviewed: last spring\n---\n\nSome text that is long enough.\n")
    with pytest.raises(DocumentError, match=r"bad\.md: front matter 'reviewed'"):
        load_document(path)


def test_unclosed_front_matter_is_reported(tmp_path: Path):
    path = tmp_path / "open.md"
    path.write_text("---\ntitle: X\n\nbody text here and more\n")
    with pytest.raises(DocumentError, match=r"open\.md: bad front matter"):
        load_document(path)


def test_unsupported_format_is_refused(tmp_path: Path):
    path = tmp_path / "leaflet.rtf"
    path.write_text("{\\rtf1 hello}")
    with pytest.raises(DocumentError, match=r"unsupported format '\.rtf'"):
        load_document(path)
