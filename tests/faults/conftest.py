"""The web-service world and the live agent (real agent, fake Messages API) for this suite."""

from tests.live_agent import serve_agent  # noqa: F401  (fixture)
from tests.server.conftest import serve, world  # noqa: F401  (fixtures)
