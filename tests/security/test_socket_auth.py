"""Websockets check where they come from and who is on them: another site's page cannot open
one, and a socket is exactly as privileged as the session cookie it brings."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from hostile_harness import Session, game_fingerprint, race_fingerprint

from games.actions import do_create_game
from games.identity import player_for_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("generous_budget"),
]

FOREIGN_ORIGINS = [b"http://evil.example", b"null", b"http://localhost.evil.example", None]


@pytest.mark.parametrize("origin", FOREIGN_ORIGINS, ids=["other-site", "null", "suffix", "none"])
@pytest.mark.parametrize("socket", ["game", "race"])
async def test_a_foreign_or_missing_origin_is_refused_at_the_handshake(
    running_race, socket, origin
):
    """Cross-site pages (and clients that send no Origin) cannot open either socket."""
    path = "/ws/game/" if socket == "game" else f"/ws/race/{running_race.race.code}/"
    session = Session(path, running_race.ann, origin=origin)
    assert not await session.open()


async def test_a_forged_session_cookie_is_nobody(running_race, make_client):
    """A made-up session id gives a socket with no player: it cannot move in the race or open
    anyone's game, and nothing changes."""
    race = running_race.race
    ann_game = await database_sync_to_async(do_create_game)(running_race.ann.player, "penguin", 9)
    before = await database_sync_to_async(race_fingerprint)(race)
    forged = Client()
    forged.cookies["sessionid"] = "x" * 32
    session = Session(f"/ws/race/{race.code}/", forged)
    assert await session.open()
    snapshot = await session.until("snapshot")
    assert snapshot["you"]["racer"] is None
    replies = await session.answers("text", json.dumps({"type": "move", "move": "t0-f0", "seq": 0}))
    # A socket without a player is a spectator: it may get boards, and refusals for moves.
    assert [r.get("code") for r in replies if r["type"] != "board"] == ["not_in_race"]
    await session.close()
    practice = Session("/ws/game/", forged)
    assert await practice.open()
    replies = await practice.answers(
        "text", json.dumps({"type": "open", "game": ann_game.public_id})
    )
    assert [r.get("code") for r in replies] == ["forbidden"]
    await practice.close()
    assert await database_sync_to_async(race_fingerprint)(race) == before


async def test_a_logged_out_session_no_longer_opens_the_account_s_games(user):
    """After logging out, the old session cookie is worth nothing on the sockets."""
    client = Client()
    await database_sync_to_async(client.force_login)(user)
    player = await database_sync_to_async(player_for_user)(user)
    game = await database_sync_to_async(do_create_game)(player, "queenie", 4)
    old_cookie = client.cookies["sessionid"].value
    session = Session("/ws/game/", client)
    assert await session.open()
    replies = await session.answers("text", json.dumps({"type": "open", "game": game.public_id}))
    assert replies[0]["type"] == "state"
    await session.close()
    await database_sync_to_async(client.post)("/accounts/logout/")
    stale = Client()
    stale.cookies["sessionid"] = old_cookie
    session = Session("/ws/game/", stale)
    assert await session.open()
    before = await database_sync_to_async(game_fingerprint)(game)
    replies = await session.answers(
        "text", json.dumps({"type": "move", "move": "t0-f0", "seq": 0, "game": game.public_id})
    )
    assert [r.get("code") for r in replies] == ["forbidden"]
    await session.close()
    assert await database_sync_to_async(game_fingerprint)(game) == before
