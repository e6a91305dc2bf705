"""`chartside ask` — ask about one patient's record from the terminal — and `chartside bench agent`.

The answer streams to stdout as it is written; the tool trace (calls, results, timings) goes
to stderr so `--json` output and pipes stay clean; citations and the grounding check follow
the answer. Without a question it opens a conversation (follow-ups, two-step booking).
"""

from __future__ import annotations

import asyncio
import getpass
import json
import uuid
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from agent.base import AgentRequest, Turn
from agent.events import (
    CitationEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from agent.scoping import AskScope, ScopeError
from chartside.console import console, err_console, fail
from chartside.groups import bench_app
from chartside.patient_arg import patient_or_exit
from records.database import open_database
from records.settings import get_settings
from tools.scope import PatientScope


def _args(data: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in data.items() if v is not None)


class TerminalView:
    """Renders events: answer on stdout, trace on stderr; or one JSON object per line."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.streamed: list[str] = []
        self.citations: list[CitationEvent] = []

    def show(self, event: Event) -> None:
        if self.as_json:
            console.print_json(json.dumps(event.model_dump(mode="json")), indent=None)
            return
        if isinstance(event, TextEvent):
            self.streamed.append(event.delta)
            console.print(event.delta, end="", markup=False, highlight=False, soft_wrap=True)
        elif isinstance(event, ToolCallEvent):
            tag = " (background: context, not the answer)" if event.background else ""
            err_console.print(f"[dim]→ {event.name}({escape(_args(event.input))}){tag}[/]")
        elif isinstance(event, ToolResultEvent):
            mark = "[green]✓[/]" if event.ok else "[red]✗[/]"
            handles = " ".join(event.handles[:8]) + (" …" if len(event.handles) > 8 else "")
            err_console.print(
                f"[dim]← {mark} {event.name}: {event.summary} {handles} ({event.latency_ms:.1f} ms)[/]"
            )
        elif isinstance(event, CitationEvent):
            self.citations.append(event)
        elif isinstance(event, DoneEvent):
            self.done(event)
        elif isinstance(event, ErrorEvent):
            console.print()
            err_console.print(f"[bold red]error ({event.kind}):[/] {event.message}")
        else:
            err_console.print(f"[dim]{event.text}[/]")  # status

    def done(self, event: DoneEvent) -> None:
        console.print()
        if "".join(self.streamed).strip() != event.answer.strip():
            console.print("\n[bold]Checked answer:[/]")
            console.print(event.answer, markup=False, highlight=False)
        if self.citations:
            table = Table(title="Citations", show_lines=False)
            table.add_column("handle")
            table.add_column("kind")
            table.add_column("row")
            for c in self.citations:
                table.add_row(c.handle, c.kind, c.label)
            console.print(table)
        if not event.grounding.grounded:
            err_console.print("[bold yellow]Grounding check flagged:[/]")
            for issue in event.grounding.issues:
                err_console.print(f"  [yellow]{issue.kind}[/]: {issue.detail}")
        m = event.metrics
        cost = f", ~${event.cost_usd:.4f}" if event.cost_usd else ""
        ttft = f"first token {m['ttft_ms']:.0f} ms · " if m.get("ttft_ms") is not None else ""
        scope = (
            f" · scope {event.scope['kind']}: {escape(str(event.scope.get('label', '')))}"
            if event.scope
            else ""
        )
        err_console.print(
            f"[dim]{event.mode} · {ttft}{m.get('latency_ms', 0):.0f} ms total · {m.get('iterations', 0)} model turns"
            f" · {len(m.get('tools', []))} tool calls"
            f" · {event.usage.input_tokens}/{event.usage.output_tokens} tokens"
            f" ({event.usage.cache_read_input_tokens} cached){cost}{scope}[/]",
            markup=True,
            highlight=False,
        )


async def _ask_once(agent: Any, request: AgentRequest, view: TerminalView) -> str | None:
    answer = None
    async for event in agent.run(request):
        view.show(event)
        if isinstance(event, DoneEvent):
            answer = event.answer
    return answer


def ask(
    question: str = typer.Argument(None, help="The question. Leave out to start a conversation."),
    patient: str = typer.Option(..., "--patient", "-p", help="Patient id (or a unique prefix of it)."),
    role: str = typer.Option("patient", "--role", help="patient | clinician | evaluator"),
    as_json: bool = typer.Option(False, "--json", help="One JSON event per line on stdout."),
    offline: bool = typer.Option(False, "--offline", help="Use the offline planner even with an API key."),
    scope: str = typer.Option(
        None,
        "--scope",
        help="Limit the question to a section (section:labs) or one record (record:observation:<id>).",
    ),
    save_transcript: Path = typer.Option(
        None,
        "--save-transcript",
        help="Write every model call (request as sent, reply as received) to this JSON file, for replay "
        "as a regression test (tests/transcripts/).",
    ),
) -> None:
    """Ask a question about one patient's record; the answer is cited to rows of the record."""
    if role not in ("patient", "clinician", "evaluator"):
        raise fail(f"--role {role!r}: must be patient, clinician or evaluator")
    try:
        ask_scope = AskScope.parse_cli(scope).as_json() if scope else None
    except ScopeError as exc:
        raise fail(str(exc) if str(exc).startswith("--scope") else f"--scope {scope!r}: {exc}") from None
    settings = get_settings()
    db = open_database(settings)
    try:
        resolved = patient_or_exit(db, patient)
        patient_id, name = resolved.patient_id, resolved.full_name or resolved.patient_id
        from agent.runner import build_agent, default_registry
        from tools.embedder import load_embedder

        registry = default_registry()
        agent = build_agent(settings, db, registry, embedder=load_embedder(settings), force_offline=offline)
        transcript = None
        if save_transcript is not None:
            transcript = _transcript_for(agent, settings, patient_id, role, save_transcript)
        patient_scope = PatientScope(
            patient_id=patient_id,
            role=role,
            actor=f"cli:{getpass.getuser()}",
            conversation_id=f"cli-{uuid.uuid4().hex}",
        )
        if not as_json:
            limited = f" · scope {scope}" if ask_scope else ""
            err_console.print(
                f"[dim]{name} ({patient_id}) · asking as {role} · {agent.mode} mode{limited}[/]"
            )
        asyncio.run(_converse(agent, patient_scope, question, as_json, ask_scope, transcript))
    finally:
        db.dispose()


async def _converse(
    agent: Any,
    scope: PatientScope,
    question: str | None,
    as_json: bool,
    ask_scope: dict[str, Any] | None = None,
    transcript: tuple[Any, Path] | None = None,
) -> None:
    history: list[Turn] = []
    interactive = question is None
    try:
        while True:
            if question is None:
                try:
                    question = console.input("[bold]you>[/] ").strip()
                except EOFError:
                    return
                if not question:
                    return
            message_scope = scope.model_copy(update={"message_id": uuid.uuid4().hex})
            view = TerminalView(as_json)
            request = AgentRequest(
                scope=message_scope, question=question, history=history, ask_scope=ask_scope
            )
            recorder = None
            if transcript is not None:
                from agent.llm import TranscriptRecorder

                recorder = agent.inner.client.recorder = TranscriptRecorder()
            answer = await _ask_once(agent, request, view)
            if transcript is not None and recorder is not None and recorder.exchanges:
                record, path = transcript
                record.add(question, recorder.exchanges)
                record.write(path)  # after every question: an interrupted session keeps what it had
                err_console.print(f"[dim]transcript: {len(recorder.exchanges)} model calls → {path}[/]")
            if answer is not None:
                history.append(Turn(question=question, answer=answer))
            if not interactive:
                return
            question = None
    finally:
        close = getattr(agent, "aclose", None)
        if close is not None:
            await close()


def _transcript_for(agent: Any, settings: Any, patient_id: str, role: str, path: Path) -> tuple[Any, Path]:
    """The transcript to fill (only the Claude path calls a model)."""
    import datetime as dt

    from agent.transcript import Transcript

    if getattr(agent, "mode", "") != "claude":
        raise fail(
            "--save-transcript: there are no model calls to record in offline mode (set ANTHROPIC_API_KEY)"
        )
    if path.parent and not path.parent.exists():
        raise fail(f"--save-transcript {path}: folder {path.parent} does not exist")
    client = agent.inner.client
    record = Transcript(
        model=client.model,
        provider=client.config.provider,
        patient_id=patient_id,
        role=role,
        today=dt.datetime.now(dt.UTC).date().isoformat(),
        thinking=client.config.thinking,
    )
    return record, path


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)
    from agent.bench import bench_agent
    from agent.bench_scoped import bench_scoped

    bench_app.command("agent")(bench_agent)
    bench_app.command("scoped")(bench_scoped)
    from agent.safety.bench import bench_safety

    bench_app.command("safety")(bench_safety)
