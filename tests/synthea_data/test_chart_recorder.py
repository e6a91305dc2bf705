"""The simulator decides, the chart recorder writes: `synthea_data/simulate.py` builds no record
entry itself and appends to no record list; `synthea_data/chart.py` draws nothing random.
(The output stays byte-identical: `test_determinism.py`'s golden digests.)"""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

from synthea_data import model
from synthea_data.chart import ChartRecorder
from synthea_data.codes import Cond, Enc, Med
from synthea_data.ids import IdSource, rng_for
from synthea_data.providers import Network

PKG = Path(__file__).resolve().parents[2] / "synthea_data"
RECORD_CLASSES = {
    name for name, obj in vars(model).items() if isinstance(obj, type) and obj.__module__ == model.__name__
}
RECORD_LISTS = {
    "observations",
    "reports",
    "conditions",
    "prescriptions",
    "allergies",
    "administrations",
    "immunizations",
    "procedures",
    "care_plans",
    "devices",
    "supplies",
    "narrative",
    "visits",
    "meds",
}


def _tree(name: str) -> ast.Module:
    return ast.parse((PKG / name).read_text(encoding="utf-8"))


def test_the_simulator_writes_only_through_the_chart_recorder():
    found = []
    for node in ast.walk(_tree("simulate.py")):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in RECORD_CLASSES - {"Quantity"}
        ):
            found.append(f"simulate.py:{node.lineno}: builds {node.func.id}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"append", "extend"}
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr in RECORD_LISTS
        ):
            found.append(f"simulate.py:{node.lineno}: appends to .{node.func.value.attr}")
    assert found == [], "\n".join(found)


def test_the_chart_recorder_draws_nothing_random():
    names = {n.attr for n in ast.walk(_tree("chart.py")) if isinstance(n, ast.Attribute)}
    assert "rng" not in names and "random" not in names


def test_the_recorder_keeps_current_episodes_and_courses():
    ids = IdSource(rng_for(1, "patient-ids", 0))
    chart = ChartRecorder(ids, set(), female=True)
    network = Network(1)
    org = network.organizations[0]
    practitioner = network.staff(org)[0]
    start = dt.datetime(2020, 1, 1, 9)
    visit = chart.new_visit("wellness", "AMB", Enc.CHECK_UP, start, 30, org, practitioner)
    dx = chart.diagnose(visit, "hypertension", Cond.HYPERTENSION)
    chart.prescribe(visit, "lisinopril", Med.LISINOPRIL_10, reason=dx)
    later = start + dt.timedelta(days=30)
    assert chart.has("hypertension", later) and chart.taking("lisinopril", later)
    assert not chart.taking("lisinopril", start)  # started at this visit: no effect yet
    chart.stop("lisinopril", later)
    chart.resolve("hypertension", later)
    assert not chart.has("hypertension", later + dt.timedelta(days=1))
    assert not chart.taking("lisinopril", later + dt.timedelta(days=1))
    assert chart.visits == [visit] and visit.conditions == [dx] and chart.usage.encounters[org.id] == 1
