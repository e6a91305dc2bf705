from __future__ import annotations

import pytest

from records.database import Database
from tests.evals import cohort


@pytest.fixture()
def cohort_db(clean_db: Database) -> Database:
    cohort.build(clean_db)
    return clean_db
