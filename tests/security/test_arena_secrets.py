"""An arena's races keep their secrets as every race does (test_access.py, test_hidden_cards.py).

While a race of an arena runs, its deal's number (the rules engine is public: the seed is every
card) and its racers' game ids (the addresses of their replays) reach nobody: not through the
arena's pages and API, the players' pages, the arena's socket, nor the race socket that takes a
racer from one arena race on to the next; and no frame shows a hidden card. A viewer's own game
id is theirs. Once the race is over, its results and replays show its seed.

The arenas deal Spiderweb here: one deck, with face-down cards and a stock.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from test_hidden_cards import CARD, check_frame

from arenas import actions, placement, standings
from arenas.models import Arena
from games.actions import get_game_update
from games.models import Game
from races import lifecycle, play, snapshots
from races.models import Race

# ruff: noqa: F811 (the arenas' fixtures below are the tests' parameters)
from tests.arenas.conftest import (  # noqa: F401  (fixtures)
    arena_socket,
    fast_ticks,
    place_at_once,
    play_out,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("generous_budget", "fast_ticks"),
]

COUNTDOWN_MS = 2000
"""A race placed with a countdown this long has time for a late racer to join it
(arenas.placement.LATE_JOIN_LEAD_S)."""


# ------------------------------------------------------------------ the scanner


@dataclass(frozen=True)
class Kept:
    """What a running race keeps from everyone: its seed, and its racers' game ids (each with
    its player's id: a player's own game id is theirs to see)."""

    code: str
    seed: int
    games: dict[str, int]


def kept_by(race: Race) -> Kept:
    games = Game.objects.filter(racer__race=race).values_list("public_id", "player_id")
    return Kept(race.code, race.seed, dict(games))


def seed_forms(seed: int) -> list[re.Pattern]:
    """The seed as a page or frame could write it, not as part of a longer number: in decimal
    (what the app writes: JSON numbers and strings, templates, /play/<variant>/<seed>/), and in
    hexadecimal for good measure."""
    return [
        re.compile(rf"(?<![0-9]){seed}(?![0-9])"),
        re.compile(rf"(?<![0-9a-f]){seed:x}(?![0-9a-f])", re.IGNORECASE),
    ]


def leaks(text: str, races: Iterable[Kept], viewer: int | None = None) -> list[str]:
    """What of the races' secrets `text` shows to the player `viewer` (None: a visitor)."""
    found = []
    for race in races:
        if any(form.search(text) for form in seed_forms(race.seed)):
            found.append(f"the seed of {race.code}")
        found += [
            f"game {game} of {race.code}"
            for game, player in race.games.items()
            if player != viewer and game in text
        ]
    return found


def check_page(text: str, races: Iterable[Kept], viewer: int | None, where: str) -> None:
    """No seed, no game id but the viewer's own, and no card of any deal."""
    shown = leaks(text, races, viewer)
    assert not shown, f"{where} shows {shown}"
    assert not CARD.search(text), f"{where} shows a card: {CARD.search(text).group()}"


def check_frames(frames: list[dict], races: Iterable[Kept], viewer: int | None) -> None:
    """Every frame a socket got: none of the races' secrets that `leaks` finds, each board
    against the record with exactly its hidden cards hidden, and no card in any other frame
    (test_hidden_cards.check_frame)."""
    for frame in frames:
        text = json.dumps(frame)
        shown = leaks(text, races, viewer)
        assert not shown, f"a {frame['type']} frame shows {shown}: {text[:300]}"
        check_frame(text)


async def drained(*sockets) -> None:
    """Every frame that came, read into each socket's `seen`."""
    for socket in sockets:
        while not await socket.receive_nothing(0.3):
            await socket.next()


# ------------------------------------------------------------------ arenas and races


@pytest.fixture
def arena(db) -> Arena:
    """A Spiderweb arena that began a minute ago and runs for half an hour more."""
    now = timezone.now()
    return Arena.objects.create(
        name="Secrets",
        variant="spiderweb",
        starts_at=now - timedelta(minutes=1),
        ends_at=now + timedelta(minutes=30),
    )


@pytest.fixture
def arena_client(arena, make_client):
    """arena_client(name) -> a client of a new guest who joined the arena (its page closed)."""

    def make(name: str) -> Client:
        client = make_client(name)
        actions.do_join(arena, client.player)
        return client

    return make


def placed(arena: Arena, *clients: Client) -> Race:
    """These players' arena pages open, the one race the arena places them in (started now)."""
    for client in clients:
        actions.do_present(arena, client.player, True)
    [race] = placement.place(arena.pk)
    return race


def make_moves(race: Race, *clients: Client) -> None:
    """Each of these racers makes a legal move."""
    for client in clients:
        game = race.racers.get(player=client.player).game
        play.do_race_move(race, client.player, get_game_update(game).legal[0], game.seq)


@dataclass
class ArenaRaces:
    """Ann and Bob race in one race of the arena, Cat and Dan in another after one they played
    out; Eve is a guest in no arena."""

    arena: Arena
    clients: dict[str, Client]
    running: list[Race]
    over: Race

    @property
    def players(self) -> list[int]:
        return [client.player.pk for name, client in self.clients.items() if name != "Eve"]

    def viewers(self) -> list[tuple[Client, int | None]]:
        """A racer of the first race, a racer of the second, a guest in no arena, a visitor;
        each with their player's id."""
        guests = [self.clients[name] for name in ("Ann", "Cat", "Eve")]
        return [(client, client.player.pk) for client in guests] + [(Client(), None)]


@pytest.fixture
def arena_races(arena, arena_client, make_client, no_countdown) -> ArenaRaces:
    ann, bob, cat, dan = (arena_client(name) for name in ("Ann", "Bob", "Cat", "Dan"))
    first = placed(arena, ann, bob)
    over = placed(arena, cat, dan)
    play_out(over, movers=[cat.player, dan.player])
    second = placed(arena)  # Cat and Dan again, their pages still open
    make_moves(first, ann, bob)
    make_moves(second, cat)
    clients = {"Ann": ann, "Bob": bob, "Cat": cat, "Dan": dan, "Eve": make_client("Eve")}
    return ArenaRaces(arena, clients, [first, second], over)


def check_pages_to_every_viewer(arena_races: ArenaRaces, pages: list[str]) -> None:
    """Each page, to each of the viewers: there, with none of the running races' secrets."""
    kept = [kept_by(race) for race in arena_races.running]
    for viewer, viewer_id in arena_races.viewers():
        for page in pages:
            reply = viewer.get(page)
            assert reply.status_code == 200, page
            check_page(reply.content.decode(), kept, viewer_id, page)


# ------------------------------------------------------------------ pages and the API


def test_no_arena_page_or_api_shows_a_running_race_s_seed_games_or_cards(arena_races):
    """The arenas' list, the arena's page and API, each player's arena page and API, each
    player's page and API document, and each running race's page, to a racer of that race, a racer of the arena's
    other race, a guest in no arena and a visitor: none holds a running race's seed, a game id
    other than the viewer's own, or a card. A running race's results, its replay and its racers'
    game replays are refused, even to a racer who knows their own game's id."""
    arena = arena_races.arena
    pages = [
        "/arenas/",
        "/api/arenas/",
        arena.get_absolute_url(),
        f"/api/arenas/{arena.public_id}/",
    ]
    for pid in arena_races.players:
        pages += [f"/arenas/{arena.public_id}/players/{pid}/", f"/players/{pid}/"]
        pages += [f"/api/arenas/{arena.public_id}/players/{pid}/", f"/api/players/{pid}/"]
    pages += [race.get_absolute_url() for race in arena_races.running]
    check_pages_to_every_viewer(arena_races, pages)
    kept = [kept_by(race) for race in arena_races.running]
    for viewer, _ in arena_races.viewers():
        for race in kept:
            assert viewer.get(f"/races/{race.code}/results/").status_code == 302
            refused = [f"/api/races/{race.code}/replay/", f"/replay/race/{race.code}/"]
            refused += [f"/api/replays/{game}/" for game in race.games]
            for page in refused:
                reply = viewer.get(page)
                assert reply.status_code == 403, page
                assert not leaks(reply.content.decode(), kept), page


def test_once_an_arena_race_is_over_its_results_and_replays_show_its_seed(arena_races):
    """The scan is not blind: the race Cat and Dan played out shows its seed and their game ids
    on its results page and in its replays, and Cat's arena document lists it (and not yet the
    race she runs now)."""
    over = kept_by(arena_races.over)
    eve = arena_races.clients["Eve"]
    for page in (
        f"/races/{over.code}/results/",
        f"/replay/race/{over.code}/",
        f"/api/races/{over.code}/replay/",
        *(f"/api/replays/{game}/" for game in over.games),
    ):
        reply = eve.get(page)
        assert reply.status_code == 200, page
        assert f"the seed of {over.code}" in leaks(reply.content.decode(), [over]), page
    results = eve.get(f"/races/{over.code}/results/").content.decode()
    assert len(leaks(results, [over])) == 3  # the seed and both games
    cat = arena_races.clients["Cat"].player.pk
    entry = eve.get(f"/api/arenas/{arena_races.arena.public_id}/players/{cat}/").json()
    assert [race["race"] for race in entry["races"]] == [over.code]


# ------------------------------------------------------------------ sockets


async def test_no_frame_through_an_arena_race_and_the_next_shows_a_running_race_s_secrets(
    arena, arena_client, arena_socket, race_socket, run, monkeypatch
):
    """Ann and Bob are placed from the arena's page; Cat, late, joins their race in its
    countdown; they race, and Ann and Bob wait on their race's socket and are placed in the next
    race on it. Every frame their arena and race sockets got (the standings, `placed`, the late
    racer's `joined`, the others' moves, the next race's snapshot and events) holds no seed
    and no other racer's game id of a race still running, and every board hides its hidden
    cards."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", COUNTDOWN_MS)
    ann, bob, cat = [await run(arena_client, name) for name in ("Ann", "Bob", "Cat")]
    on_arena = {"ann": await arena_socket(ann, arena.public_id)}
    on_arena["bob"] = await arena_socket(bob, arena.public_id)
    url = (await on_arena["ann"].expect("placed"))["url"]
    assert (await on_arena["bob"].expect("placed"))["url"] == url
    first = await run(Race.objects.get)
    on_race = {"ann": await race_socket(ann, first.code)}
    await on_race["ann"].expect("snapshot")
    on_arena["cat"] = await arena_socket(cat, arena.public_id)
    assert (await asyncio.wait_for(on_arena["cat"].expect("placed"), 5))["url"] == url
    assert (await on_race["ann"].expect("joined"))["racer"]["name"] == "Cat"
    for socket in on_arena.values():
        await socket.disconnect()  # the pages go to the race
    for name, client in (("bob", bob), ("cat", cat)):
        on_race[name] = await race_socket(client, first.code)
        await on_race[name].expect("snapshot")
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 0)  # the next race starts at once
    boards = {name: await socket.board() for name, socket in on_race.items()}
    for step in range(3):
        for name, socket in on_race.items():
            move = {"type": "move", "move": boards[name]["legal"][0], "seq": step}
            boards[name] = await socket.request(move, "ack")
    await drained(*on_race.values())
    first_kept = await run(kept_by, first)
    racer_ids = dict(await run(lambda: list(first.racers.values_list("player", "public_id"))))
    before_the_end = {name: len(socket.seen) for name, socket in on_race.items()}

    await run(play_out, first)
    for name in ("ann", "bob"):
        await on_race[name].expect("arena")
        await on_race[name].send_json_to({"type": "wait"})
    for name in ("ann", "bob"):
        assert (await asyncio.wait_for(on_race[name].expect("placed"), 5))["url"] != url
        assert (await on_race[name].expect("snapshot"))["race"]["code"] != first.code
    board = await on_race["ann"].board()
    await on_race["ann"].request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    await on_race["bob"].expect("progress")
    await drained(*on_race.values())
    second = await run(Race.objects.exclude(pk=first.pk).get)
    second_kept = await run(kept_by, second)

    viewers = {"ann": ann, "bob": bob, "cat": cat}
    for name, socket in on_race.items():
        viewer = viewers[name].player.pk
        await run(check_frames, socket.seen, [second_kept], viewer)
        await run(check_frames, socket.seen[: before_the_end[name]], [first_kept], viewer)
    for name, socket in on_arena.items():  # closed while the first race ran
        await run(check_frames, socket.seen, [first_kept, second_kept], viewers[name].player.pk)
    assert {frame["type"] for frame in on_arena["ann"].seen} >= {"standings", "placed"}
    during = on_race["ann"].seen[: before_the_end["ann"]]
    assert [f["racer"]["name"] for f in during if f["type"] == "joined"] == ["Cat"]
    others = {racer for player, racer in racer_ids.items() if player != ann.player.pk}
    assert others <= {r["id"] for f in during if f["type"] == "progress" for r in f["racers"]}


async def test_a_spectator_and_a_racer_of_another_arena_race_see_no_seed_or_hidden_card(
    arena, arena_client, arena_socket, race_socket, run, make_client, no_countdown
):
    """Eve (in no arena) and Dan (racing in another race of the arena) watch Ann and Bob's race
    on its socket and the arena on its own while they race: their frames hold no seed and no
    game id of either running race (but Dan's own), and the boards they watch hide their hidden
    cards."""
    dan, fay = await run(arena_client, "Dan"), await run(arena_client, "Fay")
    other = await run(placed, arena, dan, fay)
    eve = await run(make_client, "Eve")
    ann, bob = await run(arena_client, "Ann"), await run(arena_client, "Bob")
    watching = {"eve": await arena_socket(eve, arena.public_id)}
    watching["dan"] = await arena_socket(dan, arena.public_id)
    ann_arena, bob_arena = [await arena_socket(c, arena.public_id) for c in (ann, bob)]
    url = (await ann_arena.expect("placed"))["url"]
    assert (await bob_arena.expect("placed"))["url"] == url
    race = await run(Race.objects.exclude(pk=other.pk).get)
    racing = {name: await race_socket(c, race.code) for name, c in (("ann", ann), ("bob", bob))}
    boards = {name: await socket.board() for name, socket in racing.items()}
    spectating = {"eve": await race_socket(eve, race.code)}
    spectating["dan"] = await race_socket(dan, race.code)
    dan_own = await race_socket(dan, other.code)
    for socket in spectating.values():
        await socket.expect("board")
    for step in range(3):
        for name, socket in racing.items():
            move = {"type": "move", "move": boards[name]["legal"][0], "seq": step}
            boards[name] = await socket.request(move, "ack")
    await drained(*watching.values(), *spectating.values(), dan_own)
    kept = [await run(kept_by, race), await run(kept_by, other)]
    for name, client in (("eve", eve), ("dan", dan)):
        for socket in (watching[name], spectating[name]):
            await run(check_frames, socket.seen, kept, client.player.pk)
        assert sum(f["type"] == "board" for f in spectating[name].seen) > 2  # the moves' boards
        assert any(f["type"] == "standings" for f in watching[name].seen)
    await run(check_frames, dan_own.seen, kept, dan.player.pk)


# ------------------------------------------------------------------ the scans can fail


async def test_the_scans_find_a_seed_planted_in_a_page_or_a_frame(
    arena, arena_client, arena_socket, race_socket, run, monkeypatch, sent_frames, no_countdown
):
    """A running race's seed put in the standings' lobby counts, in the race socket's snapshot,
    or in the arena's name with a racer's game id beside it, is found where it shows (in
    hexadecimal too, but not inside a longer number); the racer whose game it is may see their
    own id."""
    ann, bob = await run(arena_client, "Ann"), await run(arena_client, "Bob")
    race = await run(placed, arena, ann, bob)
    kept = await run(kept_by, race)
    lobby, race_dict = standings.lobby, snapshots.race_dict
    monkeypatch.setattr(standings, "lobby", lambda arena: {**lobby(arena), "deal": race.seed})
    monkeypatch.setattr(snapshots, "race_dict", lambda race: {**race_dict(race), "s": race.seed})
    on_arena = await arena_socket(None, arena.public_id)
    on_race = await race_socket(None, race.code)
    await on_arena.expect("standings")
    await on_race.expect("snapshot")
    found = f"the seed of {race.code}"
    for socket in (on_arena, on_race):
        with pytest.raises(AssertionError, match=found):
            await run(check_frames, socket.seen, [kept], None)
    sent_frames.clear()  # the race_socket fixture's own scan at the end finds it too

    ann_game = next(game for game, pid in kept.games.items() if pid == ann.player.pk)
    await run(lambda: Arena.objects.filter(pk=arena.pk).update(name=f"Deal {race.seed} {ann_game}"))
    page = (await run(bob.get, f"/api/arenas/{arena.public_id}/")).content.decode()
    assert leaks(page, [kept], bob.player.pk) == [found, f"game {ann_game} of {race.code}"]
    assert leaks(page, [kept], ann.player.pk) == [found]
    html = (await run(bob.get, f"/arenas/{arena.public_id}/")).content.decode()
    with pytest.raises(AssertionError, match=found):
        check_page(html, [kept], bob.player.pk, "the arena's page")
    assert leaks(f"deal 0x{race.seed:X}", [kept]) == [found]
    assert leaks(f"deal {race.seed}7, {race.seed:x}f", [kept]) == []
