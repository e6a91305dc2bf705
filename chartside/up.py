"""`chartside up` — what `make run` calls: everything a fresh clone needs, then serve.

Each step is idempotent and cheap when its work is already done, so `make run` is the same
command the first time and every time after.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from chartside.console import console, reporting
from records import migrate
from records.database import Database, open_database
from records.settings import Settings, get_settings
from synthea_data.demo import demo_cohort_dir, ensure_demo_cohort
from synthea_data.hard_cases import SCENARIO_PATIENTS, load_manifest

if TYPE_CHECKING:
    from tools.embedder import DeferredEmbedder

# Imported where they are needed, not here: a second `make run` finds nothing to do and must
# not pay for the loader (~1 s of imports), alembic or the document parsers. See `prepare`.

DEMO_SLOT_DAYS = 28  # four weeks of bookable time from today; re-running only adds the new days


class StepClock:
    """Seconds per start-up step, printed as one line before serving (what a first run costs)."""

    def __init__(self) -> None:
        self.started = self.last = time.perf_counter()
        self.steps: list[tuple[str, float]] = []

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.steps.append((name, now - self.last))
        self.last = now

    def summary(self) -> str:
        parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.steps)
        return f"ready in {time.perf_counter() - self.started:.1f} s ({parts})"


def preload_app() -> threading.Thread:
    """Import the web app's code in the background while the database starts and the steps run.

    Not the embedding model: a second `make run` has nothing to embed, so the model loads
    after the server listens (`tools.embedder.DeferredEmbedder`); a step that does embed loads
    it itself (`EmbedderOnDemand`).
    """

    def load() -> None:
        with contextlib.suppress(Exception):  # serve() imports it again and raises, if it must
            import server.app  # noqa: F401

    thread = threading.Thread(target=load, name="preload-app", daemon=True)
    thread.start()
    return thread


def prepare(db: Database, settings: Settings | None = None, clock: StepClock | None = None) -> None:
    """Schema, demo cohort, appointment slots, leaflets, note index: each step idempotent.

    Each step first asks, cheaply, whether there is anything to do (the schema's revision
    against the revision files; the cohort's checksums against `source_files`; the leaflets'
    checksums; notes without chunks) and only then imports the code that does it.
    """
    lap: Callable[[str], None] = clock.lap if clock is not None else (lambda _name: None)
    current, head = migrate.current_revision(db), migrate.head_revision()
    if current is not None and current == head:
        console.print(f"schema: {head}")
    else:
        before, after = migrate.upgrade(db)
        console.print(f"schema: {after}" + (" (upgraded)" if before != after else ""))
    lap("schema")
    if settings is not None:
        load_demo_cohort(db, settings)
        lap("demo cohort")
        from records.scheduling import generate_slots

        stats = generate_slots(db, days=DEMO_SLOT_DAYS)
        console.print(
            f"appointment slots: {stats.departments} departments, {stats.slots_added} new slots "
            f"from {stats.start} ({stats.days} days)"
        )
        lap("slots")
    prepare_leaflets(db)
    lap("leaflets")
    prepare_notes(db)  # keep last: it indexes the notes of whatever cohort the steps above loaded
    lap("notes")


def already_ingested(db: Database, folder: Path) -> bool:
    """Every bundle under `folder` is stored with its current checksum (so `ingest_paths` would
    skip each one as unchanged): read with the loader's own `discover` / `read_file`, compared
    with `source_files` in one query, without importing the loader."""
    from sqlalchemy import text

    from fhir_ingest.source import discover, read_file

    files, missing = discover([folder])
    if missing or not files:
        return False
    with db.admin.connect() as conn:
        stored = set(conn.execute(text("SELECT sha256 FROM source_files")).scalars())
    return all(read_file(path).sha256 in stored for path in files)


def load_demo_cohort(db: Database, settings: Settings) -> None:
    """Generate the demo cohort once (seeded, so every clone gets the same patients), then ingest it.

    Ingestion skips unchanged files by checksum; when every file is unchanged the loader is
    not even imported (`already_ingested`). A changed or new file goes through `ingest_paths`.
    """
    with reporting("generating patients") as report_progress:
        cohort, created = ensure_demo_cohort(
            settings.resolved_data_dir(),
            patients=settings.demo_patients,
            seed=settings.demo_seed,
            progress=report_progress,
        )
    console.print(f"demo cohort: {cohort}" + (" (generated)" if created else ""))
    if not created and already_ingested(db, cohort):
        return
    from fhir_ingest.loader import ingest_paths

    with reporting("ingesting") as report_progress:
        report = ingest_paths(db, [cohort], progress=report_progress)
    if not report.ok:
        console.print("[yellow]the demo cohort did not ingest cleanly; see `chartside ingest` for details[/]")


def demo_hard_case_patients(settings: Settings) -> list[str]:
    """The demo cohort's hard-case patients, in manifest order (empty if there is no manifest)."""
    try:
        manifest = load_manifest(demo_cohort_dir(settings.resolved_data_dir()))
    except (OSError, ValueError):
        return []
    return [entry["patient_id"] for entry in manifest.get("patient_files", [])[:SCENARIO_PATIENTS]]


class EmbedderOnDemand:
    """The embedder, loaded only when a step has something to embed.

    A second `make run` finds every leaflet and note indexed: the steps then only compare
    checksums and model names, and the model is not loaded before serving (the server loads
    it in the background: `tools.embedder.DeferredEmbedder`). The model name is the configured one, which is
    what a loaded embedder reports; the database's vector width is checked up front, as
    `load_embedder(..., engine=)` would.
    """

    def __init__(self, db: Database) -> None:
        from knowledge.embeddings import check_dimensions

        self._db = db
        self._embedder = None
        self.model_name = db.settings.embedding_model
        check_dimensions(db.admin, db.settings.embedding_dim, self.model_name)

    def embed_passages(self, texts, **kwargs):
        if not texts:  # nothing changed: callers still pass the (empty) list of new texts
            return []
        return self._loaded().embed_passages(texts, **kwargs)

    def __getattr__(self, name: str):  # anything but the model name needs the model itself
        return getattr(self._loaded(), name)

    def _loaded(self):
        if self._embedder is None:
            from knowledge.embeddings import load_embedder

            self._embedder = load_embedder(self._db.settings, engine=self._db.admin)
        return self._embedder


def prepare_notes(db: Database) -> None:
    """Embed the clinical notes not yet indexed (a separate, resumable pass; nothing to do when done)."""
    from knowledge.note_index import candidate_patients, index_notes, patients_with_pending_notes

    embedder = EmbedderOnDemand(db)
    pending = patients_with_pending_notes(db, candidate_patients(db), embedder.model_name)
    if not pending:
        return
    with reporting("Indexing notes") as report_progress:
        report = index_notes(db, embedder, pending, progress=report_progress)  # type: ignore[arg-type]
    if report.notes:
        console.print(
            f"notes: indexed {report.notes} notes of {report.patients} patients ({report.chunks} chunks, "
            f"{report.embedded} distinct texts embedded)"
        )


def prepare_leaflets(db: Database) -> None:
    """The shipped leaflets, embedded once (later runs compare checksums and do nothing)."""
    from knowledge.leaflet_store import ensure_leaflets

    embedder = EmbedderOnDemand(db)
    with reporting("Embedding leaflets") as report_progress:
        outcomes = ensure_leaflets(db, embedder, progress=report_progress)  # type: ignore[arg-type]
    changed = [o for o in outcomes if o.status in ("added", "replaced")]
    failed = [o for o in outcomes if o.status == "failed"]
    console.print(
        f"leaflets: {len(outcomes) - len(failed)} ready"
        + (f", {len(changed)} (re)indexed" if changed else "")
    )
    for o in failed:
        console.print(f"[red]leaflet {o.path.name} not indexed:[/] {o.error}")


def up_command(
    host: str = typer.Option(None, help="Interface to listen on (default: CHARTSIDE_HOST)."),
    port: int = typer.Option(None, min=1, max=65535, help="Port (default: CHARTSIDE_PORT, 8000)."),
    evaluator: bool = typer.Option(
        False, "--evaluator", help="Also create the demo evaluator (a read-only API token, printed once)."
    ),
) -> None:
    """Start the database, load the demo data if absent, and serve the web app."""
    from concurrent.futures import ThreadPoolExecutor

    from chartside.ports import check_port_free

    clock = StepClock()
    settings = get_settings()
    check_port_free(host or settings.host, port or settings.port)  # before minutes of preparation
    # the database starts (a subprocess: no GIL held while it comes up) while this thread and
    # the preload thread import the code that will use it
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="start-database") as pool:
        opening = pool.submit(start_database, settings)
        preload_app()
        from server.cli import print_demo_credentials, serve
        from server.demo import create_demo_accounts

        db = opening.result()
    try:
        clock.lap("database")
        prepare(db, settings, clock)
        # after the cohort is loaded: demo accounts are bound to ingested patients
        print_demo_credentials(
            create_demo_accounts(db, preferred=demo_hard_case_patients(settings), evaluator=evaluator)
        )
        clock.lap("demo accounts")

        from tools.embedder import DeferredEmbedder

        embedder = DeferredEmbedder(settings)
        unusable: list[Exception] = []

        def ready() -> None:
            from chartside.bytecode import compile_imported

            clock.lap("app")
            console.print(clock.summary())
            embedder.start(on_failure=lambda exc: stop_serving(exc, unusable), then=lambda: warm_gate(embedder))
            compile_imported()  # for the next start (see chartside.bytecode); a separate process

        try:
            serve(settings, db, host=host, port=port, on_ready=ready, embedder=embedder)
        except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it shut down on
            if not unusable:
                raise
    finally:
        db.dispose()
    if unusable:  # the one failure policy: no serving without the model (the fix was printed)
        raise typer.Exit(1)


def warm_gate(embedder: DeferredEmbedder) -> None:
    """Build the safety gate's semantic side while the first user logs in, not during their
    first question: on a fresh install its exemplar vectors take ~30 s (a bar shows them; a
    second run reads them from `<data_dir>/safety/` in milliseconds). A question asked before
    it finishes waits for it: the gate never answers with half of itself."""
    from agent.safety.gate import SafetyGate

    with reporting("Preparing the safety check (first run only)") as report:
        SafetyGate(embedder, embedder.settings).warm_up(report)


def stop_serving(exc: Exception, unusable: list[Exception]) -> None:
    """The model failed to load after the server started: say why, with the fix, and stop
    the server, as `chartside serve` would have refused to start (search and the semantic
    safety check need the model)."""
    import os
    import signal

    from chartside.console import fail

    unusable.append(exc)
    fail(f"the embedding model cannot be used: {exc}; stopping the server")
    os.kill(os.getpid(), signal.SIGINT)  # uvicorn's graceful shutdown; up_command then exits 1


def start_database(settings: Settings) -> Database:
    """Open the database and make one connection (starts the embedded PostgreSQL, initdb the
    first time)."""
    db = open_database(settings)
    try:
        db.admin.connect().close()
    except BaseException:
        db.dispose()
        raise
    return db


def register(app: typer.Typer) -> None:
    app.command("up")(up_command)
