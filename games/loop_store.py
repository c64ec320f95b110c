"""The move writer's plain batches on the event loop: PostgreSQL through psycopg's async
connection, with no hop to a database thread.

Most batches announce nothing (no racer finished), and such a batch is one statement
(`store.APPLY`), atomic by itself, that needs no lock and no Django. Sending it from the event
loop saves the hop to the writer's thread and back, which on this kind of machine costs more
than the statement's own Python (waking a thread is tens of microseconds, and the GIL changes
hands twice). Batches that announce a finish (a lock, a read, numbered events) still go to the
thread, through Django's connection (games/writer.py).

Each writer (one an event loop) holds one connection of its own, opened at its first batch,
autocommitting, with its statement prepared on the server. A connection that breaks is
closed and the batch is raised to the writer's retry loop, which opens a new one.
"""

from __future__ import annotations

import contextlib
import weakref

import psycopg
from django.db import connection

from games import store
from games.live import GameWrite


def connection_params() -> dict:
    """Django's own parameters for the default database, for a connection of psycopg's own:
    without Django's cursor class, adapters and pool (all made for its sync connections)."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "pool"):
        params.pop(django_only, None)
    params["prepare_threshold"] = store.PREPARE_THRESHOLD
    return params


class LoopStore:
    """`PostgresStore.apply` for batches with nothing to announce, on the event loop."""

    def __init__(self) -> None:
        self.conn: psycopg.AsyncConnection | None = None

    @staticmethod
    def takes(writes: list[GameWrite]) -> bool:
        """Whether the batch is one statement with nothing to announce."""
        return not store.announcing_races(writes)

    async def write(self, writes: list[GameWrite]) -> store.BatchResult:
        writes = store.one_a_game(writes)
        conn = await self.connected()
        try:
            cur = await conn.execute(store.APPLY, [store.apply_param(writes)], prepare=True)
            applied = {row[0] for row in await cur.fetchall()}
        except (psycopg.OperationalError, psycopg.InterfaceError):
            await self.close()  # broken: the retry opens a new one
            raise
        return store.result_of(writes, applied)

    async def connected(self) -> psycopg.AsyncConnection:
        if self.conn is None or self.conn.closed:
            self.conn = await psycopg.AsyncConnection.connect(
                autocommit=True, **connection_params()
            )
            _opened.add(self)
        return self.conn

    async def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None and not conn.closed:
            with contextlib.suppress(psycopg.Error):  # it was broken already
                await conn.close()

    def abandon(self) -> None:
        """Close the connection without its event loop (the loop is gone: a test's end)."""
        conn, self.conn = self.conn, None
        if conn is not None and not conn.closed:
            conn.pgconn.finish()


_opened: weakref.WeakSet[LoopStore] = weakref.WeakSet()


def abandon_all() -> None:
    """Close every writer's connection, loop or no loop (the end of a test run, whose test
    database is dropped next)."""
    for found in list(_opened):
        found.abandon()
