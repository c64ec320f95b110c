"""The move writer (games/storage.py): moves of many sockets share one transaction, a database
that is briefly away costs no move, and one away for longer gets `unavailable` and changes
nothing."""

from __future__ import annotations

import asyncio
import socket

import pytest
from channels.db import database_sync_to_async
from django.db import OperationalError, connection
from django.test import Client
from django.utils import timezone

from games import play, storage
from games.actions import do_create_game
from games.models import Game, Move, Player
from tests.support import log_in_as_guest

on_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the writer's own connection is PostgreSQL's"
)

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def games_of(count: int) -> list[tuple[Player, Game]]:
    made = []
    for i in range(count):
        player = Player.objects.create(nickname=f"P{i}")
        made.append((player, do_create_game(player, "penguin", 100 + i)))
    return made


@database_sync_to_async
def stored_logs(games: list[Game]) -> list[list[str]]:
    return [
        list(Move.objects.filter(game=g).order_by("seq").values_list("move", flat=True))
        for g in games
    ]


async def open_socket(make_socket, player: Player, game: Game):
    ws = await make_socket(player)
    state = await ws.send_frame({"type": "open", "game": game.public_id})
    assert state["type"] == "state"
    return ws, state


@pytest.fixture
def make_socket(connect):
    """make_socket(player) -> a /ws/game/ socket whose session is that guest's."""

    @database_sync_to_async
    def client_of(player: Player) -> Client:
        client = Client()
        log_in_as_guest(client, player)
        return client

    async def make(player: Player):
        return await connect(await client_of(player))

    return make


async def test_moves_of_many_sockets_share_a_batch(make_socket, settings):
    """Eight players move at the same moment: fewer transactions than moves, every move acked
    and stored."""
    settings.MOVE_BATCH_WINDOW_MS = 50
    made = await games_of(8)
    sockets = [await open_socket(make_socket, p, g) for p, g in made]
    before = play.GAMES.get().writer.batches
    moves = [state["legal"][0] for _, state in sockets]
    for (ws, _), move in zip(sockets, moves, strict=True):
        await ws.send_json_to({"type": "move", "move": move, "seq": 0})
    acks = [await ws.receive_json_from(5) for ws, _ in sockets]
    assert [a["type"] for a in acks] == ["ack"] * 8
    assert play.GAMES.get().writer.batches - before < 8
    logs = await stored_logs([g for _, g in made])
    assert logs == [[m.removesuffix(":1")] for m in moves]


async def test_a_database_blip_costs_no_move(make_socket, settings, store_faults):
    """The store fails twice as if PostgreSQL restarted: the move waits, then is acked once."""
    settings.MOVE_WRITE_RETRY_S = 5
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    failures = []

    def flaky():
        if len(failures) < 2:
            failures.append(1)
            raise OperationalError("terminating connection due to administrator command")

    store_faults(flaky)
    move = state["legal"][0]
    ack = await ws.send_frame({"type": "move", "move": move, "seq": 0})
    assert ack["type"] == "ack" and ack["seq"] == 1
    assert len(failures) == 2
    assert await stored_logs([game]) == [[move.removesuffix(":1")]]


async def test_a_database_away_past_the_bound_is_unavailable(make_socket, settings, store_faults):
    """Away for longer than MOVE_WRITE_RETRY_S: `unavailable` with `retry_ms`, nothing stored;
    the same frame sent again once it is back is applied."""
    settings.MOVE_WRITE_RETRY_S = 0.3
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    back = []

    def away():
        if not back:
            raise OperationalError("connection refused")

    store_faults(away)
    move = state["legal"][0]
    error = await ws.send_frame({"type": "move", "move": move, "seq": 0})
    assert error["type"] == "error" and error["code"] == "unavailable"
    assert error["ref"] == "move" and error["retry_ms"] > 0
    assert await stored_logs([game]) == [[]]
    back.append(1)
    ack = await ws.send_frame({"type": "move", "move": move, "seq": 0})
    assert ack["type"] == "ack" and ack["seq"] == 1


async def test_a_refused_statement_is_not_retried(make_socket, settings, store_faults):
    """An error that is not the database being away (a bug, a refused statement) is a
    `server_error` at once, not minutes of retries."""
    settings.MOVE_WRITE_RETRY_S = 30
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    calls = []

    def broken():
        calls.append(1)
        raise RuntimeError("bug")

    store_faults(broken)
    error = await asyncio.wait_for(
        ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0}), 5
    )
    assert error["code"] == "server_error" and calls == [1]


def test_autoplay_and_moves_take_one_write_each(player):
    """The store gets one write per action however many cards an autoplay sends home."""
    from games.actions import do_autoplay

    game = do_create_game(player, "penguin", 3)
    seen = []
    real = storage.apply

    def spy(writes):
        seen.append(len(writes))
        return real(writes)

    storage.apply = spy
    try:
        update = do_autoplay(game, 0)
    finally:
        storage.apply = real
    assert seen == [1]
    assert len(update.played) == Game.objects.get(pk=game.pk).seq


class Probe:
    """A part of a write that asks for its follow-up after the commit."""

    announce = False
    follow_up = True

    def row(self) -> dict:
        return {}


@pytest.fixture
def probe_part(monkeypatch):
    """probe_part(follow): every practice move's write carries a `Probe`, whose registered
    follow-up is `follow(values)`."""

    def install(follow) -> None:
        part = storage.BatchPart(name="probe", sql="probe AS (SELECT 1)", orm=lambda pairs: None)
        part = storage.BatchPart(**{**part.__dict__, "after_commit": follow})
        monkeypatch.setitem(storage.PARTS, "probe", part)
        monkeypatch.setattr(storage, "APPLY_SQL", storage.apply_sql())
        monkeypatch.setitem(play.WRITE_PARTS, "practice", lambda game: add_probe)

    return install


def add_probe(live, write) -> None:
    write.parts["probe"] = Probe()


async def test_a_parts_follow_up_runs_after_the_commit_before_the_ack(make_socket, probe_part):
    """What an app registers to follow a batch runs once the batch is committed (the move is in
    the record) and before the move is acked, with the applied writes' parts."""
    seen = []

    def follow(values):
        stored = Move.objects.filter(game_id=game.pk).count()
        seen.append((len(values), stored))

    probe_part(follow)
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    ack = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert ack["type"] == "ack"
    assert seen == [(1, 1)]


def write_of(pk: int, status=Game.Status.PLAYING, state=None, **parts) -> storage.GameWrite:
    return storage.GameWrite(
        pk=pk,
        public_id=f"g{pk}",
        old_seq=0,
        moves=["t0-t1"],
        move_count=1,
        status=status,
        finished_at=None,
        at=timezone.now(),
        state=state,
        parts=parts,
    )


class Part:
    def __init__(self, announce=False, follow_up=False) -> None:
        self.announce, self.follow_up = announce, follow_up


def test_a_batch_is_plain_unless_it_announces_follows_up_or_ends_a_game():
    """A plain batch wants nothing but its statement; one write that wants more makes the whole
    batch go where its transaction and what follows it run (the writer's thread)."""
    moving = write_of(1, racer=Part())
    assert storage.plain([moving, write_of(2)])
    assert storage.plain([write_of(3, status=Game.Status.STUCK)])  # no state: not an end
    assert not storage.plain([moving, write_of(4, racer=Part(announce=True))])
    assert not storage.plain([moving, write_of(5, attempt=Part(follow_up=True))])
    for ended in (Game.Status.WON, Game.Status.STUCK, Game.Status.RESIGNED):
        assert not storage.plain([moving, write_of(6, status=ended, state={})])


@on_postgres
async def test_a_plain_move_is_stored_from_the_loop_and_one_with_a_follow_up_on_the_thread(
    make_socket, probe_part, monkeypatch
):
    """A move with nothing to follow goes from the event loop on the writer's own asynchronous
    connection, without the writer's thread; a move whose part wants a follow-up goes to the
    thread, where the follow-up runs."""
    writer = play.GAMES.get().writer
    on_thread = []
    store = writer.store

    async def spy(writes):
        on_thread.append(len(writes))
        return await store(writes)

    monkeypatch.setattr(writer, "store", spy)
    [(player, game), (other, probed)] = await games_of(2)
    ws, state = await open_socket(make_socket, player, game)
    ack = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert ack["type"] == "ack" and on_thread == []
    assert writer.own.conn is not None and not writer.own.conn.closed
    followed = []
    probe_part(followed.append)  # for the games loaded from now on
    ws, state = await open_socket(make_socket, other, probed)
    ack = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert ack["type"] == "ack" and on_thread == [1] and len(followed) == 1
    assert [len(log) for log in await stored_logs([game, probed])] == [1, 1]


@on_postgres
async def test_a_dropped_loop_connection_costs_no_move(make_socket, settings):
    """PostgreSQL ends the connection the writer sends plain batches on from its event loop:
    the next move is retried on a new connection and acked, and both are stored once."""
    settings.MOVE_WRITE_RETRY_S = 5
    writer = play.GAMES.get().writer
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    first = state["legal"][0]
    ack = await ws.send_frame({"type": "move", "move": first, "seq": 0})
    own = writer.own.conn.info.backend_pid
    await terminate(own)
    second = ack["legal"][0]
    ack = await ws.send_frame({"type": "move", "move": second, "seq": 1})
    assert ack["type"] == "ack" and ack["seq"] == 2
    assert writer.own.conn.info.backend_pid != own
    assert await stored_logs([game]) == [[first.removesuffix(":1"), second.removesuffix(":1")]]


@on_postgres
async def test_a_database_host_that_never_answers_holds_a_move_for_its_connect_timeout_only(
    make_socket, settings, monkeypatch
):
    """The writer's loop connection is opened again towards a host that takes the TCP connection
    and never answers (a database behind a link that drops what it is sent): the connect gives up
    after the settings' `connect_timeout`, not psycopg's own default of 130 s, and the move is
    answered `unavailable`, nothing stored. With the database back, the same move is acked."""
    settings.MOVE_WRITE_RETRY_S = 1  # one try: its connect is what is bounded
    timeout = int(connection.settings_dict["OPTIONS"]["connect_timeout"])
    assert 2 <= timeout < 10  # psycopg's least is 2 s; well under a move's retry bound (10 s)
    writer = play.GAMES.get().writer
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        params = storage.loop_connection_params()
        elsewhere = {**params, "host": "127.0.0.1", "port": silent.getsockname()[1]}
        monkeypatch.setattr(storage, "loop_connection_params", lambda: elsewhere)
        writer.own.close()  # the next batch opens the connection again
        move = state["legal"][0]
        await ws.send_json_to({"type": "move", "move": move, "seq": 0})
        error = await ws.receive_json_from(timeout=timeout + 10)
    assert error["type"] == "error" and error["code"] == "unavailable"
    assert await stored_logs([game]) == [[]]
    monkeypatch.setattr(storage, "loop_connection_params", lambda: params)
    ack = await ws.send_frame({"type": "move", "move": move, "seq": 0})
    assert ack["type"] == "ack" and ack["seq"] == 1


@database_sync_to_async
def terminate(pid: int) -> None:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_terminate_backend(%s)", [pid])


@on_postgres
async def test_a_dropped_writer_connection_costs_no_move(make_socket, settings, probe_part):
    """PostgreSQL ends the writer thread's own connection between two moves (a restart, a
    failover): the next move is retried on a new connection and acked, and both are stored
    once. (The moves carry a part with a follow-up, so both go to the thread.)"""
    settings.MOVE_WRITE_RETRY_S = 5
    probe_part(lambda values: None)
    [(player, game)] = await games_of(1)
    ws, state = await open_socket(make_socket, player, game)
    first = state["legal"][0]
    ack = await ws.send_frame({"type": "move", "move": first, "seq": 0})
    own = await asyncio.wrap_future(storage.WRITER_THREAD.submit(writer_backend))
    assert own is not None
    await terminate(own)
    second = ack["legal"][0]
    ack = await ws.send_frame({"type": "move", "move": second, "seq": 1})
    assert ack["type"] == "ack" and ack["seq"] == 2
    assert await asyncio.wrap_future(storage.WRITER_THREAD.submit(writer_backend)) != own
    assert await stored_logs([game]) == [[first.removesuffix(":1"), second.removesuffix(":1")]]


def writer_backend() -> int | None:
    """The backend pid of the writer thread's connection (run on that thread)."""
    return connection.connection.info.backend_pid if connection.connection else None
