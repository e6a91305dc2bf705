"""Clinical notes are chunked by their own sections."""

from __future__ import annotations

import base64
import json
import re

import pytest

from knowledge.blocks import Block
from knowledge.note_index import note_chunks_for
from knowledge.note_sections import note_blocks
from tests.knowledge.helpers import sample_note_bundles

NOTE = """2022-03-23

# Chief Complaint
No complaints.

# History of Present Illness
Lela622
 is a 40 year-old non-hispanic white female. Patient has a history of streptococcal sore throat (disorder).

# Social History
Patient is married. Patient is an active smoker.
 Patient identifies as heterosexual.

Patient currently has Anthem.

# Medications
penicillin v potassium 500 mg oral tablet; errin 28 day pack

# Assessment and Plan


## Plan

The following procedures were conducted:
- insertion of intrauterine contraceptive device
"""


def test_synthea_layout_becomes_sections_paragraphs_and_list_items():
    assert note_blocks(NOTE) == [
        Block("heading", "Chief Complaint", level=1),
        Block("paragraph", "No complaints."),
        Block("heading", "History of Present Illness", level=1),
        Block(
            "paragraph",
            "Lela622 is a 40 year-old non-hispanic white female. Patient has a history of streptococcal sore "
            "throat (disorder).",
        ),
        Block("heading", "Social History", level=1),
        Block(
            "paragraph",
            "Patient is married. Patient is an active smoker. Patient identifies as heterosexual.",
        ),
        Block("paragraph", "Patient currently has Anthem."),
        Block("heading", "Medications", level=1),
        Block("paragraph", "penicillin v potassium 500 mg oral tablet; errin 28 day pack"),
        Block("heading", "Assessment and Plan", level=1),
        Block("heading", "Plan", level=2),
        Block("paragraph", "The following procedures were conducted:"),
        Block("list_item", "insertion of intrauterine contraceptive device"),
    ]


def test_each_section_is_its_own_chunk_and_empty_sections_vanish():
    chunks = note_chunks_for(NOTE)
    assert [c.heading for c in chunks] == [
        "Chief Complaint",
        "History of Present Illness",
        "Social History",
        "Medications",
        "Assessment and Plan › Plan",
    ]
    assert chunks[-1].text.endswith("- insertion of intrauterine contraceptive device")


def test_windows_line_endings_and_no_headings():
    assert note_blocks("first line\r\nsecond line\r\n\r\nnext") == [
        Block("paragraph", "first line second line"),
        Block("paragraph", "next"),
    ]


@pytest.mark.samples
def test_every_real_note_keeps_all_its_words(samples_dir):
    checked = 0
    for bundle in sample_note_bundles(samples_dir)[:6]:
        data = json.loads(bundle.read_text(encoding="utf-8"))
        for entry in data["entry"]:
            resource = entry["resource"]
            if resource["resourceType"] != "DocumentReference":
                continue
            body = base64.b64decode(resource["content"][0]["attachment"]["data"]).decode("utf-8")
            chunks = note_chunks_for(body)
            kept = " ".join(" ".join(c.text.replace("- ", " ").split()) for c in chunks).split()
            original = [
                w
                for line in body.splitlines()
                if not line.lstrip().startswith("#") and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", line.strip())
                for w in line.replace("- ", " ").split()
            ]
            assert kept == original, bundle.name
            assert all(c.heading_path for c in chunks)
            checked += 1
    assert checked > 20
