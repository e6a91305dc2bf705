"""A PostgreSQL outage on demand: a byte-forwarding proxy in front of the embedded server's socket.

The application connects to the proxy's Unix socket (same database, same roles); the test
can then take the database "down" mid-question — every open connection is cut and new ones
are refused, as when the server crashes or the network drops — and bring it back. The
owner connection used by the test itself stays direct.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import tempfile
import threading
from pathlib import Path

SOCKET_NAME = ".s.PGSQL.5432"


class PgProxy:
    def __init__(self, target_socket_dir: str) -> None:
        self.target = str(Path(target_socket_dir) / SOCKET_NAME)
        self.dir = tempfile.mkdtemp(prefix="chartside-pgproxy-")
        self.path = os.path.join(self.dir, SOCKET_NAME)
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.accepted = 0

    # --- control -------------------------------------------------------------------------------

    def up(self) -> PgProxy:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        listener.bind(self.path)
        listener.listen(64)
        self._listener = listener
        self._thread = threading.Thread(target=self._accept_loop, args=(listener,), daemon=True)
        self._thread.start()
        return self

    def down(self) -> None:
        """Refuse new connections and cut every open one (a crash, from the client's side)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
        if self._thread is not None:
            self._thread.join(5)
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def close(self) -> None:
        self.down()
        with contextlib.suppress(OSError):
            os.rmdir(self.dir)

    def url(self, app_url: str) -> str:
        """The same connection URL, through the proxy's socket directory."""
        base, _, _ = app_url.partition("?host=")
        return f"{base}?host={self.dir}"

    # --- forwarding ----------------------------------------------------------------------------

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                server.connect(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, server))
                self.accepted += 1
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        selector = selectors.DefaultSelector()
        try:
            selector.register(a, selectors.EVENT_READ, b)
            selector.register(b, selectors.EVENT_READ, a)
            while True:
                for key, _ in selector.select(timeout=1.0):
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        return
                    key.data.sendall(data)
        except (OSError, ValueError):
            return
        finally:
            selector.close()
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()
            with self._lock:
                if (a, b) in self._pairs:
                    self._pairs.remove((a, b))
