"""Nobody moves in, undoes in, or reads the hidden state of a game that is not theirs: not over
either socket, not by naming the game, not through the pages."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from hostile_harness import (
    Session,
    check_refusal,
    game_fingerprint,
    race_fingerprint,
    start_running_race,
)

from games.actions import do_create_game, get_game_update
from games.models import Game
from races.models import Racer

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("generous_budget"),
]


@pytest.fixture
def two_players(make_client):
    """Ann with a practice game of Spiderweb (face-down cards) and Mallory with her own."""
    ann, mallory = make_client("Ann"), make_client("Mallory")
    ann.game = do_create_game(ann.player, "spiderweb", 5)
    mallory.game = do_create_game(mallory.player, "spiderweb", 6)
    return ann, mallory


async def test_practice_games_of_others_cannot_be_opened_played_or_undone(two_players):
    """Mallory naming Ann's game in open, move, undo or autoplay gets `forbidden` (or `no_game`),
    never a view of it, and Ann's game is unchanged."""
    ann, mallory = two_players
    before = await database_sync_to_async(game_fingerprint)(ann.game)
    legal = (await database_sync_to_async(get_game_update)(ann.game)).legal
    session = Session("/ws/game/", mallory)
    assert await session.open()
    await session.answers("text", json.dumps({"type": "open", "game": mallory.game.public_id}))
    target = ann.game.public_id
    for frame in (
        {"type": "open", "game": target},
        {"type": "move", "move": legal[0], "seq": 0, "game": target},
        {"type": "undo", "seq": 0, "game": target},
        {"type": "autoplay", "seq": 0, "game": target},
    ):
        replies = await session.answers("text", json.dumps(frame))
        assert len(replies) == 1, replies
        check_refusal(replies[0])
        assert replies[0]["code"] in ("forbidden", "no_game"), replies
    await session.close()
    assert not any(target in text and '"view"' in text for text in session.log)
    assert await database_sync_to_async(game_fingerprint)(ann.game) == before


async def test_a_practice_socket_cannot_open_a_race_game(running_race):
    """A race game, even one's own, is not opened on the practice socket (where the log and
    undo would bypass the race's rules)."""
    racer = await database_sync_to_async(
        lambda: Racer.objects.select_related("game").get(player=running_race.ann.player)
    )()
    session = Session("/ws/game/", running_race.ann)
    assert await session.open()
    replies = await session.answers(
        "text", json.dumps({"type": "open", "game": racer.game.public_id})
    )
    await session.close()
    assert [r.get("code") for r in replies] == ["forbidden"]


async def test_a_racer_moves_only_in_their_own_race_game(running_race):
    """Bob naming Ann's game (or racer) in a move plays in his own game, never hers."""
    race = running_race.race

    def games():
        rows = Racer.objects.select_related("game").filter(race=race)
        return {r.player_id: r.game for r in rows}

    by_player = await database_sync_to_async(games)()
    ann_game = by_player[running_race.ann.player.pk]
    bob_game = by_player[running_race.bob.player.pk]
    ann_before = await database_sync_to_async(game_fingerprint)(ann_game)
    session = Session(f"/ws/race/{race.code}/", running_race.bob)
    assert await session.open()
    board = await session.until("state")
    assert board["game"] == bob_game.public_id
    frame = {"type": "move", "move": board["legal"][0], "seq": 0, "game": ann_game.public_id}
    replies = await session.answers("text", json.dumps(frame))
    await session.close()
    ack = next(r for r in replies if r["type"] == "ack")
    assert ack["game"] == bob_game.public_id
    assert await database_sync_to_async(game_fingerprint)(ann_game) == ann_before
    assert not any(ann_game.public_id in text for text in session.log)


async def test_a_racer_never_gets_another_racers_board_or_game_id(running_race):
    """During the race a racer sees others' progress only: no board, no game id of theirs."""
    race = running_race.race
    ann_game = await database_sync_to_async(
        lambda: Racer.objects.select_related("game").get(player=running_race.ann.player).game
    )()
    ann, bob = (
        Session(f"/ws/race/{race.code}/", running_race.ann),
        Session(f"/ws/race/{race.code}/", running_race.bob),
    )
    for session in (ann, bob):
        assert await session.open()
    board = await ann.until("state")
    await bob.until("state")
    for i in range(3):
        replies = await ann.answers(
            "text", json.dumps({"type": "move", "move": board["legal"][0], "seq": i})
        )
        board = next(r for r in replies if r["type"] == "ack")
    await bob.until("progress")
    await bob.drain(0.3)
    for session in (ann, bob):
        await session.close()
    assert not [t for t in bob.log if '"type":"board"' in t]
    assert not [t for t in bob.log if ann_game.public_id in t]


def test_pages_never_show_a_running_race_s_seed_or_games(running_race, make_client):
    """The race page (to racers and spectators) and the results address hold neither the seed
    nor any racer's game id while the race runs; results redirect to the race."""
    race = running_race.race
    game_ids = list(Game.objects.filter(racer__race=race).values_list("public_id", flat=True))
    for client in (running_race.ann, running_race.bob, make_client("Eve"), Client()):
        page = client.get(f"/races/{race.code}/")
        assert page.status_code == 200
        html = page.content.decode()
        assert not re.search(rf"\b{race.seed}\b", html)
        assert not any(game_id in html for game_id in game_ids)
        assert client.get(f"/races/{race.code}/results/").status_code == 302


def test_the_admin_is_for_staff_only(two_players):
    """A player (guest or not) cannot read games through the admin: it sends them to log in."""
    ann, _ = two_players
    for path in (
        "/admin/games/game/",
        f"/admin/games/game/{ann.game.pk}/change/",
        "/admin/games/move/",
    ):
        reply = ann.get(path)
        assert reply.status_code == 302 and "/admin/login/" in reply["Location"]


async def test_a_spectator_cannot_reach_a_racer_s_hidden_cards(
    make_client, make_race, check_hidden_cards
):
    """A spectator's boards (Spiderweb: face-down cards and a stock) are player views, checked
    against the record; any move the spectator tries is refused with nothing changed."""
    running = await database_sync_to_async(start_running_race)(make_client, make_race, "spiderweb")
    race = running.race
    eve = await database_sync_to_async(make_client)("Eve")
    before = await database_sync_to_async(race_fingerprint)(race)
    session = Session(f"/ws/race/{race.code}/", eve)
    assert await session.open()
    await session.until("board")
    await session.until("board")
    replies = await session.answers("text", json.dumps({"type": "move", "move": "t0-f0", "seq": 0}))
    await session.close()
    assert [r.get("code") for r in replies] == ["not_in_race"]
    assert await database_sync_to_async(race_fingerprint)(race) == before

    def check_all():
        for text in session.log:
            frame = json.loads(text)
            if frame["type"] == "board":
                game = Racer.objects.select_related("game").get(public_id=frame["racer"]).game
                check_hidden_cards(json.dumps({**frame, "game": game.public_id}))

    await database_sync_to_async(check_all)()
