"""Run the app on a loopback port in a background thread (the benchmark and the tests).

A real uvicorn server, so streams, disconnects and reconnects behave as they do in
production; port 0 lets the OS pick a free port.
"""

from __future__ import annotations

import threading
import time

import uvicorn
from starlette.types import ASGIApp


class LiveServer:
    def __init__(self, app: ASGIApp, host: str = "127.0.0.1") -> None:
        config = uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="on", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="chartside-live", daemon=True)
        self.host = host
        self.port = 0

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
