"""The move store (games/storage.py): a write is a compare-and-set on the game's `seq` and status,
so of two writes checked against the same position exactly one is stored; the rest of a move
(racer, attempt) goes with it or not at all. Both ways to store, through the ORM and as
PostgreSQL's one statement, keep the same rules (the latter where the tests run on PostgreSQL),
whether the statement is sent from the writer's thread or, for a plain batch, from its event
loop on its own asynchronous connection."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from games import storage
from games.actions import do_create_game, do_end_game, get_game_update
from games.models import Game, Move
from games.play import load
from tests.support import within
from tests.threads import ConnectionThread

pytestmark = pytest.mark.django_db(transaction=True)


class Store:
    """`write_batch` with `MOVE_STORE` set: "orm" (a statement per row), or "postgres"."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, writes):
        with override_settings(MOVE_STORE=self.name):
            return storage.write_batch(writes)


class LoopStore:
    """A plain batch as the sockets' writer stores it (`MoveWriter.send`): the statement sent
    from an event loop on the writer's own asynchronous connection, never its thread."""

    def write(self, writes):
        async def send():
            writer = storage.MoveWriter()
            writer.store = thread_not_expected
            try:
                return await writer.send(writes)
            finally:
                writer.task.cancel()
                writer.own.close()

        return asyncio.run(send())


async def thread_not_expected(writes):
    raise AssertionError("a plain batch went to the writer's thread")


on_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the PostgreSQL store needs PostgreSQL"
)


def stores():
    return [
        pytest.param(lambda: Store("orm"), id="orm"),
        pytest.param(lambda: Store("postgres"), id="postgres", marks=on_postgres),
        pytest.param(LoopStore, id="from-the-loop", marks=on_postgres),
    ]


def write_of(game: Game, move: str, old_seq: int = 0) -> storage.GameWrite:
    return storage.GameWrite(
        pk=game.pk,
        public_id=game.public_id,
        old_seq=old_seq,
        moves=[move],
        move_count=old_seq + 1,
        status=Game.Status.PLAYING,
        finished_at=None,
        at=timezone.now(),
    )


def log_of(game: Game) -> list[str]:
    return list(Move.objects.filter(game=game).order_by("seq").values_list("move", flat=True))


@pytest.mark.skipif(
    connection.vendor == "sqlite", reason="SQLite has no row locks: this runs on PostgreSQL"
)
def test_an_end_waits_for_a_move_being_stored_and_its_last_state_has_the_move(player):
    """A batch holds the game's row while it stores a move, and the game ends meanwhile (a
    resignation whose copy is behind, another tab having moved): the end waits for the batch,
    then reads the log, so the move is in the game's last state, not only in its log."""
    game = do_create_game(player, "penguin", 1)
    move = get_game_update(game).legal[0]
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=game.pk)  # the batch's hold
        ending = ConnectionThread(do_end_game, game, timezone.now())
        ending.start()
        ending.join(0.5)
        assert ending.is_alive(), "the end waits for the game's row"
        assert Store("orm").write([write_of(game, move)]).applied == {game.pk}
    ending.join(10)
    assert (ending.error, ending.result) == (None, True)
    game.refresh_from_db()
    assert (game.status, log_of(game)) == (Game.Status.RESIGNED, [move])
    assert game.state == load(game).engine.to_dict()


@pytest.mark.parametrize("kind", stores())
def test_a_write_applies_where_the_game_still_is(player, kind):
    game = do_create_game(player, "penguin", 1)
    result = kind().write([write_of(game, "t0-t1")])
    assert result.applied == {game.pk} and not result.conflicts
    game.refresh_from_db()
    assert (game.seq, game.move_count, log_of(game)) == (1, 1, ["t0-t1"])


@pytest.mark.parametrize("kind", stores())
def test_a_game_is_read_with_its_log_and_one_never_moved_with_its_row_alone(
    player, kind, django_assert_num_queries
):
    """A game's moves and its `seq` are stored together, so a game whose row says no move was
    stored has no log to read (each racer's board at a race's start); once one is stored, the
    log is read and replayed."""
    game = do_create_game(player, "penguin", 1)
    with django_assert_num_queries(1):
        fresh = load(game)
    move = fresh.engine.legal_moves()[0]
    kind().write([write_of(game, move)])
    with django_assert_num_queries(2):
        moved = load(game)
    assert (fresh.seq, fresh.engine.move_count) == (0, 0)
    assert (moved.seq, moved.engine.move_count) == (1, 1)


@pytest.mark.parametrize("kind", stores())
def test_a_second_write_at_the_same_seq_is_refused(player, kind):
    """Two sockets checked a move against seq 0: the second finds the game moved on."""
    game = do_create_game(player, "penguin", 1)
    kind().write([write_of(game, "t0-t1")])
    result = kind().write([write_of(game, "t2-t3")])
    assert result.conflicts == {game.pk} and not result.applied
    assert log_of(game) == ["t0-t1"]


@pytest.mark.parametrize("kind", stores())
def test_two_writes_of_one_game_in_one_batch_store_one(player, kind):
    game = do_create_game(player, "penguin", 1)
    result = kind().write([write_of(game, "t0-t1"), write_of(game, "t2-t3")])
    assert result.applied == {game.pk}
    assert log_of(game) == ["t0-t1"]


@pytest.mark.parametrize("kind", stores())
def test_a_write_into_an_ended_game_is_refused(player, kind):
    """A race closed or a resignation ends the game first: a move checked before is refused."""
    game = do_create_game(player, "penguin", 1)
    assert do_end_game(game, timezone.now())
    result = kind().write([write_of(game, "t0-t1")])
    assert result.conflicts == {game.pk}
    game.refresh_from_db()
    assert (game.status, game.seq, log_of(game)) == (Game.Status.RESIGNED, 0, [])


@pytest.mark.parametrize("kind", stores())
def test_writes_of_different_games_are_independent(player, other_player, kind):
    mine = do_create_game(player, "penguin", 1)
    theirs = do_create_game(other_player, "penguin", 2)
    kind().write([write_of(mine, "t0-t1")])
    result = kind().write([write_of(mine, "t4-t5"), write_of(theirs, "t2-t3")])
    assert result.applied == {theirs.pk} and result.conflicts == {mine.pk}
    assert (log_of(mine), log_of(theirs)) == (["t0-t1"], ["t2-t3"])


def a_row_lock_waited_for() -> bool:
    """Whether a connection of this database is waiting for a row's lock now."""
    with connection.cursor() as cursor:
        # Within a transaction the statistics are read once, unless the snapshot is cleared.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(lambda: Store("postgres"), id="postgres", marks=on_postgres),
        pytest.param(LoopStore, id="from-the-loop", marks=on_postgres),
    ],
)
def test_a_batch_locks_its_games_in_id_order_as_a_race_s_close_does(player, other_player, kind):
    """A race's close ends the games still playing, locking their rows in id order; a batch of
    moves locked its games in the batch's own order. A batch holding a later game and waiting for
    an earlier one that the close held, while the close waited for the later one: PostgreSQL
    broke the deadlock by failing one of them (a crowd of 1,000 lost a close so). The batch now
    locks its games in id order too, so it waits holding nothing the close needs."""
    first = do_create_game(player, "penguin", 1)
    second = do_create_game(other_player, "penguin", 2)
    later_first = [write_of(g, get_game_update(g).legal[0]) for g in (second, first)]
    held = threading.Event()

    def a_close() -> bool:
        with transaction.atomic():
            games = Game.objects.select_for_update(no_key=True)
            games.get(pk=first.pk)
            held.set()
            waited = within(10, a_row_lock_waited_for)  # the batch, on `first`
            games.get(pk=second.pk)
            return waited

    def a_batch():
        held.wait(10)
        return kind().write(later_first)

    close, batch = ConnectionThread(a_close), ConnectionThread(a_batch)
    close.start(), batch.start()
    close.join(30), batch.join(30)
    assert (close.error, batch.error) == (None, None)
    assert close.result, "the batch did not wait for the game the close held"
    assert batch.result.applied == {first.pk, second.pk}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_a_batch_reads_its_games_by_their_key_in_a_table_of_thousands(player):
    """The batch's statement is prepared and its plan kept for the connection. Its games' locks
    asked for `id IN (SELECT id FROM <the batch>)`, which a table of a few thousand games or
    fewer had planned as a scan of every game: a plan made while a crowd's fresh table was
    small was kept as it grew, and each batch read the whole table (a crowd's database slowed
    minute by minute). As one array of ids they are read by the primary key (from 1,000 of
    these small games up; the old form scanned 4,000)."""
    game = do_create_game(player, "penguin", 1)
    Game.objects.bulk_create(Game(player=player, variant="penguin", seed=s) for s in range(2000))
    batch = {"g": [{"id": game.pk, "old_seq": 0, "new_seq": 1, "move_count": 1}], "m": []}
    with connection.cursor() as cursor:
        # The table as a crowd's is, these games alone: the tests before this one on the worker's
        # database left dead rows and index pages behind, which change what a scan costs.
        cursor.execute("VACUUM FULL ANALYZE games_game")
        # The plan a prepared statement keeps, whatever the parameters.
        cursor.execute("SET plan_cache_mode = force_generic_plan")
        cursor.execute("PREPARE batch(jsonb) AS " + storage.APPLY_SQL.replace("%s", "$1"))
        try:
            cursor.execute("EXPLAIN EXECUTE batch(%s)", [json.dumps(batch)])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("DEALLOCATE batch")
            cursor.execute("RESET plan_cache_mode")
    assert "Seq Scan on games_game" not in plan, plan
    assert "games_game_pkey" in plan, plan  # an index scan or a bitmap scan of the key


@pytest.mark.skipif(connection.vendor != "postgresql", reason="preparing is PostgreSQL's")
def test_the_postgres_store_runs_its_batch_as_a_prepared_statement(player):
    """Django turns psycopg's preparing off; the store turns it back on for its own statements,
    so a batch is not parsed and planned afresh each time."""
    game = do_create_game(player, "penguin", 1)
    Store("postgres").write([write_of(game, "t0-t1")])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%INSERT INTO games_move%"],
        )
        assert cursor.fetchone()[0] == 1


@on_postgres
def test_the_loop_s_connection_prepares_the_batch_too(player):
    """The writer's asynchronous connection prepares the statement as the thread's does."""
    game = do_create_game(player, "penguin", 1)

    async def prepared() -> int:
        own = storage.LoopConnection()
        try:
            assert await own.apply([write_of(game, "t0-t1")]) == {game.pk}
            async with own.conn.cursor() as cur:
                await cur.execute(
                    "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
                    ["%INSERT INTO games_move%"],
                )
                return (await cur.fetchone())[0]
        finally:
            own.close()

    assert asyncio.run(prepared()) == 1
    assert log_of(game) == ["t0-t1"]


def backends() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        return {row[0] for row in cursor.fetchall()}


def ended(pid: int) -> bool:
    """Whether the backend `pid` goes within 10 s (a backend whose client closed the connection
    exits a moment later)."""
    return within(10, lambda: pid not in backends())


@on_postgres
def test_a_closed_loop_s_writer_gives_its_connection_back(player):
    """A test run makes an event loop a test: the writer of a loop that has closed gives its
    connection back when the next loop's writer is made, and the run's end closes the rest."""
    game = do_create_game(player, "penguin", 1)

    async def a_loop_s_writer(move: str, seq: int) -> storage.MoveWriter:
        writer = storage.MoveWriter()
        result = await writer.write(write_of(game, move, seq))
        assert result.applied == {game.pk}
        return writer

    first = asyncio.run(a_loop_s_writer("t0-t1", 0))
    first_pid = first.own.conn.info.backend_pid
    second = asyncio.run(a_loop_s_writer("t2-t3", 1))
    second_pid = second.own.conn.info.backend_pid
    assert first.own.conn is None and ended(first_pid)
    assert second_pid in backends()
    storage.close_writer_connection()
    assert second.own.conn is None and ended(second_pid)
    assert log_of(game) == ["t0-t1", "t2-t3"]
