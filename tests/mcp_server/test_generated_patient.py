"""A generated Synthea-shaped cohort, ingested through the real loader, read over MCP the way a
desktop client reads it: `chartside mcp` as a subprocess (stdio) and the web app's `/mcp`."""

from __future__ import annotations

import sys

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from sqlalchemy import text

from fhir_ingest.loader import ingest_paths
from records.scheduling import generate_slots
from server.app import create_app
from server.live import LiveServer
from synthea_data.generator import generate_cohort
from tests import conftest as base
from tests.conftest import wipe
from tests.mcp_server.catalog_calls import handles_in, read_calls
from tests.mcp_server.conftest import add_accounts, audit_rows
from tests.mcp_server.test_http_endpoint import connect
from tests.mcp_server.test_stdio_subprocess import child_env

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def cohort(db, tmp_path_factory):
    """Three generated patients, ingested; the first is read, the others' names must never show."""
    wipe(db)
    out = tmp_path_factory.mktemp("cohort") / "cohort"
    generate_cohort(out, patients=3, seed=7)
    report = ingest_paths(db, [out])
    assert report.ok, report
    generate_slots(db, days=14)
    with db.admin.connect() as conn:
        people = conn.execute(text("SELECT patient_id, family FROM patients ORDER BY patient_id")).all()
    (patient, _), *others = people
    tokens = add_accounts(db, patient, others[0][0])
    yield {"db": db, "patient": patient, "other_names": [family for _, family in others], "tokens": tokens}
    wipe(db)


def check(name: str, result, other_names: list[str]) -> None:
    text_ = result.content[0].text
    assert not result.is_error, (name, text_)
    assert not any(family in text_ for family in other_names), (name, text_)
    handles = {c["handle"] for c in result.structured_content["citations"]}
    assert handles == handles_in(text_), name


async def test_every_read_tool_over_a_real_stdio_subprocess(cohort, catalog, settings, tmp_path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "chartside", "mcp", "--patient", cohort["patient"]],
        env=child_env(settings),
        cwd=tmp_path,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in read_calls(catalog):
            check(name, await session.call_tool(name, arguments), cohort["other_names"])
        profile = await session.call_tool("get_patient_profile", {})
    assert profile.structured_content["rows"][0]["record_id"] == cohort["patient"]
    rows = [
        r
        for r in audit_rows(cohort["db"], target_patient_id=cohort["patient"])
        if r["actor"].startswith("mcp-stdio:")
    ]
    assert {r["action"] for r in rows} >= {f"tool:{name}" for name, _ in read_calls(catalog)}
    assert {r["outcome"] for r in rows} == {"ok"}


async def test_every_read_tool_over_the_web_apps_http_endpoint(cohort, catalog):
    live = LiveServer(create_app(base.test_settings(), db=cohort["db"])).__enter__()
    try:
        async with connect(live.url, cohort["tokens"]["alice"]) as (client, _):
            for name, arguments in read_calls(catalog):
                check(name, await client.call_tool(name, arguments), cohort["other_names"])
    finally:
        live.__exit__(None, None, None)
