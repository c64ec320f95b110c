"""Group commit: one writer per process collects the moves all its sockets made within a few
milliseconds and stores them in one transaction (games/store.py), then answers each.

A move is acknowledged only after the commit that stored it, so a crash loses nothing that was
acknowledged; what the batch saves is the per-move cost of a transaction and of a hop to a
database thread (one hop per batch, not per move). `MOVE_BATCH_WINDOW_MS` is how long the
writer lets a batch gather after its first move (0: whatever arrived while the last batch was
being written).

A batch with no finish to announce (nearly all of them) is one statement, sent from the event
loop on the writer's own async connection (games/loop_store.py) on PostgreSQL; a batch that
announces a finish, and every batch on SQLite, goes to the database thread through Django.

A database that cannot be reached (a restart, a failover) is retried for up to
`MOVE_WRITE_RETRY_S` seconds, each try the whole batch again: a compare-and-set makes a retry
of a batch that did commit a conflict, not a second copy. Past the bound each move is refused
with `Unavailable` (the protocol's `unavailable`, with a `retry_ms`), and nothing was applied.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import psycopg
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from games import loop_store, store
from games.errors import Unavailable
from games.live import GameWrite
from games.loop_store import LoopStore

logger = logging.getLogger(__name__)

RETRY_MS = 1000
"""What an `unavailable` answer tells the client to wait before sending the move again."""

DATABASE_AWAY = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)
"""What a database that cannot be reached raises (a restart, a failover, a dropped connection,
a deadlock), through Django's cursors or psycopg's own: worth trying again. Not a refused
statement (an integrity or programming error), which would fail the same way again."""

# The writer's database thread: one, for the life of the process, holding its connection.
WRITER_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="move-writer")


@dataclass
class _Item:
    write: GameWrite
    future: asyncio.Future


class MoveWriter:
    """The process's writer on one event loop (`writer()` finds or makes it)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.items: list[_Item] = []
        self.wakeup = asyncio.Event()
        self.batches = 0
        self.on_loop = LoopStore() if on_loop_wanted() else None
        self.task = loop.create_task(self.run())

    async def write(self, write: GameWrite) -> store.BatchResult:
        """Store one game's write with the next batch; the batch's result once committed."""
        item = _Item(write, self.loop.create_future())
        self.items.append(item)
        self.wakeup.set()
        return await item.future

    async def run(self) -> None:
        try:
            while True:
                await self.wakeup.wait()
                window = settings.MOVE_BATCH_WINDOW_MS
                if window > 0:
                    await asyncio.sleep(window / 1000)
                self.wakeup.clear()
                items, self.items = self.items, []
                if items:
                    await self.commit(items)
        finally:
            if self.on_loop is not None:
                await self.on_loop.close()

    async def commit(self, items: list[_Item]) -> None:
        writes = [i.write for i in items]
        try:
            result = await self.store_with_retry(writes)
        except BaseException as exc:
            for item in items:
                if not item.future.done():
                    item.future.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        self.batches += 1
        for item in items:
            if not item.future.done():
                item.future.set_result(result)
        if result.events:
            await self.send_events(result.events)

    async def send_events(self, events: list[store.Event]) -> None:
        """Race events go out as soon as their batch is stored, before the writer takes the
        next (the other process numbers the race's next event only after this commit: the
        sooner this one is out, the less often a socket sees the next one first), a race's
        events of one batch in one channel message."""
        from races.events import send_events

        by_group: dict[str, list[dict]] = {}
        for event in events:
            by_group.setdefault(event.group, []).append(event.frame)
        for group, frames in by_group.items():
            try:
                await send_events(group, frames)
            except Exception:  # a lost event is filled in from the record by the sockets
                logger.exception("could not send race events to %s", group)

    async def store_with_retry(self, writes) -> store.BatchResult:
        return await retrying(lambda: self.store(writes))

    async def store(self, writes) -> store.BatchResult:
        if self.on_loop is None or not self.on_loop.takes(writes):
            return await run_on_store_thread(write_batch, writes)
        result = await self.on_loop.write(writes)
        if after_commit_wanted(writes, result):
            await run_on_store_thread(after_commit, writes, result)
        return result


async def retrying(call):
    """`await call()`, tried again while the database cannot be reached, for up to
    `MOVE_WRITE_RETRY_S`; then `Unavailable` (nothing was applied). Each try starts afresh:
    a write that did commit before its answer was lost is refused by its compare-and-set."""
    deadline = time.monotonic() + settings.MOVE_WRITE_RETRY_S
    delay = 0.05
    while True:
        try:
            return await call()
        except DATABASE_AWAY as exc:
            if time.monotonic() + delay > deadline:
                logger.error("refused: the database is unavailable (%s)", exc)
                raise Unavailable(
                    "the game store is unavailable; nothing was applied, send it again",
                    retry_ms=RETRY_MS,
                ) from exc
            logger.warning("database unavailable, trying again in %.2f s: %s", delay, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.5)


def write_batch(writes) -> store.BatchResult:
    """The batch, then what follows a commit in the same thread: the race standings index, a
    race that may be complete, the daily boards (each failure logged, never raised)."""
    try:
        result = store.write(writes)
    except DATABASE_AWAY:
        connection.close()  # a broken connection is not reused; the next try opens one
        raise
    after_commit(writes, result)
    return result


@dataclass(frozen=True)
class AfterCommit:
    """What another app does once a batch is stored, in the writer's thread: `run(applied,
    result)` with the writes that were applied, when `wanted(applied, result)` (asked on the
    event loop, so cheap: most batches want nothing and never leave the loop)."""

    run: Callable[[list[GameWrite], store.BatchResult], None]
    wanted: Callable[[list[GameWrite], store.BatchResult], bool]


AFTER_COMMIT: list[AfterCommit] = []
"""Registered by other apps' `ready()`: races (a race that may be complete), daily (the boards
of ranked attempts, the losing-move analysis of ended games)."""


def after_commit_wanted(writes: list[GameWrite], result: store.BatchResult) -> bool:
    applied = [w for w in writes if w.pk in result.applied]
    return any(hook.wanted(applied, result) for hook in AFTER_COMMIT)


def after_commit(writes: list[GameWrite], result: store.BatchResult) -> None:
    applied = [w for w in writes if w.pk in result.applied]
    for hook in AFTER_COMMIT:
        try:
            if hook.wanted(applied, result):
                hook.run(applied, result)
        except Exception:  # the batch is stored; what follows it is mended later
            logger.exception("after a batch: %s failed", getattr(hook.run, "__name__", hook))


def run_on_store_thread(function, *args):
    """`function(*args)` on the writer's database thread: its own thread with PostgreSQL;
    Channels' one database thread with SQLite (one writer at a time anyway, and an in-memory
    test database whose shared cache fails rather than waits when two threads write)."""
    if connection.vendor == "sqlite":
        return database_sync_to_async(function)(*args)
    return asyncio.get_running_loop().run_in_executor(WRITER_THREAD, function, *args)


def close_thread_connection() -> None:
    """Give back the writers' database connections (a test run's end; a shutdown): the
    thread's and every event loop's. With SQLite the writer runs on Channels' database thread
    and holds no connection of its own."""
    loop_store.abandon_all()
    if connection.vendor != "sqlite":
        WRITER_THREAD.submit(lambda: connection.close()).result()  # its own, looked up there


def on_loop_wanted() -> bool:
    """Whether plain batches go from the event loop (`MOVE_STORE_ON_LOOP`, PostgresStore)."""
    return settings.MOVE_STORE_ON_LOOP and isinstance(store.store(), store.PostgresStore)


_writers: dict[asyncio.AbstractEventLoop, MoveWriter] = {}


def writer() -> MoveWriter:
    """This event loop's writer (a test's loop gets its own)."""
    loop = asyncio.get_running_loop()
    found = _writers.get(loop)
    if found is None or found.task.done():
        for old in [w for w in _writers if w.is_closed()]:
            if _writers[old].on_loop is not None:
                _writers[old].on_loop.abandon()
            del _writers[old]
        found = _writers[loop] = MoveWriter(loop)
    return found
