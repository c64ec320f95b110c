"""Oversized and binary frames, floods, and players who are not in the race, on /ws/race/ and
/ws/game/: a clear refusal (or a closed socket for a flood), nothing changes, and other
sockets on the same race go on as before."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from hostile_harness import game_fingerprint, race_fingerprint

from games.actions import do_create_game
from games.sockets import FrameBudget
from races.models import Racer

pytestmark = pytest.mark.django_db(transaction=True)

ONE_MB = 1024 * 1024
budget = FrameBudget()


@pytest.fixture
async def racing(running_race, race_socket):
    """Ann's and Bob's race sockets on the running race, past what they get on connect."""
    ann = await race_socket(running_race.ann, running_race.race.code)
    bob = await race_socket(running_race.bob, running_race.race.code)
    ann_board = await ann.expect("state")
    await bob.expect("state")
    return running_race, ann, bob, ann_board


async def fingerprint(race):
    return await database_sync_to_async(race_fingerprint)(race)


@pytest.mark.parametrize(
    "frame, code",
    [
        (
            {"text": json.dumps({"type": "move", "move": "t0-f0", "seq": 0, "pad": "x" * ONE_MB})},
            "too_large",
        ),
        ({"text": "[" * ONE_MB}, "too_large"),
        ({"bytes": b"\x00" * ONE_MB}, "bad_message"),
        ({"bytes": json.dumps({"type": "ping"}).encode()}, "bad_message"),
    ],
    ids=["1MB-json", "1MB-junk", "1MB-binary", "binary-json"],
)
async def test_huge_and_binary_frames_are_refused_on_the_race_socket(racing, frame, code):
    """A 1 MB frame is `too_large`, a binary frame `bad_message`; the race is unchanged and the
    socket stays open."""
    running, ann, bob, _ = racing
    before = await fingerprint(running.race)
    await ann.send_input({"type": "websocket.receive", **frame})
    error = await ann.expect("error")
    assert error["code"] == code and error["reason"]
    assert (await ann.request({"type": "ping"}, "pong"))["type"] == "pong"
    assert await fingerprint(running.race) == before


@pytest.mark.parametrize(
    "frame, code",
    [
        ({"text": json.dumps({"type": "open", "game": "x", "pad": "y" * ONE_MB})}, "too_large"),
        ({"bytes": b"\xff" * ONE_MB}, "bad_message"),
    ],
    ids=["1MB-json", "1MB-binary"],
)
async def test_huge_and_binary_frames_are_refused_on_the_game_socket(
    connect, make_client, frame, code
):
    """The practice socket refuses the same way and keeps the game as it was."""
    ann = await database_sync_to_async(make_client)("Ann")
    game = await database_sync_to_async(do_create_game)(ann.player, "queenie", 5)
    before = await database_sync_to_async(game_fingerprint)(game)
    ws = await connect(ann)
    await ws.send_frame({"type": "open", "game": game.public_id})
    await ws.send_input({"type": "websocket.receive", **frame})
    error = await ws.receive_json_from()
    assert (error["type"], error["code"]) == ("error", code)
    assert (await ws.send_frame({"type": "ping"}))["type"] == "pong"
    assert await database_sync_to_async(game_fingerprint)(game) == before


async def test_frames_past_the_budget_are_refused_on_the_race_socket(racing):
    """Past the per-connection budget each frame is `rate_limited`, even a legal move, which is
    not played; the socket stays open."""
    running, ann, bob, board = racing
    before = await fingerprint(running.race)
    for i in range(budget.limit):
        await ann.request({"type": "ping", "t": i}, "pong", t=i)
    move = {"type": "move", "move": board["legal"][0], "seq": 0}
    error = await ann.request(move, "error")
    assert error["code"] == "rate_limited"
    assert await fingerprint(running.race) == before
    assert not [f for f in bob.seen if f["type"] == "progress"]


async def test_a_flood_closes_the_race_socket_and_spares_the_others(racing):
    """Past the flood line the socket is closed (4008); the race is unchanged and the other
    racer's socket plays on."""
    running, ann, bob, _ = racing
    before = await fingerprint(running.race)
    for _ in range(budget.flood + 1):
        await ann.send_to(text_data='{"type":"ping"}')
    output = None
    for _ in range(budget.flood + 10):
        output = await ann.receive_output(timeout=3)
        if output["type"] == "websocket.close":
            break
    assert output == {"type": "websocket.close", "code": 4008}
    assert await fingerprint(running.race) == before
    bob_board = [f for f in bob.seen if f["type"] == "state"][-1]
    ack = await bob.request({"type": "move", "move": bob_board["legal"][0], "seq": 0}, "ack")
    assert ack["seq"] == 1


@pytest.mark.parametrize("who", ["spectator", "anonymous"])
async def test_someone_not_racing_cannot_play_in_the_race(
    running_race, race_socket, make_client, run, who
):
    """A player who is not in the race, or a socket without a session, cannot move, undo,
    resign, start or ready in it: `not_in_race` (or the phase's refusal), nothing changes."""
    race = running_race.race
    client = await run(make_client, "Eve") if who == "spectator" else None
    socket = await race_socket(client, race.code)
    await socket.expect("snapshot")
    before = await fingerprint(race)
    racer = await run(
        lambda: Racer.objects.select_related("game").get(race=race, player=running_race.ann.player)
    )
    for frame in (
        {"type": "move", "move": "t0-f0", "seq": 0},
        {"type": "undo", "seq": 0},
        {"type": "resign"},
        {"type": "start"},
        {"type": "ready", "ready": True},
        {"type": "leave"},
        {"type": "join"},
        {
            "type": "move",
            "move": "t0-f0",
            "seq": 0,
            "racer": racer.public_id,
            "game": racer.game.public_id,
        },
    ):
        error = await socket.error(frame)
        assert error["code"] in {"not_in_race", "not_host", "race_started"}, (frame, error)
    assert await fingerprint(race) == before
