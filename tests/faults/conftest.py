"""Fault drills and the load generator's smoke run need real server processes and PostgreSQL:
each drill gets its own database on the PostgreSQL the settings point at (or the local one);
the PostgreSQL restart drill runs a cluster of its own (initdb, pg_ctl)."""

from __future__ import annotations

import shutil
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from tests.live import postgres_url
from tests.required import unavailable

DRILL_DATABASE = "solitaire_drill_test"


@pytest.fixture(scope="session")
def drill_options():
    """The drills' options: their own database, pings of 2 s with a 3 s timeout."""
    import psycopg

    if shutil.which("redis-server") is None:
        unavailable("fault drills start their own redis-server, which is not installed")
    url = postgres_url(DRILL_DATABASE)
    try:
        psycopg.connect(
            urlsplit(url)._replace(path="/postgres").geturl(), connect_timeout=3
        ).close()
    except psycopg.OperationalError as exc:
        unavailable(f"fault drills need PostgreSQL: {exc}")
    return SimpleNamespace(database_url=url, ping_interval=2, ping_timeout=3)


@pytest.fixture(scope="session")
def postgres_drill_options():
    """The options of the drill that restarts PostgreSQL: it brings its own cluster and Redis,
    so it needs their programs, not the shared PostgreSQL. Under CI a missing program fails the
    test instead of skipping it (the drill would otherwise never run where it matters)."""
    from scripts.servers import private_postgres_missing

    missing = private_postgres_missing()
    if missing is None and shutil.which("redis-server") is None:
        missing = "redis-server is not installed"
    if missing is not None:
        unavailable(f"the PostgreSQL restart drill cannot run: {missing}")
    return SimpleNamespace(database_url="", ping_interval=2, ping_timeout=3, postgres_down=2.0)
