"""A live Daphne in a subprocess, for end-to-end tests (browsers, races between two processes).

    with live_server_process(port, env) as base_url:   # "http://127.0.0.1:PORT"
        ...

Migrates a fresh SQLite file in a temporary directory (or the DATABASE_URL given in `env`),
starts `daphne -b 127.0.0.1 -p PORT solitaire_site.asgi:application`, waits until /healthz
answers, and stops the process on the way out. Give two servers the same DATABASE_URL (and a
REDIS_URL) to run one service on two processes. The server processes come from
scripts/servers.py, which load runs and drills use too.
"""

from __future__ import annotations

import contextlib
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

from scripts.servers import Daphne, free_port, migrate, server_env

__all__ = ["free_port", "live_server_process"]


def check_port_free(port: int) -> None:
    """RuntimeError if something already listens on 127.0.0.1:port (it would answer for us)."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as error:
            raise RuntimeError(f"port {port} is taken: {error}") from error


@contextlib.contextmanager
def live_server_process(
    port: int | None = None, env: dict[str, str] | None = None, timeout: float = 30.0
) -> Iterator[str]:
    """Yield the base URL of a Daphne serving the project on 127.0.0.1:`port` (free if None).

    `env` adds to or overrides the server's environment (DATABASE_URL, REDIS_URL, DEBUG…);
    without a DATABASE_URL the server gets its own SQLite file, deleted afterwards.
    """
    port = port or free_port()
    check_port_free(port)
    extra = dict(env or {})
    with tempfile.TemporaryDirectory(prefix="live-daphne-") as tmp:
        database_url = extra.pop("DATABASE_URL", "") or f"sqlite:///{Path(tmp) / 'db.sqlite3'}"
        redis_url = extra.pop("REDIS_URL", "")
        full_env = server_env(database_url=database_url, redis_url=redis_url, **extra)
        migrate(full_env)
        server = Daphne(port, full_env, Path(tmp) / "daphne.log")
        try:
            try:
                server.start(timeout)
            except RuntimeError as error:
                log = server.log_path.read_text(errors="replace")[-4000:]
                raise RuntimeError(f"{error}\n--- daphne log ---\n{log}") from error
            yield server.url
        finally:
            server.stop()
