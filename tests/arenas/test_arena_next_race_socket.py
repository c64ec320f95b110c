"""A racer done in an arena's race waits for their next race on the race's own socket (`wait`,
docs/protocol.md): the socket joins the arena's room as the arena's page does, gets the board
with the racer's own row, makes them present while it is open, and brings `placed`, after which the
socket is the next race's: a browser races an arena's races one after another on one socket."""

import asyncio

import pytest

from arenas import actions
from arenas.models import ArenaPlayer
from races import actions as race_actions
from races import events as race_events
from races.events import emit
from races.models import Race
from tests.arenas.conftest import play_out

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("no_countdown", "fast_ticks"),
]


async def placed_together(run, make_client, arena_socket, arena, names):
    """Players who joined the arena, placed in one race from its page (their arena sockets then
    closed, as the page leaves); each client, and the race."""
    clients = []
    for name in names:
        client = await run(make_client, name)
        await run(actions.do_join, arena, client.player)
        clients.append(client)
    sockets = [await arena_socket(client, arena.public_id) for client in clients]
    urls = {(await socket.expect("placed"))["url"] for socket in sockets}
    for socket in sockets:
        await socket.disconnect()
    [race] = await run(lambda: list(Race.objects.all()))
    assert urls == {race.get_absolute_url()}
    return clients, race


async def sockets_open(run, arena, client) -> int:
    return await run(lambda: ArenaPlayer.objects.get(arena=arena, player=client.player).sockets)


async def test_racers_done_wait_on_the_race_socket_and_race_the_next_race_on_it(
    arena, arena_socket, race_socket, run, make_client
):
    (ann, bob), race = await placed_together(run, make_client, arena_socket, arena, ["Ann", "Bob"])
    ann_race, bob_race = await race_socket(ann, race.code), await race_socket(bob, race.code)
    for socket in (ann_race, bob_race):
        await socket.expect("snapshot")
    await run(play_out, race)
    for client, socket in ((ann, ann_race), (bob, bob_race)):
        await socket.expect("arena")  # the race's last event: back to the arena
        await socket.send_json_to({"type": "wait"})
        board = await socket.expect("standings")
        assert board["you"]["player"] == client.player.pk and board["you"]["races"] == 1
        assert board["count"] == 2 and "rows" not in board  # the page shows its own row alone
    # Both present again on their race's socket: the room places them in a new race, and the
    # socket goes on to it: the new race's snapshot, then its board, as a socket opened on it.
    ann_next = (await asyncio.wait_for(ann_race.expect("placed"), 5))["url"]
    assert (await asyncio.wait_for(bob_race.expect("placed"), 5))["url"] == ann_next
    new = await run(lambda: Race.objects.exclude(pk=race.pk).get())
    assert ann_next == new.get_absolute_url()
    for client, socket in ((ann, ann_race), (bob, bob_race)):
        snapshot = await socket.expect("snapshot")
        assert snapshot["race"]["code"] == new.code and snapshot["you"]["racer"] is not None
        assert await sockets_open(run, arena, client) == 0  # racing: no longer waiting
    board = await ann_race.board()
    ack = await ann_race.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    assert ack["seq"] == 1
    await bob_race.expect("progress")  # Ann's move, on Bob's socket: the new race's events
    await run(emit, race, "rematch", code="XXXXXX", url="/race/XXXXXX/")  # the race before's
    for socket in (ann_race, bob_race):
        while not await socket.receive_nothing(0.3):
            assert (await socket.next())["type"] != "rematch"


async def test_a_socket_placed_before_it_heard_its_race_end_is_sent_the_end_first(
    arena, arena_socket, race_socket, run, make_client, monkeypatch
):
    """The race's close and the placement that follows it travel apart: a socket that waits and
    is placed before the close's event came (or the channel layer lost it) reads the end from
    the record, and sends it before `placed`: the page sees its race's result."""
    (ann, bob), race = await placed_together(run, make_client, arena_socket, arena, ["Ann", "Bob"])
    socket = await race_socket(ann, race.code)
    await socket.expect("snapshot")
    await socket.send_json_to({"type": "resign"})
    await socket.expect("progress")
    await socket.send_json_to({"type": "wait"})
    await socket.expect("standings")
    lost = []
    broadcast = race_events.broadcast

    def losing_the_end(group, message):
        if any(frame["type"] == "finished" for frame in message.get("frames", ())):
            lost.append(message)
        else:
            broadcast(group, message)

    monkeypatch.setattr(race_events, "broadcast", losing_the_end)
    await run(race_actions.do_resign, race, bob.player)  # the last racer: the race closes
    bob_socket = await arena_socket(bob, arena.public_id)  # Bob's page: both present
    await asyncio.wait_for(bob_socket.expect("placed"), 5)
    assert lost  # the close's events never came through the channel layer
    finished = await socket.expect("finished")
    placed = await socket.expect("placed")
    assert socket.seen.index(finished) < socket.seen.index(placed)
    snapshot = await socket.expect("snapshot")
    assert snapshot["race"]["code"] != race.code


async def test_a_wait_asked_twice_counts_once_and_ends_with_its_socket(
    arena, arena_socket, race_socket, run, make_client
):
    (ann, _), race = await placed_together(run, make_client, arena_socket, arena, ["Ann", "Bob"])
    socket = await race_socket(ann, race.code)
    await socket.expect("snapshot")
    await socket.send_json_to({"type": "resign"})
    await socket.expect("progress")  # the resignation, numbered
    for _ in range(2):  # a page that lost the answer asks again
        await socket.send_json_to({"type": "wait"})
    await socket.expect("standings")
    assert await sockets_open(run, arena, ann) == 1
    await socket.disconnect()
    assert await sockets_open(run, arena, ann) == 0
    again = await race_socket(ann, race.code)  # the page's socket came back: it asks again
    await again.expect("snapshot")
    await again.send_json_to({"type": "wait"})
    await again.expect("standings")
    assert await sockets_open(run, arena, ann) == 1


async def test_a_racer_still_racing_a_spectator_and_a_race_of_no_arena_are_refused(
    arena, arena_socket, race_socket, run, make_client, make_race
):
    (ann, bob), race = await placed_together(run, make_client, arena_socket, arena, ["Ann", "Bob"])
    cat = await run(make_client, "Cat")
    await run(actions.do_join, arena, cat.player)  # in the arena, but not in this race
    for client, code in ((ann, "still_racing"), (cat, "not_in_race"), (None, "not_in_race")):
        socket = await race_socket(client, race.code)
        await socket.expect("snapshot")
        error = await socket.error({"type": "wait"})
        assert (error["code"], error["ref"]) == (code, "wait")
        await socket.quiet()  # no board: the socket is in no arena's room
    for client in (ann, bob, cat):
        assert await sockets_open(run, arena, client) == 0  # nobody made present
    dan = await run(make_client, "Dan")
    other = await run(make_race, dan)
    socket = await race_socket(dan, other.code)
    await socket.expect("snapshot")
    assert (await socket.error({"type": "wait"}))["code"] == "no_next_race"


async def test_a_page_that_came_back_from_its_race_is_not_sent_there_but_is_placed_after_it(
    arena, arena_socket, race_socket, run, make_client
):
    """The back button from a racer's race to the race before reloads that race's page, whose
    wait would be sent straight back (a page opened just after its player's placement is sent
    to that race, arenas.rooms.PLACED_GRACE). The page names the race it came back from
    (`shown`): it stays, and is sent the racer's next placement after that race."""
    (ann, bob), first = await placed_together(run, make_client, arena_socket, arena, ["Ann", "Bob"])
    sockets = [await race_socket(client, first.code) for client in (ann, bob)]
    for socket in sockets:
        await socket.expect("snapshot")
    await run(play_out, first)
    for socket in sockets:
        await socket.expect("arena")
        await socket.send_json_to({"type": "wait"})
    second = (await asyncio.wait_for(sockets[0].expect("placed"), 5))["url"]
    assert (await asyncio.wait_for(sockets[1].expect("placed"), 5))["url"] == second
    code = second.strip("/").rsplit("/", 1)[1]

    back = await race_socket(ann, first.code)  # Ann's back button: the first race's page
    await back.expect("snapshot")
    refused = await back.error({"type": "wait", "shown": "not a code"})
    assert (refused["code"], refused["ref"]) == ("bad_message", "wait")
    await back.send_json_to({"type": "wait", "shown": code.lower()})  # typed, not canonical
    await back.expect("standings")
    reloaded = await race_socket(ann, first.code)  # a reload just as she was placed: sent on
    await reloaded.expect("snapshot")
    await reloaded.send_json_to({"type": "wait"})
    assert (await asyncio.wait_for(reloaded.expect("placed"), 5))["url"] == second
    # The room's next tick, which sent the reloaded page on, has passed the one that came back.
    await reloaded.expect("snapshot")
    while not await back.receive_nothing(0.3):
        assert (await back.next())["type"] == "standings"

    # The second race ends: the page that came back is placed in the third, and goes on to it.
    [second_race] = await run(lambda: list(Race.objects.filter(code=code)))
    await run(play_out, second_race)
    await sockets[1].expect("arena")
    await sockets[1].send_json_to({"type": "wait"})
    third = (await asyncio.wait_for(back.expect("placed"), 5))["url"]
    assert third not in (first.get_absolute_url(), second)
    assert (await back.expect("snapshot"))["race"]["code"] == third.strip("/").rsplit("/", 1)[1]
