"""Ground truth on real Synthea output (../shared/synthea-samples; skipped when absent).

The expected values are computed here straight from the raw bundles with the standard
library — not through ingestion, not through `evals.truth` — and compared with what the
evaluator computes by SQL after ingestion, and with the answers the generated questions carry.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from pathlib import Path

import pytest

from evals.generate import GenerateOptions, generate
from evals.truth import load_record
from fhir_ingest import loader
from tests.conftest import wipe

pytestmark = pytest.mark.samples

NOW = dt.datetime(2025, 8, 1, 12, tzinfo=dt.UTC)
EIE = "entered-in-error"


def _instant(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    if len(value) == 10:
        return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), tzinfo=dt.UTC)
    parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _code(resource: dict, field: str = "code") -> dict:
    codings = (resource.get(field) or {}).get("coding") or [{}]
    return codings[0]


def _loinc(resource: dict) -> str:
    """An observation's code: the LOINC coding when there is one (QI-Core puts SNOMED first)."""
    codings = (resource.get("code") or {}).get("coding") or [{}]
    return next((c["code"] for c in codings if c.get("system") == "http://loinc.org"), codings[0].get("code"))


def _status(resource: dict, field: str) -> str | None:
    return _code(resource, field).get("code") if resource.get(field) else None


class RawPatient:
    """What the bundle itself says, under the product's semantics, computed without the loader."""

    def __init__(self, path: Path) -> None:
        bundle = json.loads(path.read_text(encoding="utf-8"))
        self.resources = [e["resource"] for e in bundle["entry"]]
        self.by_url = {e["fullUrl"]: e["resource"] for e in bundle["entry"]}
        self.patient = next(r for r in self.resources if r["resourceType"] == "Patient")
        self.id = self.patient["id"]

    def of(self, kind: str) -> list[dict]:
        return [r for r in self.resources if r["resourceType"] == kind]

    def active_medication_displays(self) -> set[str]:
        """Active, not ended: a validity period's end, or the patient's death (real Synthea leaves a
        deceased patient's requests `active`; the product ends them at death)."""
        out = set()
        died = _instant(self.patient.get("deceasedDateTime"))
        if self.patient.get("deceasedBoolean") is True:
            return set()
        for r in self.of("MedicationRequest"):
            end = _instant(((r.get("dispenseRequest") or {}).get("validityPeriod") or {}).get("end"))
            if died and (end is None or died < end):
                end = died
            authored = _instant(r.get("authoredOn"))
            if r["status"] != "active" or (end and end <= NOW) or (authored and authored > NOW):
                continue
            if "medicationCodeableConcept" in r:
                out.add(_code(r, "medicationCodeableConcept")["display"])
            else:
                out.add(_code(self.by_url[r["medicationReference"]["reference"]])["display"])
        return out

    def current_allergy_displays(self) -> set[str]:
        return {
            _code(r)["display"]
            for r in self.of("AllergyIntolerance")
            if _status(r, "clinicalStatus") in (None, "active")
            and _status(r, "verificationStatus") not in (EIE, "refuted")
        }

    def active_condition_codes(self) -> set[str]:
        out = set()
        for r in self.of("Condition"):
            abated = _instant(r.get("abatementDateTime"))
            if (
                _status(r, "clinicalStatus") in ("active", "recurrence", "relapse")
                and _status(r, "verificationStatus") not in (EIE, "refuted")
                and not (abated and abated <= NOW)
            ):
                out.add(_code(r)["code"])
        return out

    def values(self) -> dict[str, list[tuple[dt.datetime, float]]]:
        """code → [(effective, value)] for quantities and quantity components."""
        out: dict[str, list[tuple[dt.datetime, float]]] = defaultdict(list)
        for r in self.of("Observation"):
            when = _instant(r.get("effectiveDateTime"))
            if r.get("status") in (EIE, "cancelled") or when is None or when > NOW:
                continue
            if "valueQuantity" in r:
                out[_loinc(r)].append((when, float(r["valueQuantity"]["value"])))
            for comp in r.get("component", []):
                if "valueQuantity" in comp:
                    out[_loinc(comp)].append((when, float(comp["valueQuantity"]["value"])))
        return out

    def given_immunizations(self) -> int:
        return sum(1 for r in self.of("Immunization") if r.get("status", "completed") == "completed")

    def encounters_by_year(self) -> dict[int, int]:
        out: dict[int, int] = defaultdict(int)
        for r in self.of("Encounter"):
            start = _instant((r.get("period") or {}).get("start"))
            if start and start <= NOW and r.get("status") not in (EIE, "cancelled"):
                out[start.astimezone(dt.UTC).year] += 1
        return dict(out)


@pytest.fixture(scope="module")
def sample_db(db, samples_dir):
    wipe(db)
    report = loader.ingest_paths(db, sorted(p for p in samples_dir.iterdir() if p.is_dir()))
    assert any(f.status != "failed" for f in report.files)
    yield db
    wipe(db)


def _patients(samples_dir: Path) -> list[RawPatient]:
    return [RawPatient(p) for p in sorted(samples_dir.rglob("*.json")) if "Information" not in p.name]


def test_record_semantics_match_the_raw_bundles(sample_db, samples_dir):
    checked = 0
    for raw in _patients(samples_dir):
        record = load_record(sample_db, raw.id, NOW)
        if record is None:  # a bundle the loader refused is reported by ingestion's own tests
            continue
        checked += 1
        assert str(record.patient.birth_date) == raw.patient["birthDate"], raw.id
        assert {m.display for m in record.active_medications()} == raw.active_medication_displays(), raw.id
        assert {a.display for a in record.current_allergies()} == raw.current_allergy_displays(), raw.id
        assert {c.code for c in record.active_conditions()} == raw.active_condition_codes(), raw.id
        assert len(record.given_immunizations()) == raw.given_immunizations(), raw.id
        years: dict[int, int] = defaultdict(int)
        for e in record.valid_encounters():
            years[e.start.astimezone(dt.UTC).year] += 1
        assert dict(years) == raw.encounters_by_year(), raw.id
        for code, points in raw.values().items():
            newest = max(p[0] for p in points)
            if len({v for t, v in points if t == newest}) != 1:
                continue  # ambiguous latest: the generator never asks about it
            series = record.series(code)
            assert series, (raw.id, code)
            assert series[-1].effective == newest and series[-1].value == pytest.approx(
                next(v for t, v in points if t == newest)
            ), (raw.id, code)
            assert len(series) == len(points), (raw.id, code)
    assert checked >= 20


def test_generated_answers_match_the_raw_bundles(sample_db, samples_dir):
    raws = {r.id: r for r in _patients(samples_dir)}
    _, questions = generate(sample_db, GenerateOptions(seed=5, now=NOW, patients=None))
    assert len(questions) > 300
    checked = 0
    for q in questions:
        raw = raws.get(q.patient_id)
        if raw is None:
            continue
        if q.template == "latest_value":
            code = q.explanation.split(" values of ")[1].split(" ")[0]
            points = raw.values()[code]
            newest = max(points)[0]
            assert q.expected.value == pytest.approx(next(v for t, v in points if t == newest)), q.id
            checked += 1
        elif q.template == "active_medications":
            labels = {i.label for i in q.expected.items}
            from evals.vocab import drug_name

            assert {drug_name(d) for d in raw.active_medication_displays()} == {
                drug_name(x) for x in labels
            }, q.id
            checked += 1
        elif q.template == "birth_date":
            assert q.expected.value.isoformat() == raw.patient["birthDate"]
            checked += 1
        elif q.template == "encounter_count_year":
            year = int(q.explanation.split("starting in ")[1][:4])
            assert q.expected.value == raw.encounters_by_year()[year], q.id
            checked += 1
    assert checked >= 60
