"""Hints on /ws/game/ (docs/protocol.md, "Hints"): the next move of a proved win, practice only.

Every frame is checked to hide face-down and stock cards (the `connect` fixture): a hint sends
the suggested move and nothing of the full position the solver searched.
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from service_positions import near_won_state, one_move_from_stuck_state
from test_game_socket import opened

from games import hints
from games.actions import do_create_game
from games.engine import VARIANTS
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)

create_game = database_sync_to_async(do_create_game)


@pytest.mark.parametrize("variant", VARIANTS)
async def test_hint_is_a_move_that_plays_to_the_win(connect, guest_client, player, variant):
    """In a position one move from the win, the hint is a legal move, and playing it wins."""
    game = await create_game(player, variant, 0, start_state=near_won_state(variant))
    ws, state = await opened(connect, guest_client, game)
    hint = await ws.send_frame({"type": "hint", "game": game.public_id})
    assert hint == {
        "type": "hint",
        "game": game.public_id,
        "seq": 0,
        "move": hint["move"],
        "reason": "winning_line",
    }
    assert hint["move"] in state["legal"]
    ack = await ws.send_frame({"type": "move", "move": hint["move"], "seq": 0})
    assert ack["type"] == "ack" and ack["status"] == "won"


async def test_hint_without_a_solution_is_null(connect, guest_client, player):
    """A position proved lost gets `move: null` with reason `lost`; the game is unchanged."""
    game = await create_game(player, "penelopes-web", 0, start_state=one_move_from_stuck_state())
    ws, _ = await opened(connect, guest_client, game)
    hint = await ws.send_frame({"type": "hint"})
    assert (hint["type"], hint["move"], hint["reason"], hint["seq"]) == ("hint", None, "lost", 0)
    assert (await ws.send_frame({"type": "ping"}))["type"] == "pong"


async def test_hint_on_a_won_game_is_null(connect, guest_client, player):
    """After the win there is nothing to suggest: `move: null`, reason `game_over`."""
    game = await create_game(player, "penguin", 0, start_state=near_won_state("penguin"))
    ws, _ = await opened(connect, guest_client, game)
    first = await ws.send_frame({"type": "hint"})
    won = await ws.send_frame({"type": "move", "move": first["move"], "seq": 0})
    assert won["status"] == "won"
    hint = await ws.send_frame({"type": "hint"})
    assert (hint["move"], hint["reason"], hint["seq"]) == (None, "game_over", 1)


async def test_hint_before_open_is_refused(connect, guest_client):
    """A hint needs an open game: `no_game`."""
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "hint"})
    assert (error["type"], error["code"], error["ref"]) == ("error", "no_game", "hint")


@pytest.mark.parametrize("ranked", [True, False])
async def test_daily_socket_refuses_hints(connect, guest_client, player, ranked):
    """A daily attempt never gets a hint on /ws/daily/: `hint_refused`, nothing searched."""
    game = await create_game(player, "penguin", 0, kind=Game.Kind.DAILY)
    ws = await connect(guest_client, path="/ws/daily/")
    assert (await ws.send_frame({"type": "open", "game": game.public_id}))["type"] == "state"
    frame = {"type": "hint", "game": game.public_id} if ranked else {"type": "hint"}
    error = await ws.send_frame(frame)
    assert (error["type"], error["code"], error["ref"]) == ("error", "hint_refused", "hint")


async def test_race_game_gets_no_hint_on_the_practice_socket(connect, guest_client, player):
    """Naming a race game in a hint on /ws/game/ is `forbidden`, as any other frame would be."""
    race_game = await create_game(player, "penguin", 0, kind=Game.Kind.RACE)
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "hint", "game": race_game.public_id})
    assert (error["type"], error["code"]) == ("error", "forbidden")


@pytest.mark.parametrize("kind", [Game.Kind.RACE, Game.Kind.DAILY])
def test_hint_position_refuses_games_that_are_not_practice(player, kind):
    """Whatever socket asks, a race game or a daily attempt gets HintRefused."""
    game = do_create_game(player, "penguin", 0, kind=kind)
    with pytest.raises(hints.HintRefused):
        hints.hint_position(game)
