"""Install Chartside into `.venv` with uv, configured from pip's own configuration; pip if not.

Why: pip spends most of a first `make run` resolving and fetching ~70 packages one at a time
(about 37 s of 55 s on an idle 2-core machine); `uv pip install` does the same install in a few
seconds. uv does not read pip's configuration files, and machines like ours keep their package
sources there (a local index, find-links, a constraints file). So this script asks pip for its
effective configuration (`pip config list`: files and `PIP_*` variables, exactly what pip would
use), translates every setting that changes *what* gets installed into uv's equivalent, and
uses pip's resolution rule (best version across all indexes: `--index-strategy
unsafe-best-match`), so uv installs the same versions pip would. A setting it does not
understand makes it fall back to pip rather than install something else; so does uv not being
installable or failing. It creates the venv too (without ensurepip's few seconds when uv
installs). Run with the Python the venv is for; stdlib only (nothing else is installed yet).

Usage: `python3 scripts/venv_install.py [--venv .venv] [--installer auto|uv|pip] -- REQUIREMENT…`,
where a requirement prefixed with `nodeps:` is installed without its dependencies.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# pip settings that only change how pip talks or looks, never which files get installed.
HARMLESS = frozenset(
    {
        "disable-pip-version-check",
        "progress-bar",
        "quiet",
        "verbose",
        "no-color",
        "no-input",
        "root-user-action",
        "no-warn-script-location",
        "retries",
        "cache-dir",  # uv keeps its own cache
        "no-cache-dir",
        "log",
        "exists-action",
        "no-python-version-warning",
        "use-feature",
        "use-deprecated",
        "break-system-packages",  # we install into a venv
    }
)
SECTIONS = frozenset({"global", "install", ":env:"})  # what `pip install` reads
# pip setting → the uv option that means the same
REPEATED = {
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
    "constraints": "--constraint",
    "trusted-host": "--allow-insecure-host",
}
SINGLE = {"index-url": "--index-url", "only-binary": "--only-binary", "no-binary": "--no-binary"}
SWITCHES = {"no-index": ["--no-index"], "pre": ["--prerelease", "allow"]}
ENVIRONMENT = {"cert": "SSL_CERT_FILE", "client-cert": "SSL_CLIENT_CERT"}  # uv reads these variables


class Untranslatable(Exception):
    """A pip setting uv has no faithful equivalent for here: install with pip instead."""


@dataclass
class UvConfig:
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def parse_pip_config(listing: str) -> dict[str, str]:
    """`pip config list` output → {key: value}, later lines (higher precedence) winning.

    pip prints `section.key='value'`; `:env:` is the `PIP_*` variables, which override files.
    Sections other than those `pip install` reads are dropped.
    """
    found: dict[tuple[int, str], str] = {}
    order = {"global": 0, "install": 1, ":env:": 2}
    for line in listing.splitlines():
        name, sep, raw = line.partition("=")
        if not sep:
            continue
        section, _, key = name.strip().rpartition(".")
        if section not in SECTIONS:
            continue
        value = raw.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found[(order[section], key.replace("_", "-"))] = value
    out: dict[str, str] = {}
    for (_, key), value in sorted(found.items()):
        out[key] = value
    return out


def _truthy(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


def translate(config: Mapping[str, str]) -> UvConfig:
    """pip's effective settings → uv arguments and environment, or `Untranslatable`."""
    uv = UvConfig(args=["--index-strategy", "unsafe-best-match"])  # pip's rule: best version anywhere
    for key, value in config.items():
        if key in HARMLESS:
            continue
        if key in REPEATED:  # pip takes a whitespace-separated list; uv one option per item
            for item in value.split():
                uv.args += [REPEATED[key], item]
        elif key in SINGLE:
            uv.args += [SINGLE[key], value.strip()]
        elif key in SWITCHES:
            uv.args += SWITCHES[key] if _truthy(value) else []
        elif key in ENVIRONMENT:
            uv.env[ENVIRONMENT[key]] = value.strip()
        elif key in ("timeout", "default-timeout"):
            uv.env["UV_HTTP_TIMEOUT"] = str(int(float(value)))
        elif key == "proxy":
            uv.env["HTTPS_PROXY"] = uv.env["HTTP_PROXY"] = value.strip()
        else:
            raise Untranslatable(f"pip setting {key!r} has no uv equivalent here")
    return uv


def pip_config(python: str) -> dict[str, str]:
    done = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True)
    return parse_pip_config(done.stdout)


def venv_python(venv: Path) -> str:
    return str(venv / "bin" / "python")


def create_venv(venv: Path, *, with_pip: bool) -> None:
    """`python -m venv`. Without pip it takes a fraction of a second; ensurepip alone is 2–3 s
    idle (25 s measured under load): the uv path adds pip afterwards, from uv's cache."""
    subprocess.run(
        [sys.executable, "-m", "venv", *([] if with_pip else ["--without-pip"]), str(venv)], check=True
    )


def find_uv(python: str) -> str | None:
    """uv in the venv or on PATH, else installed into the venv by this Python's pip (which reads
    the same configuration; one wheel), or None if that fails."""
    venv_uv = Path(python).parent / "uv"
    if venv_uv.exists():
        return str(venv_uv)
    if on_path := shutil.which("uv"):
        return on_path
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "-q",
            "--disable-pip-version-check",
            "uv",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return str(venv_uv) if done.returncode == 0 and venv_uv.exists() else None


def split_requirements(requirements: Sequence[str]) -> tuple[list[str], list[str]]:
    with_deps = [r for r in requirements if not r.startswith("nodeps:")]
    no_deps = [r.removeprefix("nodeps:") for r in requirements if r.startswith("nodeps:")]
    return with_deps, no_deps


def install_with_uv(uv: str, python: str, config: UvConfig, requirements: Sequence[str]) -> bool:
    """The requirements, then pip itself (so `.venv/bin/pip` is there as with `python -m venv`)."""
    with_deps, no_deps = split_requirements(requirements)
    env = {**os.environ, **config.env}
    base = [uv, "pip", "install", "--python", python, *config.args]
    print(f"venv: installing with uv ({shlex.join(config.args)})", flush=True)
    for extra, reqs in (([], [*with_deps, "pip"]), (["--no-deps"], no_deps)):
        if reqs and subprocess.run([*base, *extra, *reqs], env=env, check=False).returncode != 0:
            return False
    return True


def install_with_pip(python: str, requirements: Sequence[str]) -> None:
    """pip itself (its own configuration applies), with one live progress line instead of its
    few hundred lines of output (errors still show: they go to stderr)."""
    with_deps, no_deps = split_requirements(requirements)
    print("venv: installing with pip (a minute or two)", flush=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    pip = [python, "-m", "pip", "install", "--progress-bar", "off"]
    if with_deps:
        run_with_progress([*pip, *with_deps])
    if no_deps:
        subprocess.run([*pip, "-q", "--no-deps", *no_deps], check=True)


def run_with_progress(argv: Sequence[str]) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONWARNINGS": "ignore"}
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None
        resolved = 0
        for line in proc.stdout:
            if line.startswith(("Collecting", "Processing")):  # from an index / from a local file
                resolved += 1
                name = Path(line.split()[1]).name
                print(f"\r  {resolved} packages resolved ({name})          ", end="", flush=True)
            elif line.startswith("Installing collected"):
                print(f"\n  installing {resolved} packages…", flush=True)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, list(argv))


def try_uv(venv: Path, requirements: Sequence[str]) -> bool:
    """The uv install, or False (with the reason printed) when pip must do it."""
    try:
        config = translate(pip_config(sys.executable))
    except (Untranslatable, subprocess.CalledProcessError, ValueError) as exc:
        print(f"venv: not using uv: {exc}", flush=True)
        return False
    create_venv(venv, with_pip=False)
    python = venv_python(venv)
    uv = find_uv(python)
    if uv is None:
        print("venv: not using uv: it could not be installed", flush=True)
        return False
    if not install_with_uv(uv, python, config, requirements):
        print("venv: uv failed; installing with pip instead", flush=True)
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(".venv"))
    parser.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto")
    parser.add_argument("requirements", nargs="+")
    ns = parser.parse_args(argv)
    started = time.perf_counter()
    if ns.installer != "pip":
        if try_uv(ns.venv, ns.requirements):
            print(f"venv: installed in {time.perf_counter() - started:.1f} s", flush=True)
            return 0
        if ns.installer == "uv":
            return 1
    create_venv(ns.venv, with_pip=True)  # on a venv made without pip, this adds it
    install_with_pip(venv_python(ns.venv), ns.requirements)
    print(f"venv: installed in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
