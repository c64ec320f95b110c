"""A live Daphne in a subprocess, for end-to-end tests (browsers, races between two processes).

    with live_server_process(port, env) as base_url:   # "http://127.0.0.1:PORT"
        ...

Migrates a fresh SQLite file in a temporary directory (or the DATABASE_URL given in `env`),
starts `daphne -b 127.0.0.1 -p PORT solitaire_site.asgi:application`, waits until /healthz
answers, and stops the process on the way out. Give two servers the same DATABASE_URL (and a
REDIS_URL) to run one service on two processes. The server processes come from
scripts/servers.py, which load runs and drills use too. `Visitor` is a browser's cookies and
sockets for them; `postgres_url` names a database on the PostgreSQL server of the settings.

The session's servers (one Daphne `live_url` in tests/browser_support.py, the pair
`server_pair` here) are started by the first test of a pytest-xdist worker that asks for them
and serve every later one. Under pytest-xdist every name a test makes on a shared service
carries the worker's name (`worker_name`): its databases, and its ports (scripts/servers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import itertools
import json
import os
import socket
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import websockets
from django.conf import settings

from scripts.servers import Daphne, free_port, migrate, server_env

__all__ = [
    "ServerPair",
    "Visitor",
    "expect",
    "free_port",
    "live_server_process",
    "local_redis_url",
    "postgres_url",
    "server_pair",
    "two_servers_on_postgres",
    "worker_name",
]

LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"
LOCAL_REDIS_DATABASE = 10
"""With REDIS_URL unset, tests that need Redis use the local one's database 10 (+ the worker's
number under pytest-xdist)."""


_NUMBERS = itertools.count(1)


def named(name: str) -> str:
    """A name no earlier test took on this worker's live servers, which keep their database for
    the session: a chosen nickname is one player's ("Ann" -> "Ann 7")."""
    return f"{name} {next(_NUMBERS)}"


def worker_index() -> int:
    """This pytest-xdist worker's number (gw3: 3), 0 without xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") else 0


def worker_name(name: str) -> str:
    """`name`, with this pytest-xdist worker's name after it (a database of its own)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return f"{name}_{worker}" if worker else name


def local_redis_url() -> str:
    """The Redis of the settings, else a database of this worker's on the local Redis; the test
    is unavailable (skipped, or failed under CI) when it does not answer."""
    import redis

    from tests.required import unavailable

    url = settings.REDIS_URL or f"redis://127.0.0.1:6379/{LOCAL_REDIS_DATABASE + worker_index()}"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError:
        unavailable(f"no Redis at {url}: two processes need a shared channel layer")
    return url


def check_port_free(port: int) -> None:
    """RuntimeError if something already listens on 127.0.0.1:port (it would answer for us)."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as error:
            raise RuntimeError(f"port {port} is taken: {error}") from error


@contextlib.contextmanager
def live_server_process(
    port: int | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120.0,
    launcher: list[str] | None = None,
) -> Iterator[str]:
    """Yield the base URL of a Daphne serving the project on 127.0.0.1:`port` (free if None).

    `env` adds to or overrides the server's environment (DATABASE_URL, REDIS_URL, DEBUG…);
    without a DATABASE_URL the server gets its own SQLite file, deleted afterwards. A server is
    given `timeout` seconds to answer /healthz: at load 20 (a whole run beside others') a
    worker's Daphne had written nothing yet after 30 s. `launcher`: what runs the daphne
    command line (scripts/servers.py `Daphne.launcher`), e.g. at another priority.
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
        if launcher is not None:
            server.launcher = launcher
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
    from scripts.servers import create_database
    from tests.required import unavailable

    if not on_postgres():
        unavailable("DATABASE_URL is not PostgreSQL: SQLite serialises every write")
    redis_url = local_redis_url()
    database_url = postgres_url(database)
    create_database(database_url, drop=True)
    full = {**(env or {}), "DATABASE_URL": database_url, "REDIS_URL": redis_url}
    with live_server_process(env=dict(full)) as a, live_server_process(env=dict(full)) as b:
        yield a, b, database_url


def on_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@dataclass
class ServerPair:
    """Two Daphnes serving one service: one database, one Redis."""

    a: str
    b: str
    database_url: str
    postgres: bool


PAIR_ENV = {"QUICK_RACE_LOBBY_S": "3", "RACER_GONE_AFTER_S": "6"}
"""The pair's settings beyond the tests' own: quick-race lobbies of 3 s, not 15, and a racer gone
from every page for 6 s, not 30, has left their race (an arena's racers then resign)."""


@pytest.fixture(scope="session")
def server_pair() -> Iterator[ServerPair]:
    """Two Daphnes on one database and one Redis, shared by every test of the worker that asks
    (mark the module `pytest.mark.xdist_group("server_pair")` so they run on one worker): a
    fresh PostgreSQL database when the tests run on PostgreSQL, else one SQLite file."""
    if on_postgres():
        with two_servers_on_postgres("solitaire_pair_test", PAIR_ENV) as (a, b, url):
            yield ServerPair(a, b, url, postgres=True)
        return
    redis_url = local_redis_url()
    with tempfile.TemporaryDirectory(prefix="server-pair-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'pair.sqlite3'}"
        env = {**PAIR_ENV, "DATABASE_URL": url, "REDIS_URL": redis_url}
        with live_server_process(env=dict(env)) as a, live_server_process(env=dict(env)) as b:
            yield ServerPair(a, b, url, postgres=False)


@pytest.fixture
def postgres_pair(request) -> ServerPair:
    """The session's pair, for a test that needs two processes writing at once: unavailable
    (skipped, failed under CI) when the tests run on SQLite, which serialises every write."""
    from tests.required import unavailable

    if not on_postgres():
        unavailable("DATABASE_URL is not PostgreSQL: SQLite serialises every write")
    return request.getfixturevalue("server_pair")


def postgres_url(name: str) -> str:
    """A database `name` on the PostgreSQL server of the settings (the local one otherwise);
    under pytest-xdist the worker's own (`worker_name`)."""
    name = worker_name(name)
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
