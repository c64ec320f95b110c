"""Race fixtures: racers with their own browser sessions, races, and race sockets; for the
hostile and security suites also a running race and a frame budget no test reaches. The test
packages' conftest files import what they use from here.

`race_socket` connects through the real ASGI application (origin check, session, auth) like
the games app's `connect`, and checks at the end of the test that no frame any socket got
showed a hidden card (boards are checked against the record at their seq) or, before the race
was over, the race's seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import threading
from dataclasses import dataclass, field

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db.backends import utils
from django.db.models import F
from django.test import Client
from django.utils import timezone

from games.models import Player
from races import actions, lifecycle
from races import clock as race_clock
from races import play as race_play
from races.models import Race, Racer
from tests.support import RecordingCommunicator, check_frame_hides_cards, log_in_as_guest

ORIGIN = b"http://localhost"
FAST_COUNTDOWN_MS = 300


@pytest.fixture
def fast_countdown(monkeypatch):
    """Races in tests count down in 0.3 s, not 3 s (the clock logic is the same)."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", FAST_COUNTDOWN_MS)


@pytest.fixture
def make_client(db):
    """make_client("Ann") -> a test client whose session is a new guest player of that name."""

    def make(nickname: str) -> Client:
        client = Client()
        player = Player.objects.create(nickname=nickname)
        log_in_as_guest(client, player)
        client.player = player
        return client

    return make


@pytest.fixture
def make_race(db):
    """make_race(host_client, **settings) -> a race in the lobby, hosted by that client's player."""

    def make(host: Client, **kwargs) -> Race:
        kwargs.setdefault("variant", "penelopes-web")
        if kwargs["variant"] == "penelopes-web" and not kwargs.get("winnable"):
            # A fixed deal with moves to make: about 1 random deal in 125 has none at all.
            kwargs.setdefault("seed", 7318420953371)
        return actions.do_create_race(host.player, **kwargs)

    return make


class RaceSocket(RecordingCommunicator):
    """A race socket that sorts what arrives: `expect(type)` skips to the next frame of a type."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[dict] = []

    async def next(self, timeout: float = 10) -> dict:
        frame = await self.receive_json_from(timeout)
        self.seen.append(frame)
        return frame

    async def expect(self, frame_type: str, timeout: float = 10, **match) -> dict:
        """The next frame of this type (and these field values); frames before it are kept."""
        while True:
            frame = await self.next(timeout)
            if frame["type"] == frame_type and all(frame.get(k) == v for k, v in match.items()):
                return frame

    async def request(self, frame: dict, reply: str, **match) -> dict:
        await self.send_json_to(frame)
        return await self.expect(reply, **match)

    async def error(self, frame: dict) -> dict:
        """Send a frame that must be refused; the error frame."""
        return await self.request(frame, "error")

    async def quiet(self, timeout: float = 0.2) -> None:
        """Nothing more arrives (within the timeout)."""
        assert await self.receive_nothing(timeout), await self.receive_from()

    async def board(self) -> dict:
        """Wait for this racer's board (a `state` frame), as sent at the start."""
        return await self.expect("state")


@pytest.fixture
async def race_socket(sent_frames):
    """race_socket(client, code, since=None) -> a connected RaceSocket (None client: anonymous)."""
    from solitaire_site.asgi import application

    opened: list[RaceSocket] = []

    async def open_socket(
        client: Client | None, code: str, since: int | None = None, origin=ORIGIN
    ):
        headers = [(b"origin", origin)] if origin else []
        if client is not None:
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
        path = f"/ws/race/{code}/" + (f"?since={since}" if since is not None else "")
        socket = RaceSocket(application, path, headers=headers, log=sent_frames)
        connected, _ = await socket.connect()
        assert connected
        opened.append(socket)
        return socket

    yield open_socket
    for socket in opened:
        # A consumer that already failed makes disconnect() raise CancelledError, which is not
        # an Exception: left to escape, it would skip the other finalizers (monkeypatch's too).
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await socket.disconnect()
    await sync_to_async(assert_nothing_secret)(sent_frames)


def check_board_hides_cards(frame: dict, text: str) -> bool:
    """A frame showing a board (a spectator's `board`, a racer's own `state`/`ack`) against the
    record at its seq; False if the frame shows no board."""
    if frame["type"] == "board":
        racer = Racer.objects.select_related("game").get(public_id=frame["racer"])
        check_frame_hides_cards(json.dumps({**frame, "game": racer.game.public_id}))
    elif "view" in frame:
        check_frame_hides_cards(text)
    else:
        return False
    return True


def assert_nothing_secret(frames: list[str]) -> None:
    """No hidden card in any board; no race's seed before that race was over."""
    for text in frames:
        frame = json.loads(text)
        check_board_hides_cards(frame, text)
        race_data = frame.get("race") or {}
        if race_data.get("status") not in ("finished", "cancelled"):
            assert "seed" not in race_data, text
    for race in Race.objects.all():
        for text in frames:
            frame = json.loads(text)
            over = (frame.get("race") or {}).get("status") in ("finished", "cancelled")
            if frame.get("type") != "finished" and not over:
                assert str(race.seed) not in text, f"seed of {race.code} in {text[:200]}"


async def wait_until(moment_ms: int) -> None:
    """Sleep until the server's clock (the same machine's here) reaches `moment_ms`."""
    delay = moment_ms - race_clock.epoch_ms(timezone.now())
    if delay > 0:
        await asyncio.sleep(delay / 1000 + 0.02)


@pytest.fixture
def run():
    """run(fn, *args) -> the result of a sync (ORM) call from an async test."""

    async def call(fn, *args, **kwargs):
        return await database_sync_to_async(fn)(*args, **kwargs)

    return call


@pytest.fixture
def no_countdown(monkeypatch):
    """Races start the moment they are started (for tests that drive the actions directly)."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 0)


def out_of_time(race: Race) -> None:
    """A started race's clock an hour earlier: its time is up, and its close is due."""
    hour = dt.timedelta(hours=1)
    Race.objects.filter(pk=race.pk).update(
        starts_at=F("starts_at") - hour, ends_at=F("ends_at") - hour
    )


@pytest.fixture
def finished_race(make_client, make_race, no_countdown):
    """A finished two-player race: Ann played a move and resigned, then Bob resigned."""
    from games.actions import get_game_update

    ann, bob = make_client("Ann"), make_client("Bob")
    race = make_race(ann, time_limit_s=300)
    actions.do_join_race(race, bob.player)
    actions.do_start_race(race, ann.player)
    ann_racer = race.racers.get(player=ann.player)
    move = get_game_update(ann_racer.game).legal[0]
    race_play.do_race_move(race, ann.player, move, 0)
    actions.do_resign(race, ann.player)
    actions.do_resign(race, bob.player)
    race.refresh_from_db()
    race.clients = (ann, bob)
    return race


def near_won_penelopes_web() -> dict:
    """Penelope's Web one move from the win: every card home but the King of spades, on t0."""
    from games.engine import new_game

    ranks = "A23456789TJQK"
    foundations = [[rank + suit for rank in ranks] for suit in "CDHS"]
    tableau = [[foundations[3].pop()]] + [[] for _ in range(7)]
    state = new_game("penelopes-web", 0).to_dict()
    return {**state, "tableau": tableau, "down": [0] * 8, "foundations": foundations}


@pytest.fixture
def near_win_for(monkeypatch):
    """near_win_for(player): when the race starts, that player's game is one move (t0-f3) from
    won.

    A real race cannot reach a chosen position, so the test starts that racer's game from a
    constructed one (the games app's `start_state`, as its own tests do); every rule of the race
    is untouched, and the record (start position + move log) stays true for the leak checks.
    """
    rigged = set()
    real = actions.do_create_games

    def create(players, variant, seed, **kwargs):
        dealt = [player for player in players if player.pk not in rigged]
        games = {game.player_id: game for game in real(dealt, variant, seed, **kwargs)}
        for player in players:
            if player.pk in rigged:
                near_won = {**kwargs, "start_state": near_won_penelopes_web()}
                games[player.pk] = real([player], variant, seed, **near_won)[0]
        return [games[player.pk] for player in players]

    monkeypatch.setattr(actions, "do_create_games", create)
    return lambda player: rigged.add(player.pk)


@dataclass
class Duo:
    """Ann's race (Penelope's Web, 60 s limit) with Bob in it: clients, sockets, ids, boards."""

    race: Race
    clients: dict[str, Client]
    sockets: dict[str, RaceSocket]
    ids: dict[str, str]
    boards: dict[str, dict] = field(default_factory=dict)


@pytest.fixture
def open_duo(make_client, make_race, race_socket, run):
    """await open_duo(start=False, before_start=None): Ann hosts, Bob (a guest nicknamed Robert)
    joins as "Bob", both sockets past their snapshots and the join; with `start`, Ann starts
    and both have their boards (`before_start(duo)` runs first)."""

    async def open_(start: bool = False, before_start=None) -> Duo:
        ann, bob = await run(make_client, "Ann"), await run(make_client, "Robert")
        race = await run(make_race, ann, time_limit_s=60)
        sockets = {"ann": await race_socket(ann, race.code)}
        snapshot = await sockets["ann"].expect("snapshot")
        sockets["bob"] = await race_socket(bob, race.code)
        await sockets["bob"].expect("snapshot")
        joined = await sockets["bob"].request({"type": "join", "name": "Bob"}, "joined")
        await sockets["ann"].expect("joined")
        ids = {"ann": snapshot["you"]["racer"], "bob": joined["racer"]["id"]}
        duo = Duo(race, {"ann": ann, "bob": bob}, sockets, ids)
        if start:
            if before_start is not None:
                before_start(duo)
            await sockets["ann"].request({"type": "start"}, "countdown")
            await sockets["bob"].expect("countdown")
            duo.boards = {name: await socket.board() for name, socket in sockets.items()}
        return duo

    return open_


@pytest.fixture
def running_race(make_client, make_race):
    """A running race of Ann (host) and Bob on Penelope's Web, no move made yet."""
    from hostile_harness import start_running_race

    return start_running_race(make_client, make_race)


@pytest.fixture
def generous_budget(monkeypatch):
    """Sockets get a frame budget no test session reaches, for tests about something else
    (each of their frames is followed by a ping, which counts too)."""
    from games import consumers as game_consumers
    from games.sockets import FrameBudget
    from races import consumers as race_consumers

    def budget() -> FrameBudget:
        return FrameBudget(limit=100_000, flood=100_000)

    monkeypatch.setattr(game_consumers, "FrameBudget", budget)
    monkeypatch.setattr(race_consumers, "FrameBudget", budget)


@pytest.fixture
def statements(monkeypatch):
    """statements() -> how many SQL statements every thread has run since the last call (the
    sockets' reads run on the ORM threads, which Django's per-connection capture misses);
    statements.sql() -> those statements themselves, since the last call of either. The racers'
    presence beat (races/presence.py) is the process's, not a socket's, and is left out: it runs
    on its own clock, once a second at most (tests/arenas/test_arena_racers_who_left.py)."""
    from races import presence

    monkeypatch.setattr(presence, "say_seen", lambda racer_pks: 0)
    seen: list[str] = []
    lock = threading.Lock()
    execute = utils.CursorWrapper._execute

    def counting(self, sql, *args):
        with lock:
            seen.append(sql)
        return execute(self, sql, *args)

    monkeypatch.setattr(utils.CursorWrapper, "_execute", counting)

    def sql() -> list[str]:
        with lock:
            taken = seen[:]
            seen.clear()
        return taken

    def since_last() -> int:
        return len(sql())

    since_last.sql = sql
    return since_last
