"""A live Daphne in a subprocess, for end-to-end tests (browsers, races between two processes).

    with live_server_process(port, env) as base_url:   # "http://127.0.0.1:PORT"
        ...

Migrates a fresh SQLite file in a temporary directory (or the DATABASE_URL given in `env`),
starts `daphne -b 127.0.0.1 -p PORT solitaire_site.asgi:application`, waits until /healthz
answers, and stops the process on the way out. Give two servers the same DATABASE_URL (and a
REDIS_URL) to run one service on two processes. The server processes come from
scripts/servers.py, which load runs and drills use too. `Visitor` is a browser's cookies and
sockets for them; `postgres_url` names a database on the PostgreSQL server of the settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import json
import socket
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import websockets
from django.conf import settings

from scripts.servers import Daphne, free_port, migrate, server_env

__all__ = [
    "Visitor",
    "expect",
    "free_port",
    "live_server_process",
    "postgres_url",
    "two_servers_on_postgres",
]

LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"


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


@contextlib.contextmanager
def two_servers_on_postgres(
    database: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, str, str]]:
    """(base URL A, base URL B, database URL): two Daphnes on one fresh PostgreSQL database
    `database` and one Redis, as two processes behind a load balancer. Unavailable (skipped;
    failed under CI) when the settings' database is not PostgreSQL, as SQLite serialises every
    write, or when there is no Redis for the channel layer they share."""
    import redis

    from scripts.servers import create_database
    from tests.required import unavailable

    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        unavailable("DATABASE_URL is not PostgreSQL: SQLite serialises every write")
    redis_url = settings.REDIS_URL or "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
    except redis.RedisError:
        unavailable(f"no Redis at {redis_url}: two processes need a shared channel layer")
    database_url = postgres_url(database)
    create_database(database_url, drop=True)
    full = {**(env or {}), "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    with live_server_process(env=dict(full)) as a, live_server_process(env=dict(full)) as b:
        yield a, b, database_url


def postgres_url(name: str) -> str:
    """A database `name` on the PostgreSQL server of the settings (the local one otherwise)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.postgresql":
        user = db.get("USER") or "postgres"
        host = db.get("HOST") or "127.0.0.1"
        port = db.get("PORT") or 5432
        return f"postgres://{user}@{host}:{port}/{name}"
    return urlsplit(LOCAL_POSTGRES)._replace(path=f"/{name}").geturl()


class Visitor:
    """A browser without a browser: cookies, the CSRF token, and websockets with its session."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next(c.value for c in self.jar if c.name == name)

    def get(self, url: str) -> str:
        with self.opener.open(url, timeout=10) as response:
            return response.read().decode()

    def post(self, url: str, data: dict) -> str:
        """POST a form (with the CSRF token); the URL it ended on after redirects."""
        fields = {**data, "csrfmiddlewaretoken": self.cookie("csrftoken")}
        body = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(url, data=body, headers={"Referer": url})
        with self.opener.open(request, timeout=30) as response:
            return response.geturl()

    async def socket(self, base: str, code: str, since: int | None = None):
        """The race's socket on this server, as this visitor."""
        path = f"/ws/race/{code}/" + (f"?since={since}" if since is not None else "")
        return await self.connect(base, path)

    async def connect(self, base: str, path: str):
        """A websocket to `path` on this server, with this visitor's session."""
        cookies = f"sessionid={self.cookie('sessionid')}"
        return await websockets.connect(
            base.replace("http://", "ws://") + path,
            additional_headers={"Cookie": cookies, "Origin": base},
            open_timeout=10,
        )


async def expect(ws, frame_type: str, timeout: float = 10) -> dict:
    """The next frame of this type (earlier frames of other types are skipped)."""
    async with asyncio.timeout(timeout):
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == frame_type:
                return frame
