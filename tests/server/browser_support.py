"""Driving the chat page in headless Chromium: the shared pieces of the browser tests.

Chromium is Debian's package (`.ci/run` apt-gets it when absent) driven by Playwright for
Python with `executable_path` — Playwright never downloads a browser here. Without the
package a browser test skips with the reason on a developer machine and FAILS under CI, so a
CI run cannot pass without having exercised the browser.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROJECT_ROOT

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ANSWER_TIMEOUT_MS = 30_000


def require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = "Debian's chromium is not installed (apt-get install chromium; .ci/run does it)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def launch() -> Iterator[Any]:
    """A headless Chromium for one test (or module); screenshots go to test-artifacts/."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@dataclass
class Watched:
    """What went wrong in a page that a user would not see in a screenshot."""

    base_url: str
    problems: list[str] = field(default_factory=list)  # console errors, uncaught exceptions
    external: list[str] = field(default_factory=list)  # requests leaving the app (images in notes…)


def watch(page: Any, base_url: str) -> Watched:
    seen = Watched(base_url)
    page.on("console", lambda m: seen.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.problems.append(str(e)))
    page.on(
        "request",
        lambda r: seen.external.append(r.url) if not r.url.startswith((base_url, "data:")) else None,
    )
    return seen


def log_in(page: Any, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def ask(page: Any, question: str) -> Any:
    """Type a question, press Enter, wait until its answer has finished streaming."""
    before = page.locator("#messages > li").count()
    page.get_by_role("textbox", name="Ask about").fill(question)
    page.keyboard.press("Enter")
    message = page.locator("#messages > li").nth(before)
    message.locator('.answer[aria-busy="false"]').wait_for(timeout=ANSWER_TIMEOUT_MS)
    return message
