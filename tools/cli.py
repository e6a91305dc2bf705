"""`chartside tools …` and `chartside slots …`: the tool catalogue and schedules, for operators.

`tools call` runs a tool exactly as the agent would (validation, patient-scoped transaction
as the application role, audit row) with a clinician scope whose actor is `cli:<user>`.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import uuid

import typer
from rich.table import Table

from chartside.console import console, fail
from chartside.groups import bench_app
from chartside.patient_arg import patient_or_exit
from records.database import open_database
from records.scheduling import DEFAULT_SEED, generate_slots
from records.settings import get_settings
from tools.catalog import build_registry
from tools.registry import ToolContext
from tools.scope import PatientScope

tools_app = typer.Typer(help="The patient-scoped tools: list them, call one.", no_args_is_help=True)
slots_app = typer.Typer(
    help="Appointment schedules derived from organisations and practitioners.", no_args_is_help=True
)


@tools_app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print the full definitions (name, schema) as JSON."),
) -> None:
    """Every tool the agent can call, with its section and input schema."""
    registry = build_registry()
    if as_json:
        console.print_json(json.dumps(registry.definitions()))
        return
    table = Table("tool", "section", "writes", "arguments")
    for name in registry.names():
        tool = registry.get(name)
        assert tool is not None
        props = tool.schema().get("properties", {})
        args = ", ".join(
            f"{k}: {v.get('type') or '|'.join(str(x.get('type')) for x in v.get('anyOf', []))}"
            if "enum" not in v
            else f"{k}: {'|'.join(v['enum'])}"
            for k, v in props.items()
        )
        table.add_row(name, tool.section, "yes" if tool.writes else "", args or "—")
    console.print(table)


@tools_app.command("call")
def call_command(
    name: str = typer.Argument(..., help="Tool name (see `chartside tools list`)."),
    patient: str = typer.Option(..., "--patient", help="Patient id whose record the tool reads."),
    args: str = typer.Option("{}", "--args", help="Tool arguments as a JSON object."),
    conversation: str | None = typer.Option(
        None, "--conversation", help="Conversation id (booking needs the one find_slots ran in)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the whole result (rows, citations) as JSON."),
) -> None:
    """Run one tool for one patient, as a clinician (audited as cli:<user>)."""
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as exc:
        raise fail(f"--args is not valid JSON: {exc.msg} at character {exc.pos}") from None
    registry = build_registry()
    if name not in registry:
        raise fail(f"no tool named {name!r}; see `chartside tools list`")
    db = open_database(get_settings())
    try:
        resolved = patient_or_exit(db, patient)
        scope = PatientScope(
            patient_id=resolved.patient_id,
            role="clinician",
            actor=f"cli:{getpass.getuser()}",
            conversation_id=conversation or f"cli-{uuid.uuid4().hex[:12]}",
            message_id=f"cli-{uuid.uuid4().hex[:12]}",
        )
        result = registry.execute(ToolContext(scope=scope, db=db), name, parsed)
    finally:
        db.dispose()
    if as_json:
        console.print_json(result.model_dump_json())
    else:
        console.print(result.text, markup=False, highlight=False)
        if conversation is None and name == "find_slots":
            console.print(f"(conversation id for booking: {scope.conversation_id})", style="dim")
    if not result.ok:
        raise typer.Exit(1)


@slots_app.command("generate")
def generate_command(
    days: int = typer.Option(
        14, "--days", min=1, max=365, help="How many days of slots, from the start date."
    ),
    start: str | None = typer.Option(None, "--start", help="First day (YYYY-MM-DD); default today."),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Same seed and start date → same slots."),
    timezone: str = typer.Option("UTC", "--timezone", help="Clinic time zone for opening hours (IANA name)."),
) -> None:
    """Create departments and free slots from the ingested organisations and practitioners."""
    try:
        first = dt.date.fromisoformat(start) if start else None
    except ValueError:
        raise fail(f"--start must be a date like 2026-12-01, got {start!r}") from None
    db = open_database(get_settings())
    try:
        stats = generate_slots(db, days=days, start=first, seed=seed, timezone=timezone)
    except Exception as exc:  # one line for the operator, not a traceback
        raise fail(f"could not generate slots: {exc}") from None
    finally:
        db.dispose()
    if stats.departments == 0:
        console.print(
            "[yellow]no organisations with practitioners: ingest hospital/practitioner files first[/]"
        )
    console.print(
        f"{stats.departments} departments; {stats.slots_added:,} new slots of {stats.slots_planned:,} planned "
        f"({stats.start} + {stats.days} days)"
    )


def register(app: typer.Typer) -> None:
    from tools.bench import bench_tools_command

    app.add_typer(tools_app, name="tools")
    app.add_typer(slots_app, name="slots")
    bench_app.command("tools")(bench_tools_command)
