"""50 patients on both workers race for one slot of the reference table: 1 booked, 49 "taken".

The row lock (`SELECT … FOR UPDATE` on the slot) and the unique constraint are enforced on
every placement of the reference table, inside each booking's distributed transaction, so the
race has one winner however the patients are spread over the nodes.
"""

from __future__ import annotations

from sqlalchemy import text

from tests.tools.conftest import registry  # noqa: F401
from tests.tools.test_booking import clinic  # noqa: F401
from tests.tools.test_booking import (
    test_fifty_concurrent_attempts_make_exactly_one_booking as race_for_one_slot,
)


def test_the_racing_patients_live_on_different_workers(citus_db, clinic, registry):  # noqa: F811
    race_for_one_slot(clinic, registry)  # asserts 1 booked, 49 refused as taken
    with clinic.admin.connect() as conn:
        ports = set(
            conn.execute(
                text(
                    "SELECT s.nodeport FROM appointments a JOIN citus_shards s ON s.table_name = "
                    "'appointments'::regclass AND s.shardid = get_shard_id_for_distribution_column("
                    "'appointments', a.patient_id) WHERE a.patient_id LIKE 'p-race-%'"
                )
            ).scalars()
        )
        offered_on = set(
            conn.execute(
                text(
                    "SELECT s.nodeport FROM offered_slots o JOIN citus_shards s ON s.table_name = "
                    "'offered_slots'::regclass AND s.shardid = get_shard_id_for_distribution_column("
                    "'offered_slots', o.patient_id) WHERE o.patient_id LIKE 'p-race-%'"
                )
            ).scalars()
        )
    assert len(ports) == 1  # the one winner's appointment
    assert len(offered_on) >= 2  # the 50 contenders were spread over both workers
