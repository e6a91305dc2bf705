"""Fields read in place (no located view) agree with the checked accessors on any JSON value:
the same value, or the same error naming the entry and the field. (Observations, read in place
here before round thirteen, are read as typed structs now: `test_typed.py`.)"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fhir_ingest.errors import BundleError
from fhir_ingest.fields import Fields

_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.sampled_from(["2019", "2019-07-14", "2019-07-14T10:00:00+02:00", "2019-07-14T10:00:00", "2019-13"]),
)
_value = st.one_of(_scalar, st.just([]), st.lists(_scalar, max_size=2))


def _outcome(read):
    try:
        return ("value", read())
    except BundleError as exc:
        return ("error", str(exc))


@given(st.one_of(_value, st.fixed_dictionaries({}, optional={"start": _value, "end": _value})))
def test_a_period_read_in_place_agrees_with_the_located_view(period):
    r = Fields({"period": period}, 4, "resource", "Encounter/e-1")

    def checked():
        p = r.obj("period")
        return (None, None) if p is None else (p.instant("start"), p.instant("end"))

    assert _outcome(lambda: r.period("period")) == _outcome(checked)
