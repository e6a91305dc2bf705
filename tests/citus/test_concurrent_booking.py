"""50 patients on both workers race for one slot of the reference table: 1 booked, 49 "taken".

The row lock (`SELECT … FOR UPDATE` on the slot) and the unique constraint are enforced on
every placement of the reference table, inside each booking's distributed transaction, so the
race has one winner however the patients are spread over the nodes.
"""

from __future__ import annotations

from sqlalchemy import text

from tests.citus.conftest import node_of
from tests.tools.conftest import registry  # noqa: F401
from tests.tools.test_booking import clinic  # noqa: F401
from tests.tools.test_booking import (
    test_fifty_concurrent_attempts_make_exactly_one_booking as race_for_one_slot,
)


def test_the_racing_patients_live_on_different_workers(citus_db, clinic, registry):  # noqa: F811
    race_for_one_slot(clinic, registry)  # asserts 1 booked, 49 refused as taken
    with clinic.admin.connect() as conn:
        booked = (
            conn.execute(text("SELECT patient_id FROM appointments WHERE status = 'booked'")).scalars().all()
        )
        offered = conn.execute(text("SELECT DISTINCT patient_id FROM offered_slots")).scalars().all()
        assert len(booked) == 1 and len(offered) == 50
        contenders_on = {node_of(conn, "offered_slots", pid) for pid in offered}
    assert len(contenders_on) >= 2  # the 50 contenders were spread over both workers
