"""search_leaflets and search_notes: hybrid search with a relevance gate, as cited tool results.

Both return passages with citation handles (K… for leaflet passages, N… for note
passages) and the facts a grounding check needs (dates, numbers, phone numbers in the
passage). When nothing clears the gate they say so explicitly ("no leaflet covers this"),
with an instruction not to fill the gap from general knowledge: for this product a
confident answer without a source is the failure to avoid.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from knowledge.embeddings import load_embedder
from tools.planted import withhold_planted
from tools.registry import ToolContext, ToolInput, Toolset
from tools.render import counted
from tools.results import ToolResult

if TYPE_CHECKING:  # knowledge.search (BM25, numpy) is imported on the first search, not at start-up
    from knowledge.search import Passage, SearchOutcome

_FACT = re.compile(
    r"\b\d{3}-\d{4}\b|\$\d+(?:\.\d+)?|\b\d{4}-\d{2}-\d{2}\b|\b\d+(?:\.\d+)?\s?(?:%|mg/dL|mmol/mol|am|pm)?"
)


def passage_facts(text: str) -> list[str]:
    """Numbers, prices, phone numbers and dates a passage states (grounding checks answers against them)."""
    return list(dict.fromkeys(m.group(0).strip() for m in _FACT.finditer(text) if m.group(0).strip()))


class SearchLeafletsInput(ToolInput):
    # ToolInput: unknown fields and NUL characters are refused (a query '0\x00' failed inside
    # PostgreSQL as an internal error: found by tests/tools/test_isolation.py's property)

    query: str = Field(
        min_length=2,
        max_length=500,
        description="The question in plain words.",
    )
    limit: int = Field(default=5, ge=1, le=10)


class SearchNotesInput(ToolInput):

    query: str = Field(min_length=2, max_length=500, description="What to look for.")
    since: dt.date | None = Field(default=None, description="On or after this day.")
    until: dt.date | None = Field(default=None, description="On or before this day.")
    limit: int = Field(default=5, ge=1, le=10)
    exact_words: bool = Field(
        default=False,
        description=(
            "Only notes whose text holds every word of the query (any form: stone/stones), "
            "searched word by word in every note, not by meaning; says how many notes were searched."
        ),
    )

    @model_validator(mode="after")
    def _ordered(self) -> SearchNotesInput:
        if self.since and self.until and self.since > self.until:
            raise ValueError("since must not be after until")
        return self


def _passage_text(p: Passage) -> str:
    body = " ".join(p.text.split("\n")) if len(p.text) < 400 else p.text
    return f"(…{p.overlap_text}) {body}" if p.overlap_text else body


def _closest(outcome: SearchOutcome) -> str:
    best = outcome.best_similarity
    if best is None:
        return "no candidate passage at all"
    return f"the closest passage had similarity {best:.2f}, below the relevance floor {outcome.floor:.2f}"


def leaflet_result(ctx: ToolContext, query: str, outcome: SearchOutcome) -> ToolResult:
    if not outcome.passages:
        return ToolResult(
            text=(
                f"No hospital leaflet covers this ({_closest(outcome)}). Tell the user the hospital's leaflets "
                "do not cover it and, if relevant, suggest asking their care team; do not answer from general "
                "knowledge as if a leaflet said it."
            ),
            total=0,
        )
    lines = [f"{counted(len(outcome.passages), 'leaflet passage')} for {query!r}:"]
    rows: list[dict[str, Any]] = []
    citations = []
    for p in outcome.passages:
        m = p.meta
        reviewed = m["reviewed"].isoformat() if m.get("reviewed") else "not recorded"
        label = f"{m['title']} › {p.heading_path.split(' › ', 1)[-1]}" if p.heading_path else m["title"]
        passage = _passage_text(p)
        citation = ctx.handles.cite(
            "leaflet",
            f"{m['slug']}#{m['seq']}",
            label=label,
            facts=[*passage_facts(p.text), reviewed],
            data={
                "slug": m["slug"],
                "title": m["title"],
                "heading_path": p.heading_path,
                "reviewed": reviewed,
            },
        )
        citations.append(citation)
        contact = f"; contact: {m['contact']}" if m.get("contact") else ""
        lines.append(
            f'[{citation.handle}] "{m["title"]}" — {p.heading_path or m["title"]} (reviewed {reviewed}{contact})\n'
            f"{passage}"
        )
        rows.append(
            {
                "handle": citation.handle,
                "title": m["title"],
                "slug": m["slug"],
                "heading_path": p.heading_path,
                "reviewed": reviewed,
                "contact": m.get("contact"),
                "text": p.text,
                "overlap_text": p.overlap_text,
                "similarity": round(p.similarity, 3),
                "exact_match": p.exact,
            }
        )
    return ToolResult(text="\n\n".join(lines), rows=rows, citations=citations, total=len(rows))


def note_result(ctx: ToolContext, query: str, args: SearchNotesInput, outcome: SearchOutcome) -> ToolResult:
    window = ""
    if args.since or args.until:
        window = f" between {args.since or 'the first note'} and {args.until or 'today'}"
    if not outcome.passages:
        return ToolResult(
            text=(
                f"No passage in this patient's clinical notes{window} matches {query!r} ({_closest(outcome)}). "
                "Say the notes do not mention it; this is not evidence that it never happened."
            ),
            total=0,
        )
    lines = [f"{counted(len(outcome.passages), 'note passage')}{window} for {query!r}:"]
    rows: list[dict[str, Any]] = []
    citations = []
    for p in outcome.passages:
        m = p.meta
        text, withheld = withhold_planted(p.text)  # orders to an AI in a note: never passed on
        date = m["date"].date().isoformat() if m.get("date") else "undated"
        encounter = m.get("encounter_type") or m.get("note_type") or "encounter type not recorded"
        author = m.get("author") or "author not recorded"
        citation = ctx.handles.cite(
            "note",
            f"{m['note_id']}#{m['seq']}",
            label=f"note {date}, {p.heading_path}",
            facts=[date, *passage_facts(text), *(d.date().isoformat() for d in m.get("also_dates") or [])],
            data={"note_id": m["note_id"], "date": date, "section": m.get("section"), "author": author},
        )
        citations.append(citation)
        also = [d.date().isoformat() for d in m.get("also_dates") or []]
        repeated = ""
        if also:
            shown = ", ".join(also[:5]) + (f" and {len(also) - 5} more" if len(also) > 5 else "")
            repeated = f"\n(the same text also appears in the notes of {shown})"
        lines.append(
            f"[{citation.handle}] note of {date} — {encounter}; by {author} — {p.heading_path}\n{text}{repeated}"
        )
        rows.append(
            {
                "handle": citation.handle,
                "note_id": m["note_id"],
                "date": date,
                "encounter_type": m.get("encounter_type"),
                "note_type": m.get("note_type"),
                "author": m.get("author"),
                "section": m.get("section"),
                "heading_path": p.heading_path,
                "text": text,
                "withheld": withheld,
                "also_dates": [d.date().isoformat() for d in m.get("also_dates") or []],
                "similarity": round(p.similarity, 3),
                "exact_match": p.exact,
            }
        )
    return ToolResult(text="\n\n".join(lines), rows=rows, citations=citations, total=len(rows))


# words a mention search does not look for: they say how the question is asked, not what about
_MENTION_FILLER = frozenset(
    {"the", "and", "any", "for", "with", "about", "my", "her", "his", "their", "of", "in", "on", "at"}
    | {"is", "are", "was", "were", "there", "anything", "mention", "mentioned", "notes", "note"}
    | {"record", "chart", "file", "history"}
)


def mention_stem(word: str) -> str:
    """The part of a word every form of it starts with ("stones" → "ston", "smoking" → "smok",
    "pregnancy" → "pregn"): a mention is the stem at a word start. One rule, shared by the notes
    search here and the offline planner's reading of the record's condition names."""
    return word if len(word) <= 4 else word[: max(4, len(word) - 3)]


def mention_words(query: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", query.lower()) if len(w) >= 3 and w not in _MENTION_FILLER]


def _word_pattern(word: str) -> str:
    """A short word whole (plural allowed: "back" is not "background"), a longer one by its stem."""
    stem = mention_stem(word)
    return rf"{re.escape(word)}s?\b" if stem == word else rf"{re.escape(stem)}\w*"


def mention_pattern(words: list[str]) -> str:
    """The words as one phrase, in order, at most two words apart ("kidney stone", "back and neck
    pain"), each at a word start. Python syntax; `_postgres` turns it into PostgreSQL's."""
    gap = r"(?:\W+\w+){0,2}?\W+"
    return r"\b" + gap.join(_word_pattern(w) for w in words)


def _postgres(pattern: str) -> str:
    return pattern.replace(r"\b", r"\y")


def mentions(text: str, words: list[str]) -> bool:
    """Whether a text holds the words as a phrase, in any form (case-insensitive)."""
    return bool(words) and re.search(mention_pattern(words), text, re.I) is not None


def _snippet(text: str, words: list[str]) -> str:
    """The sentence (or line) of a note that mentions the words."""
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+|\n+", text) if p.strip()]
    best = next((p for p in parts if mentions(p, words)), None) or text.strip()
    return best if len(best) <= 300 else best[:297] + "…"


def note_mentions(ctx: ToolContext, args: SearchNotesInput) -> ToolResult:
    """Every note of this patient (in the window) whose text holds every word of the query: a
    lexical verdict over the whole set, so "no note mentions it" is a count, not a ranking miss."""
    from sqlalchemy import text as sql

    from knowledge.search import NOTE_SHOWN_IN_WINDOW

    words = mention_words(args.query)
    window = ""
    if args.since or args.until:
        window = f" between {args.since or 'the first note'} and {args.until or 'today'}"
    params: dict[str, Any] = {"patient_id": ctx.scope.patient_id, "since": args.since, "until": args.until}
    where = f"n.patient_id = :patient_id AND {NOTE_SHOWN_IN_WINDOW}"
    searched = ctx.connection.execute(sql(f"SELECT count(*) FROM clinical_notes n WHERE {where}"), params).scalar_one()  # fmt: skip
    if not words:
        return ToolResult(text=f"Note: {args.query!r} holds no word to look for in the notes.", total=0)
    params["phrase"] = _postgres(mention_pattern(words))
    holds = "n.text ~* :phrase"
    found = ctx.connection.execute(
        sql(
            f"""SELECT n.id, n.date, n.text, n.type_display, n.author_name, e.type_display AS encounter_type
                FROM clinical_notes n LEFT JOIN encounters e ON e.patient_id = :patient_id AND e.id = n.encounter_id
                WHERE {where} AND {holds} ORDER BY n.date DESC NULLS LAST, n.id"""
        ),
        params,
    ).all()
    said = " ".join(words)
    if not found:
        return ToolResult(
            text=(
                f"None of this patient's {counted(searched, 'clinical note')}{window} mentions {said!r} "
                "(every note searched word by word, any form of each word)."
            ),
            total=searched,
        )
    lines = [f"{len(found)} of {counted(searched, 'clinical note')}{window} mention {said!r}, newest first:"]
    rows: list[dict[str, Any]] = []
    citations = []
    for r in found[: args.limit]:
        passage, withheld = withhold_planted(_snippet(r.text, words))
        date = r.date.date().isoformat() if r.date else "undated"
        author = r.author_name or "author not recorded"
        citation = ctx.handles.cite(
            "note",
            r.id,
            label=f"note {date}",
            facts=[date, *passage_facts(passage)],
            data={"note_id": r.id, "date": date, "author": author},
        )
        citations.append(citation)
        kind = r.encounter_type or r.type_display or "encounter type not recorded"
        lines.append(f"[{citation.handle}] note of {date} — {kind}; by {author}\n{passage}")
        rows.append(
            {
                "handle": citation.handle,
                "note_id": r.id,
                "date": date,
                "encounter_type": r.encounter_type,
                "note_type": r.type_display,
                "author": r.author_name,
                "text": passage,
                "withheld": withheld,
                "exact_match": True,
                "mention": said,
            }
        )
    if len(found) > args.limit:
        lines.append(f"… {len(found) - args.limit} more notes mention it (not shown).")
    return ToolResult(text="\n\n".join(lines), rows=rows, citations=citations, total=len(found))


def _embedder(ctx: ToolContext):
    """The context's embedder, or the process-wide one for the configured model.

    Callers that run many searches (server, agent) hand one in; a caller that does not (a
    one-off CLI call, an MCP session, a test calling every tool) still gets a working search.
    """
    if ctx.embedder is None:
        ctx.embedder = load_embedder(ctx.db.settings)
    return ctx.embedder


TOOLS = Toolset()  # this module's tools: the one registration style (tools.registry.Toolset)


@TOOLS.tool("search_leaflets", section="leaflets", status_text="Searching the hospital's leaflets…")
def search_leaflets_tool(ctx: ToolContext, args: SearchLeafletsInput) -> ToolResult:
    """Searches the hospital's patient-information leaflets (conditions, medicines, tests
    and preparation, visiting, parking, pharmacy, …): cited passages, or says none covers
    it. For general and hospital information, never for this patient's record."""
    from knowledge.search import search_leaflets

    embedder = _embedder(ctx)
    outcome = search_leaflets(
        ctx.connection,
        args.query,
        embedder.embed_query(args.query),
        model_name=embedder.model_name,
        limit=args.limit,
        floor=ctx.search.leaflet_similarity_floor,
        keyword=ctx.search.leaflet_keyword_backend,
    )
    return leaflet_result(ctx, args.query, outcome)


@TOOLS.tool("search_notes", section="notes", status_text="Searching your clinical notes…")
def search_notes_tool(ctx: ToolContext, args: SearchNotesInput) -> ToolResult:
    """Searches this patient's clinical notes by meaning and exact words: cited passages
    with date, visit type and author, or says no note mentions it."""
    from knowledge.search import search_notes

    if args.exact_words:
        return note_mentions(ctx, args)
    embedder = _embedder(ctx)
    outcome = search_notes(
        ctx.connection,
        args.query,
        embedder.embed_query(args.query),
        patient_id=ctx.scope.patient_id,
        model_name=embedder.model_name,
        limit=args.limit,
        floor=ctx.search.note_similarity_floor,
        since=args.since,
        until=args.until,
    )
    return note_result(ctx, args.query, args, outcome)
