"""Command groups that several packages add to (`chartside bench …`, `chartside eval …`).

A package adds a subcommand with `bench_app.command("ingest")(fn)` inside its own
`register(app)`, and one line in the table below (name → module, one-line help), so that
`chartside bench --help` lists it without importing it. A test keeps the tables true.
"""

from __future__ import annotations

import typer

from chartside.lazy import Lazy, LazyGroup

BENCH: dict[str, Lazy] = {
    "startup": Lazy(
        "chartside.startup_cli", "How long commands take to start: the lazy CLI vs importing every command."
    ),
    "tools": Lazy(
        "tools.cli", "p50/p95 of every tool vs a bare SELECT 1, on a small and a large population."
    ),
    "serve": Lazy(
        "server.cli",
        "SSE overhead: time to first event and to done, vs a trivial SSE endpoint of the same app.",
    ),
    "agent": Lazy(
        "agent.cli",
        "Agent overhead per question with a zero-latency fake model, vs the SDK's own request time; "
        "then the request size (system + tools + tool results) of record questions.",
    ),
    "scoped": Lazy(
        "agent.cli", "Scoped vs whole-record answers, and the background context's share of the time."
    ),
    "ingest": Lazy("fhir_ingest.cli", "Ingest throughput vs."),
    "generate": Lazy(
        "synthea_data.cli",
        "Generation throughput (patients/s, MB/s), time per phase, and parse cost of the same bytes.",
    ),
    "mcp": Lazy(
        "mcp_server.cli",
        "Per-call latency of the tools over MCP (in-process, stdio, HTTP) vs calling them directly.",
    ),
    "search": Lazy(
        "knowledge.cli",
        "p50/p95 of both search tools (query embedding included), 1× vs 10× leaflets, notes at scale.",
    ),
    "safety": Lazy(
        "agent.cli",
        "Time the gate (lexical rules, nearest exemplars, both classifiers) and the query embedding.",
    ),
    "notes": Lazy(
        "chartside.wiring",
        "Note indexing vs the embedding model's own passages/s, on the same passages, side by side.",
    ),
    "offline": Lazy(
        "evals.paraphrase.cli",
        "Offline answer latency on the loaded cohort: p50/p95 with and without embedding time.",
    ),
    "load": Lazy(
        "server.loadtest",
        "Throughput and p50/p95 of asking (POST + answer stream to done) at 1, 4 and 16 concurrent users.",
    ),
}

EVAL: dict[str, Lazy] = {
    "generate": Lazy(
        "evals.cli", "Generate questions whose answers are computed by SQL over the ingested records."
    ),
    "run": Lazy(
        "evals.cli", "Ask every question through the agent (as the server does), record, score and report."
    ),
    "report": Lazy(
        "evals.cli", "Markdown + JSON + a per-category chart; side by side with regressions for several runs."
    ),
    "demo": Lazy(
        "evals.cli",
        "The whole loop on the demo cohort: prepare the database, generate, run offline and the baselines, report.",
    ),
    "safety": Lazy(
        "evals.cli",
        "The safety gate on the labelled utterance set: per category and role, every miss listed.",
    ),
    "retrieval": Lazy(
        "knowledge.cli",
        "Hit@1/@5, MRR, answer present, out-of-scope rejected, and where the similarity floor belongs.",
    ),
    "paraphrase": Lazy(
        "evals.paraphrase.cli",
        "Many phrasings of the same facts: accuracy, consistency and confident false negatives.",
    ),
    "hunt": Lazy(
        "evals.paraphrase.cli",
        "The false-negative hunt: every concept each record holds asked in the grammar's wordings (no answer may deny it), and things it does not hold (each must get an honest no).",
    ),
    "hospital": Lazy(
        "evals.paraphrase.cli",
        "The frozen hospital-information questions: how many reach the leaflet search and cite a leaflet.",
    ),
}


class BenchGroup(LazyGroup):
    entries = BENCH
    source = staticmethod(lambda: bench_app)


class EvalGroup(LazyGroup):
    entries = EVAL
    source = staticmethod(lambda: eval_app)


bench_app = typer.Typer(
    help="Benchmarks: ratios measured side by side in one run.", no_args_is_help=True, cls=BenchGroup
)
eval_app = typer.Typer(help="Evaluations: question sets, runs, reports.", no_args_is_help=True, cls=EvalGroup)


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
    app.add_typer(eval_app, name="eval")
