"""Scoped asking in headless Chromium (issue 11): "ask about this" on a lab row gives a scoped,
cited answer with its metrics panel; "ask about these" on a section works with one click.

Two real agents answer: the offline planner, and the Claude loop talking to the fake Messages
API (so the metrics panel shows model turns, tokens and cost). Screenshots of the
record-scoped answer with its metrics panel open go to test-artifacts/.
"""

from __future__ import annotations

import re

import pytest

from tests.fakes.anthropic_server import FakeMessagesAPI, text_message, tool_use_message, usage
from tests.server.browser_support import ARTIFACTS, log_in
from tests.server.conftest import PASSWORD, A
from tests.server.real_agents import claude_factory, offline_factory, serve_agent

pytestmark = pytest.mark.browser

A1C_ROW = "Ask about this: HbA1c 6.1 % (2024-03-01)"


def _watch(page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


def _ask_about_the_a1c_row(page, question: str | None):
    before = page.locator("#messages > li").count()
    page.get_by_role("button", name=A1C_ROW).click()
    chip = page.locator("#scope-chip")
    assert chip.is_visible() and "HbA1c 6.1 % (2024-03-01)" in chip.inner_text()
    assert page.evaluate("document.activeElement.id") == "question"  # ready to type
    if question:
        page.keyboard.type(question)
    page.keyboard.press("Enter")
    message = page.locator("#messages > li").nth(before)
    message.locator('.answer[aria-busy="false"]').wait_for(timeout=30_000)
    assert not chip.is_visible()  # the scope was for that one question
    return message


def _metrics(message) -> dict[str, str]:
    message.locator("details.metrics > summary").click()
    terms = message.locator("details.metrics dt").all_inner_texts()
    values = message.locator("details.metrics dd").all_inner_texts()
    return dict(zip(terms, values, strict=True))


def test_offline_ask_about_this_lab_row_gives_a_scoped_cited_answer(world, browser):
    with serve_agent(world.db, offline_factory) as url:
        page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
        problems = _watch(page)
        log_in(page, url, "alice", PASSWORD)
        page.wait_for_url(f"**/patients/{A}")
        message = _ask_about_the_a1c_row(page, "Is this normal?")

        answer = message.locator(".answer").inner_text()
        assert "Scope: this one result — Hemoglobin A1c/Hemoglobin.total in Blood (2024-03-01)" in answer
        assert "6.1 % is above the upper reference limit of 5.7" in answer
        assert "Background (not the answer):" in answer
        assert (
            message.locator(".scope-badge").inner_text().startswith("Asked about this record: Hemoglobin A1c")
        )
        trace = message.locator(".trace li")
        assert trace.count() == 3 and "background — context, not the answer" in trace.nth(2).text_content()

        metrics = _metrics(message)
        assert metrics["Mode"] == "offline" and metrics["Model iterations"] == "0"
        assert metrics["Scope"].startswith("record: Hemoglobin A1c")
        assert metrics["Tool calls"].startswith("3")
        rows = message.locator(".tool-metrics tbody tr")
        assert rows.count() == 3 and rows.nth(2).locator("td").last.inner_text() == "background"

        message.locator("button.cite", has_text="L1").first.click()
        dialog = page.locator("#record-dialog")
        dialog.get_by_text("Hemoglobin A1c/Hemoglobin.total in Blood").wait_for()
        assert "6.1" in dialog.locator(".fields").inner_text()
        dialog.get_by_role("button", name="Close").click()
        page.screenshot(path=str(ARTIFACTS / "record-scoped-offline.png"), full_page=True)

        # one click on a section: the default question, limited to that section
        before = page.locator("#messages > li").count()
        page.get_by_role("button", name="Ask about these: medications").click()
        page.get_by_role("button", name="Ask", exact=True).click()
        section = page.locator("#messages > li").nth(before)
        section.locator('.answer[aria-busy="false"]').wait_for(timeout=30_000)
        assert section.locator(".question").inner_text() == "What does this part of my record show?"
        text = section.locator(".answer").inner_text()
        assert "Scope: the medications section of the record only." in text and "Metformin 500 MG" in text
        assert problems == []


def test_claude_record_scoped_answer_with_its_metrics_panel_open(world, browser):
    fake = FakeMessagesAPI().start()
    fake.enqueue(
        tool_use_message(
            [("get_labs", {"query": "A1C"})],
            text="Let me compare it with your earlier results.",
            usage_=usage(1020, 48, cache_read=2600),
        ),
        text_message(
            "This HbA1c result was 6.1 % on 2024-03-01 [L1]. The record gives an upper reference "
            "limit of 5.7 with it [L1], so it is above that range. Your earlier results were 6.4 % on "
            "2022-06-01 [L2] and 7.2 % on 2021-06-01 [L3], so it has come down. What this means for "
            "you is a question for your care team.",
            usage_=usage(1410, 132, cache_read=2600),
        ),
    )
    try:
        with serve_agent(world.db, claude_factory(fake), anthropic_api_key="sk-ant-test-fake") as url:
            page = browser.new_context(viewport={"width": 1280, "height": 1100}).new_page()
            problems = _watch(page)
            log_in(page, url, "alice", PASSWORD)
            page.wait_for_url(f"**/patients/{A}")
            assert "Offline mode" not in page.locator(".chat").inner_text()
            message = _ask_about_the_a1c_row(page, "Is this normal?")

            answer = message.locator(".answer")
            assert answer.inner_text().startswith(
                "Scope: this one result — Hemoglobin A1c/Hemoglobin.total in Blood (2024-03-01) L1."
            )
            assert sorted(set(answer.locator("button.cite").all_inner_texts())) == ["L1", "L2", "L3"]
            assert message.locator(".grounding").is_hidden()  # every number matched its cited row

            # the model was handed the record and the labelled background before it answered
            first = fake.message_requests[0].body["messages"][-1]["content"]
            texts = [b["text"] for b in first if b["type"] == "text"]
            assert any("<question_scope>" in t and "[L1] Hemoglobin A1c" in t for t in texts)
            assert any(t.startswith("<background>") and "Diabetes mellitus type 2" in t for t in texts)

            metrics = _metrics(message)
            assert metrics["Mode"] == "claude (claude-sonnet-5-5)"
            assert metrics["Model iterations"] == "2"
            assert metrics["Tokens in / out"] == "2430 / 180"
            assert metrics["Cached tokens read / written"] == "5200 / 0"
            assert re.fullmatch(r"\$0\.\d{4}", metrics["Estimated cost"])
            assert re.fullmatch(r"\d+ ms|\d+\.\d\d s", metrics["Time to first token"])
            assert re.fullmatch(r"\d+ ms|\d+\.\d\d s", metrics["Total time"])
            tools = message.locator(".tool-metrics tbody tr")
            assert [tools.nth(i).locator("td").first.inner_text() for i in range(tools.count())] == [
                "get_scoped_record",
                "get_conditions",
                "get_labs",
            ]
            message.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "record-scoped-answer.png"), full_page=True)
            message.screenshot(path=str(ARTIFACTS / "record-scoped-answer-message.png"))
            assert problems == []
    finally:
        fake.stop()
