"""`chartside serve`, `chartside users …` and `chartside bench serve`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import typer
from rich.table import Table

from chartside.console import console, fail
from chartside.groups import bench_app
from chartside.ports import check_port_free
from records import migrate
from records.accounts import (
    AccountError,
    create_account,
    issue_token,
    list_accounts,
    set_disabled,
    set_password,
)
from records.database import Database, open_database
from records.settings import Settings, get_settings
from server.demo import DemoCredential, create_demo_accounts

users_app = typer.Typer(help="Accounts: patients, clinicians, evaluators.", no_args_is_help=True)


def _open() -> Database:
    return open_database(get_settings())


def print_demo_credentials(credentials: list[DemoCredential]) -> None:
    if not credentials:
        console.print("[yellow]no patients in the database yet: no demo accounts (ingest a cohort first)[/]")
        return
    table = Table("username", "password", "role", "patients", title="Demo accounts (demo data only)")
    for c in credentials:
        who = ", ".join(c.names[:3]) + (f" … (+{len(c.names) - 3})" if len(c.names) > 3 else "")
        table.add_row(c.username, c.password, c.role, who)
    console.print(table)
    evaluator = next((c for c in credentials if c.role == "evaluator"), None)
    if evaluator and evaluator.token:
        console.print(f"evaluator API token (read-only, shown once): [bold]{evaluator.token}[/]")
    elif evaluator:
        console.print("evaluator: exists already; `chartside users token evaluator` issues a new token")


def serve(
    settings: Settings,
    db: Database,
    *,
    host: str | None = None,
    port: int | None = None,
    on_ready: Callable[[], None] | None = None,
    embedder: Any = None,
) -> None:
    """Run the web service on this database until interrupted (Ctrl-C).

    `on_ready` is called once the server listens (`chartside up` prints its step times then);
    `embedder` is passed to `create_app` (None: the lifespan loads it before serving).
    """
    import uvicorn

    from server.app import create_app

    current, head = migrate.current_revision(db), migrate.head_revision()
    if current != head:
        raise fail(f"the schema is at {current or '(empty)'}, not {head}: run `chartside db upgrade`")
    host = host or settings.host
    port = port or settings.port
    check_port_free(host, port)
    app = create_app(settings, db=db, embedder=embedder, dedicated=True)
    mode = (
        "offline planner (no ANTHROPIC_API_KEY)" if settings.offline else f"Claude ({settings.answer_model})"
    )
    console.print(f"Chartside is serving at [bold]http://{host}:{port}/[/]  — answers by {mode}")
    console.print(
        f"MCP clients: [bold]http://{host}:{port}/mcp[/] with an account API token (see the README)"
    )
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    if on_ready is not None:
        started = server.startup

        async def startup(sockets=None) -> None:  # the first moment a browser gets an answer
            await started(sockets=sockets)
            if server.started:
                on_ready()

        server.startup = startup  # type: ignore[method-assign]
    server.run()
    if not server.started:  # as uvicorn.run: the app did not start (the log says why)
        raise SystemExit(3)


def serve_command(
    host: str = typer.Option(None, help="Interface to listen on (default: settings.host)."),
    port: int = typer.Option(None, help="Port (default: settings.port)."),
    demo_accounts: bool = typer.Option(True, help="Create the demo accounts if missing and print them."),
    evaluator: bool = typer.Option(
        False, "--evaluator", help="Also create the demo evaluator (a read-only API token, printed once)."
    ),
) -> None:
    """Serve the web app (login, chat, SSE answers) and print the URL and demo accounts."""
    settings = get_settings()
    check_port_free(host or settings.host, port or settings.port)
    db = open_database(settings)
    try:
        if demo_accounts:
            print_demo_credentials(create_demo_accounts(db, evaluator=evaluator))
        serve(settings, db, host=host, port=port)
    finally:
        db.dispose()


@users_app.command("add")
def add_command(
    username: str = typer.Argument(..., help="Login name."),
    role: str = typer.Option(..., help="patient | clinician | evaluator"),
    patient: list[str] = typer.Option([], "--patient", help="Patient id (repeat for a clinician's panel)."),
    all_patients: bool = typer.Option(False, help="Panel = every patient in the database now."),
    password_stdin: bool = typer.Option(False, help="Read the password from standard input."),
    token: bool = typer.Option(False, help="Also issue an API token (printed once)."),
    display_name: str = typer.Option(None, help="Name shown in the page header."),
    sandbox_writes: bool = typer.Option(
        False,
        "--sandbox-writes",
        help="Evaluator of an evaluation sandbox: may book and cancel (judged by its pinned now).",
    ),
) -> None:
    """Create an account: `--role patient --patient ID alice`, `--role clinician --patient A --patient B`."""
    db = _open()
    try:
        patients = list(patient)
        if all_patients:
            from server.demo import ingested_patient_ids

            patients = ingested_patient_ids(db)
        password = None
        if password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        elif not (role == "evaluator" and token):
            password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
        account, issued = create_account(
            db,
            username=username,
            role=role,
            password=password,
            patients=patients,
            display_name=display_name,
            with_token=token,
            evaluation_sandbox=sandbox_writes,
        )
    except AccountError as exc:
        raise fail(str(exc)) from None
    finally:
        db.dispose()
    console.print(
        f"created {account.role} account [bold]{account.username}[/] for {len(account.patient_ids)} patient(s)"
    )
    if issued:
        console.print(f"API token (shown once): [bold]{issued}[/]")


@users_app.command("list")
def list_command() -> None:
    """Every account with its role and patients."""
    db = _open()
    try:
        accounts = list_accounts(db.admin)
    finally:
        db.dispose()
    table = Table("username", "role", "patients", "disabled", title="Accounts")
    for a in accounts:
        ids = ", ".join(a.patient_ids[:3]) + (
            f" … (+{len(a.patient_ids) - 3})" if len(a.patient_ids) > 3 else ""
        )
        table.add_row(a.username, a.role, ids, "yes" if a.disabled else "")
    console.print(table)


@users_app.command("token")
def token_command(username: str) -> None:
    """Issue a new API token for an account (the old one stops working)."""
    db = _open()
    try:
        token = issue_token(db, username)
    except AccountError as exc:
        raise fail(str(exc)) from None
    finally:
        db.dispose()
    console.print(f"API token for {username} (shown once): [bold]{token}[/]")


@users_app.command("disable")
def disable_command(username: str, enable: bool = typer.Option(False, help="Re-enable instead.")) -> None:
    """Disable (or re-enable) an account; its sessions and token stop working at once."""
    db = _open()
    try:
        set_disabled(db, username, not enable)
    except AccountError as exc:
        raise fail(str(exc)) from None
    finally:
        db.dispose()
    console.print(f"{username}: {'enabled' if enable else 'disabled'}")


@users_app.command("password")
def password_command(username: str, password_stdin: bool = typer.Option(False)) -> None:
    """Set a new password."""
    password = (
        sys.stdin.readline().rstrip("\n")
        if password_stdin
        else typer.prompt("new password", hide_input=True, confirmation_prompt=True)
    )
    db = _open()
    try:
        set_password(db, username, password)
    except AccountError as exc:
        raise fail(str(exc)) from None
    finally:
        db.dispose()
    console.print(f"{username}: password changed")


@users_app.command("demo")
def demo_command(
    evaluator: bool = typer.Option(False, "--evaluator", help="Also the demo evaluator (read-only token)."),
) -> None:
    """Create the demo accounts for the ingested cohort (idempotent) and print them."""
    db = _open()
    try:
        print_demo_credentials(create_demo_accounts(db, evaluator=evaluator))
    finally:
        db.dispose()


def bench_serve_command(
    streams: int = typer.Option(20, help="Concurrent streams per round."),
    rounds: int = typer.Option(10, help="Rounds of each kind (alternated)."),
    dedicated: bool = typer.Option(
        True,
        help="Run the server as `chartside serve` does: the opening pool opened full, the start-up "
        "heap frozen out of the garbage collector (--no-dedicated: as tests run it).",
    ),
) -> None:
    """SSE overhead: time to first event and to done, vs a trivial SSE endpoint of the same app."""
    from server.bench import run_bench

    run_bench(get_settings(), streams=streams, rounds=rounds, dedicated=dedicated)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
    app.add_typer(users_app, name="users")
    bench_app.command("serve")(bench_serve_command)
