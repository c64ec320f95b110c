"""Fixtures for arenas: an arena running now, players in it with their page open, and a race
of the arena played to its end."""

import asyncio
import contextlib
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from arenas import actions, rooms
from arenas.models import Arena
from games.actions import get_game_update
from games.models import Player
from races import actions as race_actions
from races import play as race_play
from tests.race_support import ORIGIN, RaceSocket


@pytest.fixture(autouse=True)
def place_at_once(settings):
    """Free players are placed without waiting for others (the gathering time is 0)."""
    settings.ARENA_GATHER_S = 0


@pytest.fixture
def make_arena(db):
    def make(starts_in_s: int = -60, minutes: int = 30, **fields) -> Arena:
        starts = timezone.now() + timedelta(seconds=starts_in_s)
        fields.setdefault("variant", "eighty-thieves")
        fields.setdefault("name", "Test arena")
        return Arena.objects.create(
            starts_at=starts, ends_at=starts + timedelta(minutes=minutes), **fields
        )

    return make


@pytest.fixture
def arena(make_arena) -> Arena:
    return make_arena()


@pytest.fixture
def here(arena):
    """here(name) -> a new player who joined the arena and has its page open."""

    def make(name: str, on=None) -> Player:
        player = Player.objects.create(nickname=name)
        actions.do_join(on or arena, player)
        actions.do_present(on or arena, player, True)
        return player

    return make


def play_out(race, movers=(), resigners=None) -> None:
    """End a started race: `movers` make a move first, then everyone resigns in the order given
    (`resigners`, default: the racers in order), which closes it."""
    race.refresh_from_db()
    for player in movers:
        racer = race.racers.get(player=player)
        move = get_game_update(racer.game).legal[0]
        race_play.do_race_move(race, player, move, 0)
    order = resigners or [r.player for r in race.racers.select_related("player")]
    for player in order:
        race_actions.do_resign(race, player)
    race.refresh_from_db()


@pytest.fixture
def fast_ticks(monkeypatch):
    """The arena rooms tick every 0.1 s, not every second (the logic is the same)."""
    monkeypatch.setattr(rooms, "TICK_S", 0.1)


class ServerSideSocket(RaceSocket):
    """A socket whose consumer's sends go to the queue `to`, in Daphne's place."""

    def __init__(self, *args, to: asyncio.Queue, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.to = to

    @property
    def output_queue(self) -> asyncio.Queue:
        return self.to


@pytest.fixture
async def arena_socket():
    """arena_socket(client, public_id) -> a connected socket on the arena's page (None client:
    anonymous), with `expect(type)`; `server_side`: the queue the consumer's sends go to."""
    from solitaire_site.asgi import application

    opened: list[RaceSocket] = []

    async def open_socket(client, public_id: str, server_side: asyncio.Queue | None = None):
        headers = [(b"origin", ORIGIN)]
        if client is not None:
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
        path = f"/ws/arena/{public_id}/"
        if server_side is None:
            socket = RaceSocket(application, path, headers=headers, log=[])
        else:
            socket = ServerSideSocket(application, path, headers=headers, log=[], to=server_side)
        connected, _ = await socket.connect()
        assert connected
        opened.append(socket)
        return socket

    yield open_socket
    for socket in opened:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await socket.disconnect()
    # A room's tick ends once its sockets have left, but the tick under way may still be in a
    # query on an ORM thread: the test database's teardown (a flush of every table) found such
    # a query holding arenas_arenaplayer on SQLite ("database table is locked").
    for room in list(rooms.ROOMS.get().rooms.values()):
        if room.task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(room.task, 10)
