"""Results are timed on the server's clock: times, places and counts a client puts in a frame
are ignored, in races and in practice."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from hostile_harness import Session, start_running_race

from games.actions import do_create_game
from games.models import Game
from races.models import Racer

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("generous_budget"),
]

CLAIMS = {
    "elapsed_ms": 1,
    "finish_ms": 1,
    "done_ms": 1,
    "cards_at_ms": 1,
    "at": 0,
    "at_ms": 0,
    "now": 0,
    "finished_at": "2000-01-01T00:00:00Z",
    "started_at": "2000-01-01T00:00:00Z",
    "cards": 52,
    "place": 1,
    "status": "won",
}
"""What a cheating client might claim alongside a move."""

STARTED_AGO_S = 1.0


def racer_row(race, player) -> Racer:
    return Racer.objects.get(race=race, player=player)


async def test_a_race_win_is_timed_by_the_server(make_client, make_race, near_win_for):
    """Ann wins with a frame claiming a 1 ms finish: the server records the time since the start
    on its own clock (at least the second the race has run), in the ack, the progress event and
    the racer's row."""

    def setup():
        ann, bob = make_client("Ann"), make_client("Bob")
        near_win_for(ann.player)
        return ann, start_running_race(lambda name: {"Ann": ann, "Bob": bob}[name], make_race)

    ann, running = await database_sync_to_async(setup)()
    session = Session(f"/ws/race/{running.race.code}/", running.ann)
    assert await session.open()
    board = await session.until("state")
    assert "t0-f3" in board["legal"]
    frame = {"type": "move", "move": "t0-f3", "seq": board["seq"], **CLAIMS}
    replies = await session.answers("text", json.dumps(frame))
    ack = next(r for r in replies if r["type"] == "ack")
    progress = await session.until("progress")
    await session.close()
    assert ack["status"] == "won" and ack["elapsed_ms"] >= STARTED_AGO_S * 1000
    row = await database_sync_to_async(racer_row)(running.race, ann.player)
    assert row.status == "won"
    assert row.finish_ms >= STARTED_AGO_S * 1000 and row.done_ms == row.finish_ms
    assert progress["racers"][0]["finish_ms"] == row.finish_ms
    assert progress["at_ms"] >= STARTED_AGO_S * 1000


async def test_a_resignation_is_timed_by_the_server(running_race):
    """A resign frame claiming `done_ms: 1` is timed from the start by the server; cards and
    moves are the game's, not the frame's."""
    session = Session(f"/ws/race/{running_race.race.code}/", running_race.ann)
    assert await session.open()
    await session.until("state")
    await session.answers("text", json.dumps({"type": "resign", **CLAIMS}))
    await session.close()
    row = await database_sync_to_async(racer_row)(running_race.race, running_race.ann.player)
    assert row.status == "resigned"
    assert row.done_ms >= STARTED_AGO_S * 1000
    assert row.moves == 0 and row.place is None and row.finish_ms is None


async def test_a_practice_win_is_timed_by_the_server(make_client):
    """A winning practice move claiming another finish time: `finished_at` is the server's now
    and `elapsed_ms` runs from the server's start."""
    from tests.race_support import near_won_penelopes_web

    def setup():
        ann = make_client("Ann")
        game = do_create_game(ann.player, "penelopes-web", 0, start_state=near_won_penelopes_web())
        Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(seconds=5))
        return ann, game

    ann, game = await database_sync_to_async(setup)()
    session = Session("/ws/game/", ann)
    assert await session.open()
    await session.answers("text", json.dumps({"type": "open", "game": game.public_id}))
    before = timezone.now()
    frame = {"type": "move", "move": "t0-f3", "seq": 0, **CLAIMS}
    replies = await session.answers("text", json.dumps(frame))
    await session.close()
    ack = next(r for r in replies if r["type"] == "ack")
    game = await database_sync_to_async(Game.objects.get)(pk=game.pk)
    assert game.status == "won" and ack["status"] == "won"
    assert before <= game.finished_at <= timezone.now()
    assert ack["elapsed_ms"] >= 5000
