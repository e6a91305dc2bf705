"""The web-service world (patients A, B, C; alice, bob, carol, eve) for the scale and attack tests."""

from tests.server.conftest import serve, world  # noqa: F401  (fixtures re-exported)
