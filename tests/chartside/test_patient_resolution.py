"""Issue 18 item 10: one patient-resolution rule for every command (full id or unique prefix).

Before, `chartside tools call` / `notes search` with a prefix or an unknown id printed
"No allergies…" and exited 0; `find_slots` with a prefix raised a ForeignKeyViolation;
`--patient ""` printed a pydantic traceback.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chartside.cli import app, build
from records.patients import PatientNotResolved, resolve_patient
from tests.builder import RecordBuilder, reference_data

runner = CliRunner()
IDS = ("aa11-first", "aa22-second", "bb33-third")


@pytest.fixture()
def patients(clean_db, settings, monkeypatch):
    for module in ("tools.cli", "knowledge.cli", "agent.cli"):
        monkeypatch.setattr(f"{module}.get_settings", lambda: settings)
    if not app.registered_groups:
        build()
    for pid in IDS:
        RecordBuilder(pid, name=f"Patient {pid}").write(clean_db)
    return clean_db


def test_full_id_and_unique_prefix_resolve(patients):
    assert resolve_patient(patients, "aa11-first").patient_id == "aa11-first"
    assert resolve_patient(patients, "bb").patient_id == "bb33-third"
    assert resolve_patient(patients, "  aa2 ").patient_id == "aa22-second"


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("zz", "no patient with that id"),
        ("aa", "matches several patients (aa11-first, aa22-second)"),
        ("a%", "no patient with that id"),  # LIKE wildcards are literal
        ("_a", "no patient with that id"),
        ("aa\x00", "not a patient id"),
    ],
)
def test_unknown_ambiguous_and_empty_ids_are_errors_naming_the_value(patients, given, words):
    with pytest.raises(PatientNotResolved) as caught:
        resolve_patient(patients, given)
    assert words in str(caught.value)
    if given.strip():
        assert repr(given) in str(caught.value)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=12))
def test_any_input_resolves_to_a_real_patient_or_raises(patients, given):
    try:
        resolved = resolve_patient(patients, given)
    except PatientNotResolved as exc:
        assert "--patient" in str(exc)
    else:
        assert resolved.patient_id in IDS and resolved.patient_id.startswith(given.strip())


@pytest.mark.parametrize("given", ["zz-nobody", "aa", ""])
def test_tools_call_exits_2_instead_of_a_confident_false_negative(patients, given):
    result = runner.invoke(app, ["tools", "call", "get_allergies", "--patient", given])
    assert result.exit_code == 2, result.output
    assert "No allergies" not in result.output and "Traceback" not in result.output
    assert "--patient" in result.output


def test_tools_call_with_a_prefix_reads_that_patient(patients):
    reference_data(patients)
    from records.scheduling import generate_slots

    generate_slots(patients, days=7)
    result = runner.invoke(
        app,
        [
            "tools",
            "call",
            "find_slots",
            "--patient",
            "bb",
            "--args",
            '{"specialty_or_department": "general practice"}',
        ],
    )
    assert result.exit_code == 0, result.output
    assert "slot_id" in result.output


def test_notes_search_exits_2_for_an_unknown_patient(patients):
    result = runner.invoke(app, ["notes", "search", "--patient", "zz-nobody", "chest pain"])
    assert result.exit_code == 2, result.output
    assert "'zz-nobody'" in result.output


def test_ask_exits_2_for_an_ambiguous_prefix(patients):
    result = runner.invoke(app, ["ask", "--patient", "aa", "--offline", "What are my allergies?"])
    assert result.exit_code == 2, result.output
    assert "matches several patients" in result.output
