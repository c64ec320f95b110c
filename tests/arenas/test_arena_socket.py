"""/ws/arena/<id>/ (issue 27): the standings at once and after each change, a player placed by
the room's tick and sent to their race, presence, and the once-a-tick board."""

import asyncio
import json
import threading
import time
from datetime import timedelta

import pytest
from autobahn.exception import Disconnected
from django.db import OperationalError, connection
from django.test import Client
from django.utils import timezone

from arenas import actions, consumers, events, placement, rooms, standings
from arenas.models import ArenaPlayer
from games import identity, storage
from games.models import Player
from races import lifecycle
from races.models import Race
from tests.arenas.conftest import play_out

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_countdown", "fast_ticks"),
]


async def joined(run, make_client, arena, name):
    client = await run(make_client, name)
    await run(actions.do_join, arena, client.player)
    return client


async def test_a_spectator_gets_the_standings_with_no_own_row(
    arena, arena_socket, run, make_client
):
    ann = await joined(run, make_client, arena, "Ann")
    socket = await arena_socket(None, arena.public_id)
    frame = await socket.expect("standings")
    assert frame["you"] is None and frame["joined"] == 1
    assert [row["name"] for row in frame["rows"]] == ["Ann"]
    assert frame["rows"][0]["player"] == ann.player.pk and frame["rows"][0]["points"] == 0


async def own_row_saying(socket, paused: bool) -> dict:
    """The first `standings` frame whose own row says `paused`: a board the room's tick read
    just before the change may come first (each process sends a board at most once a second,
    and the change marks the room's next one due), but not for long."""
    async with asyncio.timeout(5):
        while True:
            frame = await socket.expect("standings")
            if frame["you"]["paused"] is paused:
                return frame


async def test_a_player_s_own_row_says_whether_they_sit_out(arena, arena_socket, run, make_client):
    """A race's page waiting for the next race stops waiting when its player sits out (paused
    in another tab): their own row says so in the room's next board, the board's rows do not."""
    ann = await joined(run, make_client, arena, "Ann")
    socket = await arena_socket(ann, arena.public_id)
    assert (await socket.expect("standings"))["you"]["paused"] is False
    await run(actions.do_pause, arena, ann.player, True)
    frame = await own_row_saying(socket, True)
    assert "paused" not in frame["rows"][0]
    await run(actions.do_pause, arena, ann.player, False)
    await own_row_saying(socket, False)


async def test_a_player_s_socket_reads_their_own_row_in_its_connect_s_trip(
    arena, arena_socket, run, make_client, monkeypatch
):
    """A player's arena socket (a crowd's, reopened after the Join button) is sent its board
    with the player's own row read with the arena, the player and the presence: no second trip
    off the loop for the row."""
    ann = await joined(run, make_client, arena, "Ann")
    trips = []
    own_texts = rooms.Room.own_texts
    monkeypatch.setattr(
        rooms.Room, "own_texts", lambda *a, **k: trips.append(a) or own_texts(*a, **k)
    )
    socket = await arena_socket(ann, arena.public_id)
    frame = await socket.expect("standings")
    assert frame["you"]["name"] == "Ann" and trips == []


async def test_an_unknown_arena_is_refused(arena_socket):
    """`not_found` at the connect, which refuses no frame (`ref` null)."""
    socket = await arena_socket(None, "no-such-arena")
    error = await socket.expect("error")
    assert (error["code"], error["ref"]) == ("not_found", None)


async def test_two_players_with_the_page_open_are_placed_and_sent_to_their_race(
    arena, arena_socket, run, make_client
):
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    ann_socket = await arena_socket(ann, arena.public_id)
    own = await ann_socket.expect("standings")
    assert own["you"]["player"] == ann.player.pk and own["you"]["rank"] in (1, 2)
    bob_socket = await arena_socket(bob, arena.public_id)
    placed = await ann_socket.expect("placed")  # the tick placed them: no click
    assert (await bob_socket.expect("placed"))["url"] == placed["url"]
    race = await run(Race.objects.get)
    assert placed["url"] == race.get_absolute_url()
    assert await run(lambda: set(race.racers.values_list("player", flat=True))) == {
        ann.player.pk,
        bob.player.pk,
    }


async def test_players_who_joined_before_the_start_are_sent_to_races_that_begin_with_it(
    make_arena, arena_socket, run, make_client
):
    """In the last seconds before the start (`placement.FIRST_RACES_AHEAD`) the room places the
    players whose page is open, in a race whose countdown ends at the start; earlier, nobody."""
    later = await run(make_arena, starts_in_s=600)
    soon = await run(make_arena, starts_in_s=placement.FIRST_RACES_AHEAD.total_seconds() - 2)
    sockets = {}
    for arena in (later, soon):
        for name in ("Ann", "Bob"):
            client = await joined(run, make_client, arena, f"{name} {arena.pk}")
            sockets[arena.pk, name] = await arena_socket(client, arena.public_id)
    placed = await asyncio.wait_for(sockets[soon.pk, "Ann"].expect("placed"), 5)
    assert (await sockets[soon.pk, "Bob"].expect("placed"))["url"] == placed["url"]
    race = await run(Race.objects.get)  # the only one: nobody in the later arena's
    assert placed["url"] == race.get_absolute_url()
    assert race.starts_at - soon.starts_at < timedelta(milliseconds=1)
    assert race.starts_at > timezone.now()  # its countdown runs until the start
    await asyncio.sleep(5 * rooms.TICK_S)  # the later arena's room has ticked meanwhile
    for name in ("Ann", "Bob"):
        socket = sockets[later.pk, name]
        while not await socket.receive_nothing(0.05):
            await socket.next()
        assert {frame["type"] for frame in socket.seen} == {"standings"}


async def test_a_player_alone_is_sent_to_a_race_in_its_countdown_whose_sockets_hear_them_join(
    arena, arena_socket, race_socket, run, make_client, monkeypatch
):
    """The lone player's page goes to the race as any placement's does; the racers already on
    the race's socket hear a `joined` in the countdown, and the newcomer's board comes at the
    start with everyone's, on the same deal: they play like the others."""
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 2000)
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    ann_arena = await arena_socket(ann, arena.public_id)
    await arena_socket(bob, arena.public_id)
    url = (await ann_arena.expect("placed"))["url"]
    race = await run(Race.objects.get)
    ann_race = await race_socket(ann, race.code)
    await ann_race.expect("snapshot")
    cat = await joined(run, make_client, arena, "Cat")
    cat_arena = await arena_socket(cat, arena.public_id)
    # Standings keep coming while the player waits: the wait itself is bounded.
    assert (await asyncio.wait_for(cat_arena.expect("placed"), 5))["url"] == url
    heard = await ann_race.expect("joined")
    assert heard["racer"]["name"] == "Cat" and heard["racer"]["status"] == "playing"
    cat_race = await race_socket(cat, race.code)
    snapshot = await cat_race.expect("snapshot")
    assert [r["name"] for r in snapshot["racers"]] == ["Ann", "Bob", "Cat"]
    board = await cat_race.board()
    assert board["seq"] == 0 and board["view"] == (await ann_race.board())["view"]  # one deal
    move = {"type": "move", "move": board["legal"][0], "seq": 0}
    await cat_race.request(move, "ack")


async def test_hostile_frames_get_errors_and_change_nothing(arena, arena_socket, run, make_client):
    ann = await joined(run, make_client, arena, "Ann")
    socket = await arena_socket(ann, arena.public_id)
    await socket.expect("standings")
    for text, code in [
        ("not json", "bad_json"),
        ("[1]", "bad_json"),
        ('{"type": 3}', "bad_message"),
        ('{"type": "join"}', "unknown_type"),
        ('{"type": "move", "move": "t0-f0", "seq": 0}', "unknown_type"),
        ("x" * 5000, "too_large"),
    ]:
        await socket.send_to(text_data=text)
        assert (await socket.expect("error"))["code"] == code
    await socket.send_to(bytes_data=b"\x00")
    assert (await socket.expect("error"))["code"] == "bad_message"
    await socket.send_json_to({"type": "sync"})
    assert (await socket.expect("standings"))["you"]["player"] == ann.player.pk
    assert not await run(Race.objects.exists)


async def test_a_flooding_socket_is_told_then_closed(arena, arena_socket):
    socket = await arena_socket(None, arena.public_id)
    await socket.expect("standings")
    for _ in range(200):
        await socket.send_json_to({"type": "ping"})
    assert (await socket.expect("error"))["code"] == "rate_limited"
    closed = await socket.receive_output(10)
    while closed["type"] != "websocket.close":
        closed = await socket.receive_output(10)
    assert closed["code"] == 4008


async def test_the_placed_message_reaches_the_page_without_the_record(
    arena, arena_socket, run, make_client, monkeypatch
):
    """The fast way: the process's channel hears `arena.placed` and the room hands it on."""
    monkeypatch.setattr(placement, "placed_since", lambda arena, players, since: {})
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    ann_socket = await arena_socket(ann, arena.public_id)
    bob_socket = await arena_socket(bob, arena.public_id)
    placed = await ann_socket.expect("placed")
    assert (await bob_socket.expect("placed"))["url"] == placed["url"]


async def test_a_placement_whose_message_is_lost_still_reaches_the_page(
    arena, arena_socket, run, make_client, monkeypatch
):
    """The channel layer may drop `arena.placed` (or a Redis restart forget the group): the
    room's tick reads each present player's new race from the record."""
    monkeypatch.setattr(events, "placed", lambda arena, races: None)
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    ann_socket = await arena_socket(ann, arena.public_id)
    bob_socket = await arena_socket(bob, arena.public_id)
    placed = await ann_socket.expect("placed")
    assert (await bob_socket.expect("placed"))["url"] == placed["url"]
    assert placed["url"] == (await run(Race.objects.get)).get_absolute_url()


async def test_a_page_reloaded_just_as_its_player_was_placed_is_still_sent_to_the_race(
    arena, arena_socket, run, make_client, monkeypatch
):
    """Placed, and the message went to the socket that was closing (the page reloading at the
    arena's start): the new socket gets the race from the record."""
    monkeypatch.setattr(events, "placed", lambda arena, races: None)
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    for player in (ann, bob):
        await run(actions.do_present, arena, player.player, True)
    [race] = await run(placement.place, arena.pk)
    socket = await arena_socket(ann, arena.public_id)  # opened after the placement
    assert (await socket.expect("placed"))["url"] == race.get_absolute_url()


async def test_a_closed_page_is_not_present(arena, arena_socket, run, make_client):
    ann = await joined(run, make_client, arena, "Ann")
    socket = await arena_socket(ann, arena.public_id)
    await socket.expect("standings")
    entry = await run(ArenaPlayer.objects.get)
    assert entry.sockets == 1
    await socket.disconnect()
    await run(entry.refresh_from_db)
    assert entry.sockets == 0


class PageClosed(asyncio.Queue):
    """Daphne's side of a socket whose page closed just after the handshake: until the
    connection is gone, every frame sent to it raises, as autobahn's websocket does."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = asyncio.Event()

    async def put(self, message: dict) -> None:
        if message["type"] == "websocket.send":
            self.refused.set()
            raise Disconnected("Attempt to send on a closed protocol")
        await super().put(message)


async def test_a_page_closed_before_its_first_board_is_not_present(
    arena, arena_socket, run, make_client
):
    """The page left as the socket opened (its player placed at once): the first board goes
    nowhere, and the close that follows still takes the player out of the present ones."""
    ann = await joined(run, make_client, arena, "Ann")
    server_side = PageClosed()
    socket = await arena_socket(ann, arena.public_id, server_side)
    await asyncio.wait_for(server_side.refused.wait(), 10)
    entry = await run(ArenaPlayer.objects.get)
    assert entry.sockets == 1
    await socket.disconnect()
    await run(entry.refresh_from_db)
    assert entry.sockets == 0
    room = rooms.ROOMS.get().rooms.get(arena.pk)
    assert room is None or not room.sockets


async def test_a_race_s_result_reaches_the_page_as_new_standings(
    arena, arena_socket, run, make_client, monkeypatch
):
    monkeypatch.setattr(rooms, "BOARD_AT_LEAST_S", 3600)  # only `arena.changed` brings it
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    spectator = await arena_socket(None, arena.public_id)
    await spectator.expect("standings")
    ann_socket = await arena_socket(ann, arena.public_id)
    await arena_socket(bob, arena.public_id)
    await ann_socket.expect("placed")
    race = await run(Race.objects.get)
    await run(play_out, race, [ann.player, bob.player])
    frame = await spectator.expect("standings")
    while not any(row["points"] for row in frame["rows"]):
        frame = await spectator.expect("standings")
    assert sorted(row["points"] for row in frame["rows"]) == [3, 4]


class FakeSocket:
    def __init__(self, player=None) -> None:
        self.player, self.present, self.sent = player, False, []

    async def send(self, text_data: str) -> None:
        self.sent.append(text_data)


async def test_a_race_page_waiting_for_its_next_race_gets_its_own_row_every_few_seconds(arena, run):
    """The arena's page gets every board (at most one a second); a race's page waiting for its
    next race shows only its own row, and gets it again once `WAITING_BOARD_EVERY_S` passed."""
    ann = await run(Player.objects.create, nickname="Ann")
    await run(actions.do_join, arena, ann)
    room = rooms.Room(rooms.Rooms(), arena)
    page, waiting = FakeSocket(ann), FakeSocket(ann)
    page.present = waiting.present = True  # Ann's pages, and she is in the arena
    waiting.rows, waiting.board_sent_at = False, time.monotonic()  # its `wait` was answered
    room.sockets.update({page, waiting})
    await room.board_tick()
    assert len(page.sent) == 1 and waiting.sent == []
    waiting.board_sent_at -= rooms.WAITING_BOARD_EVERY_S
    room.board_sent_at -= rooms.BOARD_EVERY_S  # a second later, the board changed again
    room.dirty = True
    await room.board_tick()
    assert len(page.sent) == 2 and len(waiting.sent) == 1
    frame = json.loads(waiting.sent[0])
    assert "rows" not in frame and frame["you"]["name"] == "Ann"


async def test_a_crowd_s_board_leaves_the_loop_to_other_work_between_its_sends(arena, run):
    """A board to hundreds of pages is sent `BOARD_SENDS_A_TURN` sockets at a time, the event
    loop's other work (a move's frame) run between two of them, not held until the last."""
    ann = await run(Player.objects.create, nickname="Ann")
    await run(actions.do_join, arena, ann)
    room = rooms.Room(rooms.Rooms(), arena)
    pages = [FakeSocket() for _ in range(3 * rooms.BOARD_SENDS_A_TURN)]
    sent_before_the_move = []

    async def first_send(text_data: str) -> None:  # a move's frame comes in meanwhile
        pages[0].sent.append(text_data)
        asyncio.get_running_loop().call_soon(
            lambda: sent_before_the_move.append(sum(len(p.sent) for p in pages))
        )

    pages[0].send = first_send
    await room.send_board(pages)
    assert all(len(page.sent) == 1 for page in pages)
    assert sent_before_the_move == [rooms.BOARD_SENDS_A_TURN]


async def test_many_changes_within_a_tick_send_one_board(arena, monkeypatch):
    monkeypatch.setattr(rooms, "BOARD_EVERY_S", 60)  # the two ticks within it, however slow
    room = rooms.Room(rooms.Rooms(), arena)
    socket = FakeSocket()
    room.sockets.add(socket)
    for _ in range(20):
        room.dirty = True  # as twenty `arena.changed` messages would
    await room.board_tick()
    room.dirty = True  # a change within the second: it waits for the next board
    await room.board_tick()
    assert len(socket.sent) == 1


async def test_a_spectator_s_socket_and_a_room_of_spectators_read_no_own_row(
    arena, arena_socket, run, monkeypatch
):
    """A crowd's join opens its sockets as spectators first (the page is loaded before the Join
    button is pressed): they are sent the board, and no own row is looked for, on the way in or
    in the room's boards (before the first join, looking counted the arena from the record)."""
    looked = []
    own_rows = standings.own_rows
    monkeypatch.setattr(standings, "own_rows", lambda *a: looked.append(a) or own_rows(*a))
    socket = await arena_socket(None, arena.public_id)
    assert (await socket.expect("standings"))["you"] is None
    room = rooms.Room(rooms.Rooms(), arena)
    spectator = FakeSocket()
    room.sockets.add(spectator)
    await room.send_board([spectator])
    assert json.loads(spectator.sent[0])["you"] is None
    assert looked == []
    ann = await run(Player.objects.create, nickname="Ann")
    await run(actions.do_join, arena, ann)
    _, own = await room.texts([ann.pk])
    assert looked == [(arena, [ann.pk])] and json.loads(own[ann.pk])["name"] == "Ann"


async def test_sockets_opening_within_a_second_share_one_read_of_the_board(arena, run, monkeypatch):
    ann = await run(Player.objects.create, nickname="Ann")
    await run(actions.do_join, arena, ann)
    reads = []
    read = standings.board_frame
    monkeypatch.setattr(standings, "board_frame", lambda *a: reads.append(a) or read(*a))
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 60)  # "within a second", however slow
    room = rooms.Room(rooms.Rooms(), arena)
    await asyncio.gather(*(room.texts([]) for _ in range(5)))  # a crowd opening at once
    bob = await run(Player.objects.create, nickname="Bob")
    await run(actions.do_join, arena, bob)  # joined after the read: on the next board
    shared, own = await room.texts([bob.pk])
    assert len(reads) == 1
    assert [row["name"] for row in json.loads(shared)["rows"]] == ["Ann"]
    assert json.loads(own[bob.pk])["name"] == "Bob"  # their own row is read for them
    monkeypatch.setattr(standings, "BOARD_FRESH_S", 0)  # a second later
    shared, _ = await room.texts([])
    assert len(reads) == 2 and json.loads(shared)["joined"] == 2


async def test_a_room_says_its_present_players_are_still_there(make_arena, run, monkeypatch):
    arena = await run(make_arena, 600)  # coming: nobody is placed, only seen
    player = await run(Player.objects.create, nickname="Ann")
    await run(actions.do_join, arena, player)
    await run(ArenaPlayer.objects.filter(player=player).update, seen_at=None)
    monkeypatch.setattr(rooms, "PRESENCE_EVERY_S", 0)
    room = rooms.Room(rooms.Rooms(), arena)
    socket = FakeSocket(player)
    socket.present = True
    room.sockets.add(socket)
    await room.tick()
    assert (await run(ArenaPlayer.objects.get, player=player)).seen_at is not None


class PageSocket(FakeSocket):
    """An arena page's socket as the room's placements see it."""

    def __init__(self, player) -> None:
        super().__init__(player)
        self.present, self.opened_at, self.placed = True, timezone.now(), []

    async def send_placed(self, url: str) -> None:
        self.placed.append(url)


async def test_a_room_places_its_players_while_the_sockets_threads_are_all_taken(
    arena, run, settings
):
    """At a wave's crest the sockets' ORM threads are all taken (connects, resignations,
    closes): the room's tick (placement, presence) and its board run on threads of their own."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite runs the ORM on one thread: the tick's own thread is PostgreSQL's")
    settings.ARENA_GATHER_S = 0
    room = rooms.Room(rooms.Rooms(), arena)
    for name in ("Ann", "Bob"):
        player = await run(Player.objects.create, nickname=name)
        await run(actions.do_join, arena, player)
        await run(actions.do_present, arena, player, True)
        room.sockets.add(PageSocket(player))
    release = threading.Event()
    taken = [
        storage.ORM_THREADS.submit(release.wait) for _ in range(storage.ORM_THREADS._max_workers)
    ]
    try:
        await asyncio.wait_for(room.tick(), 10)
        await asyncio.wait_for(room.board_tick(), 10)
    finally:
        release.set()
        for job in taken:
            job.result()
    urls = {url for socket in room.sockets for url in socket.placed}
    assert len(urls) == 1 and all(socket.placed for socket in room.sockets)
    assert all(len(socket.sent) == 1 for socket in room.sockets)  # the board too


async def test_a_room_places_its_players_while_its_board_is_being_read(
    arena, run, settings, monkeypatch
):
    """A crowd's board, read and sent to hundreds of sockets, takes a second and more at a
    wave's crest: the players who come back meanwhile are placed by the next tick, not after
    the board."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite runs the ORM on one thread: the rooms' own threads are PostgreSQL's")
    settings.ARENA_GATHER_S = 0
    read, reading, release = standings.read_board, threading.Event(), threading.Event()

    def held_read(arena):
        reading.set()
        release.wait(30)
        return read(arena)

    monkeypatch.setattr(standings, "read_board", held_read)
    room = rooms.Room(rooms.Rooms(), arena)
    room.sockets.add(FakeSocket())  # a spectator: the first board is due at once
    running = asyncio.get_running_loop().create_task(room.run())
    try:
        assert await asyncio.to_thread(reading.wait, 10)  # read, and held
        back = []
        for name in ("Ann", "Bob"):  # back from a race, on the arena's page
            player = await run(Player.objects.create, nickname=name)
            await run(actions.do_join, arena, player)
            await run(actions.do_present, arena, player, True)
            back.append(PageSocket(player))
        room.sockets.update(back)
        for _ in range(100):
            if all(socket.placed for socket in back):
                break
            await asyncio.sleep(0.05)
        assert [bool(socket.placed) for socket in back] == [True, True]
        assert not any(socket.sent for socket in room.sockets)  # the board: still being read
    finally:
        release.set()
        room.sockets.clear()
        await asyncio.wait_for(running, 10)


# ------------------------------------------------------------------ one socket across a button


async def press_join(run, client, arena) -> dict:
    """The Join button as the page's script sends it: the JSON answer."""
    response = await run(
        client.post, f"/arenas/{arena.public_id}/join/", HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 200
    return response.json()


async def made_theirs(socket, ticket: str, player_id: int) -> dict:
    """Send the ticket; the first `standings` frame whose own row is the player's (a board the
    room sent for the join's change may come before the answer)."""
    await socket.send_json_to({"type": "player", "ticket": ticket})
    async with asyncio.timeout(5):
        while True:
            frame = await socket.expect("standings")
            if frame["you"] is not None and frame["you"]["player"] == player_id:
                return frame


async def presence(run, arena, player_id: int) -> int | None:
    """The player's open arena sockets by the record (None: not in the arena)."""
    entry = await run(lambda: ArenaPlayer.objects.filter(arena=arena, player_id=player_id).first())
    return None if entry is None else entry.sockets


async def test_a_visitor_who_joins_keeps_the_page_s_socket_which_becomes_theirs(
    arena, arena_socket, run, make_client
):
    """A visitor watches, presses Join (which makes them a guest) and sends the answer's ticket
    over the socket already open: it is theirs from then on, present, with their own row, and
    they are placed over it as soon as another player is free; no second socket is opened."""
    visitor = Client()
    socket = await arena_socket(None, arena.public_id)
    assert (await socket.expect("standings"))["you"] is None
    answer = await press_join(run, visitor, arena)
    guest = answer["player"]
    assert guest is not None and await presence(run, arena, guest) == 0
    frame = await made_theirs(socket, answer["ticket"], guest)
    assert frame["you"]["name"] == answer["who"]["name"]
    assert await presence(run, arena, guest) == 1
    bob = await joined(run, make_client, arena, "Bob")
    bob_socket = await arena_socket(bob, arena.public_id)
    placed = await socket.expect("placed")
    assert (await bob_socket.expect("placed"))["url"] == placed["url"]
    await socket.disconnect()
    assert await presence(run, arena, guest) == 0  # the close says the page is gone


async def test_a_player_who_joins_from_their_open_page_is_present_at_once(
    arena, arena_socket, run, make_client
):
    """A guest with a session who opened the page before joining: their socket was a watcher's
    (not in the arena); the ticket makes it present."""
    ann = await run(make_client, "Ann")
    socket = await arena_socket(ann, arena.public_id)
    assert (await socket.expect("standings"))["you"] is None
    answer = await press_join(run, ann, arena)
    assert answer["player"] == ann.player.pk
    await made_theirs(socket, answer["ticket"], ann.player.pk)
    assert await presence(run, arena, ann.player.pk) == 1


async def test_a_ticket_of_a_socket_already_the_player_s_and_present_changes_nothing(
    arena, arena_socket, run, make_client, monkeypatch
):
    """Pause, resume and leave answer with a ticket too: on the player's own present socket it
    only brings the board again, with nothing written (their presence counted once)."""
    ann = await joined(run, make_client, arena, "Ann")
    socket = await arena_socket(ann, arena.public_id)
    await socket.expect("standings")
    response = await run(
        ann.post,
        f"/arenas/{arena.public_id}/pause/",
        {"paused": "1"},
        HTTP_ACCEPT="application/json",
    )
    written = []
    monkeypatch.setattr(actions, "do_present", lambda *a: written.append(a))
    await socket.send_json_to({"type": "player", "ticket": response.json()["ticket"]})
    frame = await own_row_saying(socket, True)
    assert frame["you"]["player"] == ann.player.pk and written == []
    assert await presence(run, arena, ann.player.pk) == 1


async def test_a_ticket_for_another_player_moves_the_socket_s_presence_to_them(
    arena, arena_socket, run, make_client
):
    """A tab whose session changed player (a login in another tab) and pressed a button there:
    the socket is the new player's, and no longer counts for the one before."""
    ann = await joined(run, make_client, arena, "Ann")
    bob = await joined(run, make_client, arena, "Bob")
    socket = await arena_socket(ann, arena.public_id)
    await socket.expect("standings")
    answer = await press_join(run, bob, arena)
    await made_theirs(socket, answer["ticket"], bob.player.pk)
    assert await presence(run, arena, ann.player.pk) == 0
    assert await presence(run, arena, bob.player.pk) == 1


@pytest.mark.parametrize("which", ["forged", "another arena's", "expired", "not a word"])
async def test_a_bad_ticket_is_refused_and_changes_nothing(
    which, arena, make_arena, arena_socket, run, make_client, monkeypatch
):
    ann = await run(make_client, "Ann")
    socket = await arena_socket(None, arena.public_id)
    await socket.expect("standings")
    other = await run(make_arena)
    answer = await press_join(run, ann, other if which == "another arena's" else arena)
    ticket = answer["ticket"]
    if which == "forged":
        ticket = f"{ticket[:-3]}{'abc' if ticket[-3:] != 'abc' else 'xyz'}"
    elif which == "expired":
        monkeypatch.setattr(identity, "TICKET_MAX_AGE_S", -1)
    elif which == "not a word":
        ticket = 42
    error = await socket.request({"type": "player", "ticket": ticket}, "error")
    code = "bad_message" if which == "not a word" else "bad_ticket"
    assert (error["code"], error["ref"]) == (code, "player")
    assert await presence(run, arena, ann.player.pk) in (None, 0)
    await socket.send_json_to({"type": "sync"})
    assert (await socket.expect("standings"))["you"] is None  # still a watcher's socket


@pytest.mark.parametrize(
    ("failure", "code"),
    [(OperationalError("the database is away"), "unavailable"), (RuntimeError, "server_error")],
    ids=["database away", "a bug"],
)
async def test_a_frame_the_server_could_not_answer_is_named_in_its_refusal(
    failure, code, arena, arena_socket, run, make_client, monkeypatch
):
    """As on the race and game sockets, an error names the frame it refuses (`ref`, its `type`):
    a `player` or a `sync` met by a database away (`unavailable`) or by a bug (`server_error`)."""
    ann = await run(make_client, "Ann")
    socket = await arena_socket(None, arena.public_id)
    await socket.expect("standings")
    answer = await press_join(run, ann, arena)

    def fail(*args, **kwargs):
        raise failure

    async def fail_on_the_loop(*args, **kwargs):
        fail()

    monkeypatch.setattr(consumers, "connect_as", fail)
    monkeypatch.setattr(rooms.Watch, "send_own_board", fail_on_the_loop)
    for frame in ({"type": "player", "ticket": answer["ticket"]}, {"type": "sync"}):
        error = await socket.request(frame, "error")
        assert (error["code"], error["ref"]) == (code, frame["type"])
