"""The port check every serving command makes first (a module of its own: `chartside up` calls
it before importing anything heavy, so a busy port is refused at once)."""

from __future__ import annotations

from chartside.console import fail


def check_port_free(host: str, port: int) -> None:
    """Refuse, with what to do, an address another process is listening on.

    Checked before anything is printed or prepared, so "serving at …" is never followed by
    uvicorn's bare "address already in use".
    """
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise fail(f"--host {host!r}: cannot listen there ({exc.strerror})", code=2) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise fail(
                    f"port {port} on {host} is already in use (another `chartside serve` or `make run`?): "
                    f"stop it, or choose another port with --port (or CHARTSIDE_PORT)",
                    code=2,
                ) from None
            raise fail(f"cannot listen on {host}:{port}: {exc.strerror}", code=2) from None
