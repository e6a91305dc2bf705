"""Chunking rules hold for any document: property tests over generated block sequences."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge.blocks import Block
from knowledge.chunking import block_text, chunk_blocks, embedding_text, tail_overlap

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
SENTENCE = st.lists(WORD, min_size=1, max_size=12).map(lambda ws: " ".join(ws).capitalize() + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=6).map(" ".join)
BODY = st.builds(lambda kind, t: Block(kind, t), st.sampled_from(["paragraph", "list_item"]), PARAGRAPH)
HEADING = st.builds(lambda level, t: Block("heading", t.capitalize(), level=level), st.integers(1, 3), WORD)


def _unique_headings(blocks):
    """Every heading distinct, so a run of chunks under one path is one section."""
    return [
        Block("heading", f"{b.text} {i}", level=b.level) if b.kind == "heading" else b
        for i, b in enumerate(blocks)
    ]


DOCUMENT = st.lists(st.one_of(BODY, BODY, BODY, HEADING), min_size=0, max_size=40).map(_unique_headings)
BUDGET = st.integers(min_value=5, max_value=120)
OVERLAP = st.integers(min_value=0, max_value=30)


def sections(blocks):
    """(heading path, body texts) runs, as the chunker should see them."""
    path: list[str] = []
    runs: list[tuple[tuple[str, ...], list[str]]] = []
    for block in blocks:
        if block.kind == "heading":
            del path[block.level - 1 :]
            path.append(block.text)
            runs.append((tuple(path), []))
        else:
            if not runs or runs[-1][0] != tuple(path):
                runs.append((tuple(path), []))
            runs[-1][1].append(block_text(block))
    return [(p, texts) for p, texts in runs if texts]


@settings(max_examples=100, deadline=None)
@given(DOCUMENT, BUDGET, OVERLAP)
def test_every_block_lands_whole_in_exactly_one_chunk_in_order(blocks, budget, overlap):
    chunks = chunk_blocks(blocks, budget=budget, overlap=overlap)
    new_texts = [t for c in chunks for t in c.text.split("\n")]
    expected = [block_text(b) for b in blocks if b.kind != "heading"]
    assert new_texts == expected  # nothing lost, nothing repeated, nothing split, order kept


@settings(max_examples=100, deadline=None)
@given(DOCUMENT, BUDGET, OVERLAP)
def test_headings_start_chunks_and_paths_are_true(blocks, budget, overlap):
    chunks = chunk_blocks(blocks, budget=budget, overlap=overlap)
    regrouped: list[tuple[tuple[str, ...], list[str]]] = []
    for chunk in chunks:
        if regrouped and regrouped[-1][0] == chunk.heading_path:
            regrouped[-1][1].extend(chunk.text.split("\n"))
        else:
            regrouped.append((chunk.heading_path, chunk.text.split("\n")))
    assert [(p, t) for p, t in regrouped] == sections(blocks)


@settings(max_examples=100, deadline=None)
@given(DOCUMENT, BUDGET, OVERLAP)
def test_size_is_a_budget_broken_only_by_a_single_large_block(blocks, budget, overlap):
    for chunk in chunk_blocks(blocks, budget=budget, overlap=overlap):
        size = len(chunk.text.split())
        assert size <= budget or chunk.block_count == 1


@settings(max_examples=100, deadline=None)
@given(DOCUMENT, BUDGET, OVERLAP)
def test_overlap_is_separate_bounded_and_never_a_whole_chunk(blocks, budget, overlap):
    chunks = chunk_blocks(blocks, budget=budget, overlap=overlap)
    for previous, chunk in zip([None, *chunks], chunks, strict=False):
        assert chunk.text.strip(), "a chunk must have new text of its own"
        if not chunk.overlap_text:
            continue
        assert len(chunk.overlap_text.split()) <= overlap
        # carried only within a section, and only from the chunk right before
        assert previous is not None and previous.heading_path == chunk.heading_path
        squashed = lambda s: "".join(s.replace("- ", "").split())  # noqa: E731
        assert squashed(previous.text).endswith(squashed(chunk.overlap_text))


def test_first_chunk_after_a_heading_carries_no_overlap():
    blocks = [
        Block("heading", "Before", level=1),
        Block("paragraph", "One two three. Four five six."),
        Block("heading", "After", level=1),
        Block("paragraph", "Seven eight nine."),
    ]
    chunks = chunk_blocks(blocks, budget=100, overlap=10)
    assert [c.heading_path for c in chunks] == [("Before",), ("After",)]
    assert chunks[1].overlap_text == ""


def test_long_section_splits_between_paragraphs_with_sentence_overlap():
    paragraphs = [f"Paragraph {i} starts here. It ends with sentence {i}." for i in range(6)]
    blocks = [Block("heading", "Diet", level=2), *[Block("paragraph", p) for p in paragraphs]]
    chunks = chunk_blocks(blocks, budget=20, overlap=6)
    assert len(chunks) == 3
    assert chunks[1].overlap_text == "It ends with sentence 1."
    assert chunks[1].text.startswith("Paragraph 2")


def test_embedding_text_carries_title_and_heading_path_once():
    blocks = [Block("heading", "Metformin", level=1), Block("heading", "Side effects", level=2)]
    blocks.append(Block("paragraph", "Feeling sick is common at first."))
    chunk = chunk_blocks(blocks)[0]
    assert embedding_text(chunk, "Metformin") == "Metformin › Side effects\nFeeling sick is common at first."


@given(st.lists(SENTENCE, max_size=8), st.integers(0, 40))
def test_tail_overlap_is_whole_trailing_sentences(sentences, limit):
    tail = tail_overlap([" ".join(sentences)], limit)
    assert len(tail.split()) <= limit
    assert " ".join(sentences).endswith(tail)
