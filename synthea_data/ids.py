"""Deterministic identifiers: every uuid, NPI and number comes from a seeded RNG.

Synthea's ids are random 128-bit values printed as uuids (their version nibble is not set, e.g.
`e3de688a-4c81-fba8-a67c-510004c8fe82`); ours are the same, drawn from the patient's own RNG so
that a patient's ids depend only on the seed and the patient's position in the cohort.
"""

from __future__ import annotations

import random
import uuid


class IdSource:
    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def uuid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128)))

    def digits(self, count: int) -> str:
        return "".join(str(self._rng.randrange(10)) for _ in range(count))


def rng_for(seed: int, *parts: object) -> random.Random:
    """An RNG for one part of the cohort, independent of every other part.

    String seeds are hashed with SHA-512 by `random.Random`, so this is stable across Python
    processes and platforms (unlike `hash()`), which is what byte-identical output needs.
    """
    return random.Random(":".join(str(p) for p in (seed, *parts)))
