"""`chartside mcp` as a real subprocess, driven by the SDK's stdio client."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from tests.conftest import PROJECT_ROOT
from tests.mcp_server.conftest import appointments, audit_rows


def child_env(settings) -> dict[str, str]:
    """The test database for the child, whatever directory it starts in."""
    env = {
        "CHARTSIDE_DATA_DIR": str(settings.resolved_data_dir()),
        "CHARTSIDE_DATABASE_NAME": settings.database_name,
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    if settings.database_url:
        env["DATABASE_URL"] = settings.database_url
    return env


def command(patient: str, role: str = "patient") -> list[str]:
    return ["-m", "chartside", "mcp", "--patient", patient, "--role", role]


@pytest.mark.anyio
async def test_chartside_mcp_over_stdio_lists_the_catalog_and_answers(
    catalog_demo, catalog, settings, tmp_path
):
    params = StdioServerParameters(
        command=sys.executable, args=command(catalog_demo.patient), env=child_env(settings), cwd=tmp_path
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        listed = await session.list_tools()
        result = await session.call_tool("get_conditions", {"status": "all"})
    assert init.server_info.name == "chartside"
    assert "ONE patient's medical record" in (init.instructions or "")
    assert [t.model_dump(include={"name", "description", "input_schema"}) for t in listed.tools] == [
        {"name": d["name"], "description": d["description"], "input_schema": d["input_schema"]}
        for d in catalog.definitions()
    ]
    assert not result.is_error
    text = result.content[0].text
    assert "Essential hypertension" in text and "Acute bronchitis" in text and "CANARY" not in text
    (row,) = [
        r
        for r in audit_rows(catalog_demo.db, action="tool:get_conditions")
        if r["actor"].startswith("mcp-stdio:")
    ]
    assert (row["target_patient_id"], row["role"], row["outcome"]) == (catalog_demo.patient, "patient", "ok")


def test_chartside_mcp_refuses_an_unknown_patient_without_touching_stdout(demo, settings, tmp_path):
    done = subprocess.run(
        [sys.executable, *command("pat-nobody", "clinician")],
        env={**os.environ, **child_env(settings)},
        cwd=tmp_path,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2  # records.patients: every "which patient?" error exits 2
    assert done.stdout == ""
    assert "--patient 'pat-nobody': no patient with that id" in done.stderr
    (row,) = audit_rows(demo.db, target_patient_id="pat-nobody")
    assert (row["action"], row["outcome"], row["role"]) == ("mcp:bind", "denied", "clinician")
    assert row["actor"].startswith("mcp-stdio:")


def test_chartside_mcp_requires_a_patient(tmp_path, settings):
    done = subprocess.run(
        [sys.executable, "-m", "chartside", "mcp"],
        env={**os.environ, **child_env(settings)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--patient is required" in done.stderr


@pytest.mark.anyio
async def test_a_2026_protocol_client_books_over_stdio_because_the_process_is_the_conversation(
    catalog_demo, settings, tmp_path
):
    params = StdioServerParameters(
        command=sys.executable, args=command(catalog_demo.patient), env=child_env(settings), cwd=tmp_path
    )
    async with Client(params) as client:  # mode "auto": discovers the stateless 2026-07-28 protocol
        protocol = client.session.protocol_version
        offered = await client.call_tool(
            "find_slots", {"specialty_or_department": "general practice", "limit": 1}
        )
        booked = await client.call_tool("book_appointment", {"slot_id": "S1"})
    assert protocol == "2026-07-28"
    assert not booked.is_error, booked.content[0].text
    (appointment,) = appointments(catalog_demo.db, catalog_demo.patient)
    assert appointment["slot_id"] == offered.structured_content["rows"][0]["slot_id"]
    assert appointment["booked_by"].startswith("mcp-stdio:")
