"""`chartside cluster up|down|status`: a local Citus coordinator + workers (records.cluster)."""

from __future__ import annotations

import typer
from rich.table import Table

from chartside.console import console, err_console, fail
from records.cluster import Cluster, ClusterError, default_cluster
from records.settings import get_settings

cluster_app = typer.Typer(
    help="A local Citus cluster (coordinator + workers on loopback) built by `make citus`.",
    no_args_is_help=True,
)


def _cluster() -> Cluster:
    return default_cluster(get_settings().resolved_data_dir())


@cluster_app.command("up")
def up_command(
    workers: int = typer.Option(2, "--workers", "-w", min=1, max=8, help="Number of worker nodes."),
) -> None:
    """Start the coordinator and workers (creating them at first use) and prepare the database."""
    settings = get_settings()
    cluster = _cluster()
    try:
        cluster.up(workers=workers, say=lambda line: err_console.print(line))
        url = cluster.prepare_database(settings.database_name)
    except ClusterError as exc:
        raise fail(str(exc)) from None
    console.print(f"DATABASE_URL={url.replace('+psycopg', '')}")
    err_console.print(
        "next: `DATABASE_URL=… chartside db upgrade` creates and distributes the schema; "
        "`chartside cluster down` stops the nodes"
    )


@cluster_app.command("down")
def down_command(
    delete: bool = typer.Option(False, "--delete", help="Also delete the nodes' data folders."),
) -> None:
    """Stop every node (fast shutdown)."""
    _cluster().down(delete=delete, say=lambda line: err_console.print(line))


@cluster_app.command("status")
def status_command() -> None:
    """Each node, its port and whether it answers; the coordinator's URL."""
    cluster = _cluster()
    states = cluster.status()
    if not states:
        raise fail(f"no cluster under {cluster.root}: run `chartside cluster up`")
    table = Table(
        "node", "address", "state", title=f"Citus cluster ({cluster.citus.version() or 'not built'})"
    )
    for state in states:
        table.add_row(state.node.name, f"127.0.0.1:{state.node.port}", state.detail)
    console.print(table)
    console.print(f"DATABASE_URL={cluster.url(get_settings().database_name).replace('+psycopg', '')}")
    if not all(s.running for s in states):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(cluster_app, name="cluster")
