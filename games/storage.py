"""The move path's storage: the database threads, the writer's batches, and what other apps add
to a batch.

**Off the event loop.** `off_loop(function)` runs a sync ORM call on the ORM threads (each call
gives its connection back to the pool itself), or on one given thread that keeps its
connection (the writer's). On SQLite every call goes to Channels' one database thread: one
writer at a time anyway, and an in-memory test database whose shared cache fails rather than
waits when two threads write. `retrying(call)` tries a call again while the database cannot be
reached, for up to `MOVE_WRITE_RETRY_S`, then refuses it with `Unavailable`.

**Group commit.** One writer per event loop collects the moves all its sockets made within
`MOVE_BATCH_WINDOW_MS` and stores them in one transaction, then answers each: a plain batch
(nothing announced, nothing to follow, no game ended) as the one statement sent from the event
loop on the writer's own asynchronous connection (PostgreSQL); any other on the writer's own
thread. A move is acknowledged only after the commit that stored it. Every write is a
compare-and-set on the game row: it is applied only where the stored game is still at the `seq`
the move was checked against and unfinished, so a second writer with a move at the same `seq`
(another tab, another process) finds the row moved on (`BatchResult.conflicts`) and its socket
answers from the record. A retried batch that did commit before its answer was lost is a
conflict, never a second copy.

**Parts.** A game's write carries what other apps add to it (`GameWrite.parts`: a racer's
progress, a daily attempt's result), each written in the same statement only for the games
that were applied. An app registers a `BatchPart` for each: its SQL (a clause of the one
statement), the same through the ORM (SQLite), what runs in the transaction of a batch that
announces something (a race's numbered events), and what follows the commit. This module knows
no app above it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg
from channels.db import DatabaseSyncToAsync, database_sync_to_async
from django.conf import settings
from django.db import (
    DEFAULT_DB_ALIAS,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    connections,
)
from django.db import transaction as db_transaction

from games.errors import Unavailable
from games.groups import group_send
from games.models import Game, Move

logger = logging.getLogger(__name__)

UNFINISHED = (Game.Status.PLAYING, Game.Status.STUCK)
ENDED = frozenset({Game.Status.WON, Game.Status.STUCK, Game.Status.RESIGNED})

RETRY_MS = 1000
"""What an `unavailable` answer tells the client to wait before sending the move again."""

DATABASE_AWAY = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)
"""What a database that cannot be reached raises (a restart, a failover, a dropped connection,
a deadlock): worth trying again. Not a refused statement, which would fail the same way again."""


def _own_connection() -> None:
    """The writer thread's connection is its own, outside psycopg's pool: it is held for the
    life of the thread, and a pool that is backing off its reconnects after a restart of
    PostgreSQL would hold every batch for up to its timeout (30 s), where a connection of its
    own is tried again at once (the postgres-restart drill)."""
    wrapper = connections.create_connection(DEFAULT_DB_ALIAS)
    options = {k: v for k, v in wrapper.settings_dict.get("OPTIONS", {}).items() if k != "pool"}
    wrapper.settings_dict = {**wrapper.settings_dict, "OPTIONS": options}
    connections[DEFAULT_DB_ALIAS] = wrapper


# The ORM's threads for the life of the process (not the loop's default executor, whose threads
# end with the loop while a connection is still checked out), `settings.ORM_THREADS` of them
# (few: the setting says why), and the writer's own thread.
ORM_THREADS = ThreadPoolExecutor(max_workers=settings.ORM_THREADS, thread_name_prefix="orm")
WRITER_THREAD = ThreadPoolExecutor(
    max_workers=1, thread_name_prefix="move-writer", initializer=_own_connection
)


@functools.cache
def _on_sqlite() -> bool:
    return connection.vendor == "sqlite"


def off_loop(
    function, thread: ThreadPoolExecutor | None = None, lane: ThreadPoolExecutor = ORM_THREADS
):
    """`function` (sync, ORM) as a coroutine run off the event loop: on the ORM threads (or on
    `lane`, threads of their own for work that must not queue behind the sockets' reads), its
    connection given back inside the call; or on `thread`, which keeps its connection."""
    if _on_sqlite():
        return database_sync_to_async(function)
    if thread is not None:

        async def on_thread(*args):
            return await asyncio.get_running_loop().run_in_executor(thread, function, *args)

        return on_thread

    @functools.wraps(function)
    def run_and_close(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return DatabaseSyncToAsync(run_and_close, thread_sensitive=False, executor=lane)


async def retrying(call):
    """`await call()`, tried again while the database cannot be reached, for up to
    `MOVE_WRITE_RETRY_S`; then `Unavailable` (nothing was applied)."""
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


# ------------------------------------------------------------------ what a batch holds


@dataclass
class GameWrite:
    """What one action changed in one game: applied only where the stored game is still at
    `old_seq` and unfinished (compare-and-set), all of it or none of it."""

    pk: int
    public_id: str
    old_seq: int
    moves: list[str]
    move_count: int
    status: str
    finished_at: Any
    at: Any
    home_before: int = 0
    home: int = 0
    """Cards on the foundations before and after the action."""
    state: dict | None = None
    """The engine's full state when the status changed (the snapshot pages read); None keeps
    the stored one."""
    parts: dict[str, Any] = field(default_factory=dict)
    """What other apps add, by part name; each value has `row()` (its columns as JSON),
    `announce` (the batch numbers an event in its transaction) and `follow_up` (its part's
    `after_commit` is wanted)."""


@dataclass
class BatchResult:
    applied: set[int] = field(default_factory=set)
    """Game pks whose write was applied."""
    conflicts: set[int] = field(default_factory=set)
    """Game pks whose stored row had moved on (another writer, a close, a resignation)."""
    messages: list[tuple[str, dict]] = field(default_factory=list)
    """Channel messages (group, message) to send once committed, in order (announcements)."""


@dataclass(frozen=True)
class BatchPart:
    """What an app adds to the batch for its part of a write (`GameWrite.parts[name]`).

    `sql`: a clause of the batch's statement (`name AS (...)`) reading the part's rows from
    `b.b -> '<name>'` and writing them only for the applied games (`JOIN g ON g.id =
    x.game_id`). `orm(pairs)`: the same through the ORM, for the applied (write, value) pairs.
    `lock(values)` and `announce(pairs, applied)`: for a batch where a value says `announce`,
    in its transaction before and after the games (locks in a fixed order; numbered events,
    returned as channel messages to send after the commit). `after_commit(values)`: in the
    writer's thread once committed, for the applied values that say `follow_up`; a failure is
    logged, the batch stays stored."""

    name: str
    sql: str
    orm: Callable[[list[tuple[GameWrite, Any]]], None]
    lock: Callable[[list[Any]], Any] | None = None
    announce: Callable[[Any, list[tuple[GameWrite, Any]]], list[tuple[str, dict]]] | None = None
    after_commit: Callable[[list[Any]], None] | None = None


PARTS: dict[str, BatchPart] = {}
"""Registered by other apps' `ready()` (races: the racer's progress; daily: the attempt's)."""

ON_END: list[Callable[[list[int]], None]] = []
"""Called in the writer's thread with the pks of the games a stored batch ended (won or
stuck), and by whoever else ends a game; registered by other apps (daily: the losing move)."""


def register(part: BatchPart) -> None:
    global APPLY_SQL
    PARTS[part.name] = part
    APPLY_SQL = apply_sql()


# ------------------------------------------------------------------ one batch, on a thread


def write_batch(writes: list[GameWrite]) -> BatchResult:
    """Store a batch (sync) and run what follows its commit; a second write to one game in the
    batch is left out and found a conflict (its socket reloads and tries again)."""
    writes = first_writes(writes)
    announcing: dict[str, list[Any]] = {}
    for w in writes:
        for name, value in w.parts.items():
            if value.announce:
                announcing.setdefault(name, []).append(value)
    result = BatchResult()
    try:
        if not announcing:
            result.applied = apply(writes)  # one statement, or one transaction on SQLite
        else:
            with db_transaction.atomic():
                locked = {name: PARTS[name].lock(values) for name, values in announcing.items()}
                result.applied = apply(writes)
                for name, pairs in _pairs_by_part(writes, result.applied).items():
                    if PARTS[name].announce is not None and name in locked:
                        result.messages += PARTS[name].announce(locked[name], pairs)
    except DATABASE_AWAY:
        connection.close()  # a broken connection is not reused; the next try opens one
        raise
    result.conflicts = {w.pk for w in writes} - result.applied
    # What follows the commit: the parts' follow-ups, then the games the batch ended.
    follow: dict[str, list[Any]] = {}
    ended: list[int] = []
    for w in writes:
        if w.pk in result.applied:
            for name, value in w.parts.items():
                if value.follow_up:
                    follow.setdefault(name, []).append(value)
            if w.state is not None and w.status in ENDED:
                ended.append(w.pk)
    hooks = [(PARTS[name].after_commit, values) for name, values in follow.items()]
    hooks += [(hook, ended) for hook in ON_END if ended]
    for hook, values in hooks:
        if hook is None:
            continue
        try:
            hook(values)
        except Exception:  # the batch is stored; what follows it is mended later
            logger.exception("after a batch: %s failed", getattr(hook, "__name__", hook))
    return result


def first_writes(writes: list[GameWrite]) -> list[GameWrite]:
    """The batch's first write to each game; a second one is left out (found a conflict)."""
    seen: set[int] = set()
    return [w for w in writes if not (w.pk in seen or seen.add(w.pk))]


def plain(writes: list[GameWrite]) -> bool:
    """Whether nothing but the statement is wanted: no part announces or follows up, and no
    write ends its game (`ON_END`)."""
    return not any(
        (w.state is not None and w.status in ENDED)
        or any(value.announce or value.follow_up for value in w.parts.values())
        for w in writes
    )


def _pairs_by_part(writes: list[GameWrite], applied: set[int]) -> dict[str, list]:
    found: dict[str, list] = {}
    for w in writes:
        if w.pk in applied:
            for name, value in w.parts.items():
                found.setdefault(name, []).append((w, value))
    return found


def apply(writes: list[GameWrite]) -> set[int]:
    """Compare-and-set the games and write their moves and parts: the pks applied. On
    PostgreSQL one prepared statement whatever the batch's size (the rows travel as one jsonb
    parameter); elsewhere the ORM, a statement per row in one transaction (the reference)."""
    if not writes:
        return set()
    if not _by_statement():
        with db_transaction.atomic():
            return _apply_orm(writes)
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        # Django opens its connections with preparing off, and its cursors bind on the client:
        # a cursor of psycopg's own on the same connection prepares the statement on the server.
        raw.prepare_threshold = PREPARE_THRESHOLD
    with psycopg.Cursor(raw) as cur:
        cur.execute(APPLY_SQL, [batch_param(writes)], prepare=True)
        return {row[0] for row in cur}


def _by_statement() -> bool:
    """Whether batches are stored by the one statement (PostgreSQL, unless `MOVE_STORE=orm`)."""
    return not _on_sqlite() and settings.MOVE_STORE != "orm"


def batch_param(writes: list[GameWrite]) -> str:
    """The batch's rows as the statement's one jsonb parameter: the games, their moves, and
    each part's rows under its name."""
    batch = {
        "g": [
            {
                "id": w.pk,
                "old_seq": w.old_seq,
                "new_seq": w.old_seq + len(w.moves),
                "move_count": w.move_count,
                "status": w.status,
                "finished_at": w.finished_at and w.finished_at.isoformat(),
                "state": w.state,
            }
            for w in writes
        ],
        "m": [
            {"game_id": w.pk, "seq": w.old_seq + i, "move": move, "at": w.at.isoformat()}
            for w in writes
            for i, move in enumerate(w.moves, 1)
        ],
    }
    for w in writes:
        for name, value in w.parts.items():
            batch.setdefault(name, []).append({"game_id": w.pk, **value.row()})
    return orjson.dumps(batch).decode()


def _apply_orm(writes: list[GameWrite]) -> set[int]:
    applied = set()
    for w in writes:
        fields = {
            "seq": w.old_seq + len(w.moves),
            "move_count": w.move_count,
            "status": w.status,
            "finished_at": w.finished_at,
        }
        if w.state is not None:
            fields["state"] = w.state
        cas = Game.objects.filter(pk=w.pk, seq=w.old_seq, status__in=UNFINISHED)
        if cas.update(**fields):
            applied.add(w.pk)
    Move.objects.bulk_create(
        Move(game_id=w.pk, seq=w.old_seq + i, move=move, at=w.at)
        for w in writes
        if w.pk in applied
        for i, move in enumerate(w.moves, 1)
    )
    for name, pairs in _pairs_by_part(writes, applied).items():
        PARTS[name].orm(pairs)
    return applied


PREPARE_THRESHOLD = 5
"""psycopg's: a server-binding statement run this often is prepared (the batch's statement
asks for it at once with `prepare=True`)."""

GAMES_SQL = """
WITH b AS (SELECT %s::jsonb AS b), v AS (
    SELECT v.* FROM b, jsonb_to_recordset(b.b -> 'g') AS v(
        id bigint, old_seq int, new_seq int, move_count int, status text,
        finished_at timestamptz, state jsonb
    )
), l AS (
    SELECT array_agg(locked.id) AS ids FROM (
        SELECT id FROM games_game WHERE id = ANY(ARRAY(SELECT id FROM v))
        ORDER BY id FOR NO KEY UPDATE
    ) locked
), g AS (
    UPDATE games_game g
    SET seq = v.new_seq, move_count = v.move_count, status = v.status,
        finished_at = v.finished_at,
        state = CASE WHEN jsonb_typeof(v.state) = 'object' THEN v.state ELSE g.state END
    FROM v, l
    WHERE g.id = v.id AND g.id = ANY(l.ids) AND g.seq = v.old_seq
        AND g.status IN ('playing', 'stuck')
    RETURNING g.id
), m AS (
    INSERT INTO games_move (game_id, seq, move, at)
    SELECT mv.game_id, mv.seq, mv.move, mv.at
    FROM b, jsonb_to_recordset(b.b -> 'm') AS mv(game_id bigint, seq int, move text, at timestamptz)
    JOIN g ON g.id = mv.game_id
)"""
"""The games' rows are locked first, all of them and in id order (`l`, before any is updated), as
every other writer of several games locks them (a race's close ending its games still playing):
updated in the batch's order, a batch holding a later game waited for an earlier one that a
close held while the close waited for the later one, and PostgreSQL broke the deadlock by
failing one of them (docs/performance-log.md, arenas' twenty-eighth day). The ids are one array
(`= ANY(ARRAY(...))`), which PostgreSQL reads through the primary key once the table holds a few
hundred games: as `IN (SELECT id FROM v)`, up to a few thousand games, the plan was a hash join
over a scan of every game, and the prepared statement's plan, made while a fresh table was small,
read the whole table for each batch as it grew (arenas' twenty-ninth day)."""


def apply_sql() -> str:
    """The batch's one statement: the games' compare-and-set, their moves, and every
    registered part's clause."""
    clauses = "".join(f", {part.sql.strip()}" for part in PARTS.values())
    return f"{GAMES_SQL}{clauses}\nSELECT id FROM g"


APPLY_SQL = apply_sql()


# ------------------------------------------------------------------ the writer


@dataclass
class _Item:
    write: GameWrite
    future: asyncio.Future


class LoopConnection:
    """The writer's own asynchronous connection to PostgreSQL, used from its event loop for
    the plain batches (`plain`): the batch's one statement, sent and answered without a hop
    to a thread and back. Opened at its first batch; closed and opened again after a failure
    (a restart, a failover: the try that follows `retrying`'s wait opens a new one)."""

    def __init__(self) -> None:
        self.conn: psycopg.AsyncConnection | None = None

    async def apply(self, writes: list[GameWrite]) -> set[int]:
        """The same statement as `apply`, in its own transaction (autocommit): the pks applied."""
        try:
            if self.conn is None or self.conn.closed:
                self.conn = await psycopg.AsyncConnection.connect(**loop_connection_params())
            async with self.conn.cursor() as cur:
                await cur.execute(APPLY_SQL, [batch_param(writes)], prepare=True)
                return {row[0] for row in await cur.fetchall()}
        except BaseException:
            self.close()  # a failed or cancelled statement leaves the connection unknown
            raise

    def close(self) -> None:
        """Close the connection at once (from any thread; its loop may be closed already)."""
        if self.conn is not None:
            self.conn.pgconn.finish()
            self.conn = None


def loop_connection_params() -> dict:
    """The settings' connection, as psycopg's own asynchronous connection takes it: Django's
    parameters without its cursor class and type adapters (the statement's one parameter is
    text, its result the games' ids), preparing on, autocommit (one statement, one
    transaction)."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    return {**params, "autocommit": True, "prepare_threshold": PREPARE_THRESHOLD}


WRITERS: weakref.WeakSet[MoveWriter] = weakref.WeakSet()
"""Every writer of the process, whose connections `close_writer_connection` closes."""


class MoveWriter:
    """The writer of one event loop (`play.GAMES.get().writer` finds or makes it)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.items: list[_Item] = []
        self.wakeup = asyncio.Event()
        self.batches = 0
        self.store = off_loop(write_batch, WRITER_THREAD)
        # Where the plain batches go; None (SQLite, `MOVE_STORE=orm`): every batch to the thread.
        self.own = LoopConnection() if _by_statement() else None
        for ended in [w for w in WRITERS if w.loop.is_closed() and w.own is not None]:
            ended.own.close()  # a test's loop, gone with its writer
        WRITERS.add(self)
        self.task = self.loop.create_task(self.run())

    async def write(self, write: GameWrite) -> BatchResult:
        """Store one game's write with the next batch; the batch's result once committed."""
        item = _Item(write, self.loop.create_future())
        self.items.append(item)
        self.wakeup.set()
        return await item.future

    async def run(self) -> None:
        while True:
            await self.wakeup.wait()
            window = settings.MOVE_BATCH_WINDOW_MS
            if window > 0:
                await asyncio.sleep(window / 1000)
            self.wakeup.clear()
            items, self.items = self.items, []
            if items:
                await self.commit(items)

    async def commit(self, items: list[_Item]) -> None:
        writes = [item.write for item in items]
        try:
            result = await retrying(lambda: self.send(writes))
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
        # Announcements go out before the next batch is taken: another process numbers the
        # race's next event only after this commit, and the sooner this one is out, the less
        # often a socket sees the next one first.
        if result.messages:
            await send_messages(result.messages)

    async def send(self, writes: list[GameWrite]) -> BatchResult:
        """A plain batch's statement from the loop (PostgreSQL); any other batch on the
        writer's thread, where its transaction, announcements and follow-ups run."""
        if self.own is None or not plain(writes):
            return await self.store(writes)
        writes = first_writes(writes)
        applied = await self.own.apply(writes)
        return BatchResult(applied=applied, conflicts={w.pk for w in writes} - applied)


async def send_messages(messages: list[tuple[str, dict]]) -> None:
    """A batch's announcements; a lost one is filled in from the record by the sockets."""
    for group, message in messages:
        try:
            await group_send(group, message)
        except Exception:
            logger.exception("could not send to %s", group)


def close_writer_connection() -> None:
    """Give back the writers' database connections, the thread's and the loops' (a test run's
    end; a shutdown)."""
    if not _on_sqlite():
        WRITER_THREAD.submit(lambda: connection.close()).result()  # the thread's own
        for writer in list(WRITERS):
            if writer.own is not None:
                writer.own.close()
