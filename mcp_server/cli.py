"""`chartside mcp --patient ID`: serve one patient's record to a local MCP client over stdio.

A desktop MCP client starts this command itself (see the README, or `--print-config` for a
ready-made entry). Stdout carries only MCP frames; every message for a human goes to stderr.
"""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path

import anyio
import typer
from sqlalchemy.exc import SQLAlchemyError

from chartside.console import console, fail
from chartside.groups import bench_app
from mcp_server.catalog import RegistryUnavailable, load_registry
from records.database import open_database
from records.settings import Settings, get_settings


class McpRole(enum.StrEnum):
    patient = "patient"
    clinician = "clinician"


def client_config(settings: Settings, patient: str, role: str) -> dict:
    """A desktop client's `mcpServers` entry that launches this checkout's `chartside mcp`."""
    command = Path(sys.executable).with_name("chartside")
    env = {"CHARTSIDE_DATA_DIR": str(settings.resolved_data_dir())}
    if settings.database_url:
        env["DATABASE_URL"] = "<your DATABASE_URL>"
    return {
        "mcpServers": {
            "chartside": {
                "command": str(command if command.exists() else "chartside"),
                "args": ["mcp", "--patient", patient, "--role", role],
                "env": env,
            }
        }
    }


def mcp_command(
    patient: str = typer.Option(None, "--patient", help="The patient whose record the client may read."),
    role: McpRole = typer.Option(McpRole.patient, "--role", help="Whom the record is presented to."),
    print_config: bool = typer.Option(
        False, "--print-config", help="Print a desktop client's config entry for this checkout and exit."
    ),
) -> None:
    """Serve one patient's record to a local MCP client over stdio (the client starts this)."""
    # imported here: the MCP SDK takes a second or two to import, which every other
    # `chartside` command would otherwise pay at start
    from mcp_server.stdio import (
        PatientNotFound,
        bind_stdio,
        build_stdio_server,
        protocol_streams_diverted,
        serve_stdio,
    )

    settings = get_settings()
    if print_config:
        console.print_json(json.dumps(client_config(settings, patient or "PATIENT_ID", role.value)))
        return
    if not patient:
        raise fail("--patient is required: the MCP client may only ever read the record you choose here")
    with protocol_streams_diverted():
        try:
            registry = load_registry()
        except RegistryUnavailable as exc:
            raise fail(str(exc)) from None
        db = open_database(settings)
        try:
            binding = bind_stdio(db, patient, role.value)
        except PatientNotFound as exc:
            db.dispose()
            raise fail(f"{exc} (refused; see `chartside db status`)") from None
        except SQLAlchemyError as exc:
            db.dispose()
            raise fail(
                f"cannot read the database ({type(exc).__name__}); run `chartside db upgrade`"
            ) from None
    # no embedder yet: the search tools load the process's one on their first call, so the
    # client's `initialize` is answered without waiting ~1 s for the model (`bench startup`)
    server = build_stdio_server(registry, db, binding)
    try:
        anyio.run(serve_stdio, server)
    except KeyboardInterrupt:  # Ctrl-C when run by hand: stop quietly, like a closed stdin
        pass
    finally:
        db.dispose()


def bench_command(
    calls: int = typer.Option(200, "--calls", help="Timed calls per tool and transport."),
    patients: int = typer.Option(100, "--patients", help="Bench population size (one of them is called)."),
    seed: int = typer.Option(11, "--seed", help="Population seed."),
) -> None:
    """Per-call latency of the tools over MCP (in-process, stdio, HTTP) vs calling them directly."""
    from mcp_server.bench import bench_mcp_command

    bench_mcp_command(calls=calls, patients=patients, seed=seed)


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp_command)
    bench_app.command("mcp")(bench_command)
