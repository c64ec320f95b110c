"""/ws/daily/: a daily attempt played over the real ASGI app, never sending the deal's seed."""

import json

import pytest
from channels.db import database_sync_to_async

from daily.actions import start_attempt
from games import consumers
from games.actions import do_create_game
from games.sockets import FrameBudget
from games.throttles import PlayerBudget
from records import leaderboard
from records.boards import DAILY, Board

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def account_client(client, account):
    client.force_login(account.user)
    return client


def assert_no_seed(frames: list[str], seed: int) -> None:
    for text in frames:
        assert "seed" not in json.loads(text) and str(seed) not in text, text[:200]


async def test_a_ranked_attempt_is_played_to_the_end_without_its_seed(
    connect, account_client, account, solved_challenge, sent_frames, monkeypatch
):
    """The whole winning line is played over the socket; no frame carries the seed; the player
    lands on the live board with the server's time."""
    # A winning line is faster than any hand: lift the per-socket frame budget and the player's
    # write budget for this test.
    monkeypatch.setattr(consumers, "FrameBudget", lambda: FrameBudget(limit=10_000, flood=10_000))
    monkeypatch.setattr(consumers, "GAME_WRITES", PlayerBudget(limit=10_000, window=5.0))
    attempt, _ = await database_sync_to_async(start_attempt)(account, solved_challenge)
    ws = await connect(account_client, path="/ws/daily/")
    state = await ws.send_frame({"type": "open", "game": attempt.game.public_id})
    assert state["type"] == "state"
    for move in solved_challenge.solution:
        state = await ws.send_frame({"type": "move", "move": move, "seq": state["seq"]})
        assert state["type"] == "ack", state
    assert state["status"] == "won"
    assert_no_seed(sent_frames, solved_challenge.seed)
    board = Board(DAILY, solved_challenge.variant, solved_challenge.day)
    page = await database_sync_to_async(leaderboard.read_page)(board, player_id=account.pk)
    assert page.player_row.rank == 1
    assert page.player_row.score == state["elapsed_ms"]


async def test_the_practice_socket_refuses_daily_games(connect, account_client, account, challenge):
    """A daily attempt cannot be opened on /ws/game/ (nor anything learned from it)."""
    attempt, _ = await database_sync_to_async(start_attempt)(account, challenge)
    ws = await connect(account_client, path="/ws/game/")
    answer = await ws.send_frame({"type": "open", "game": attempt.game.public_id})
    assert answer["type"] == "error" and answer["code"] == "forbidden"


async def test_the_daily_socket_refuses_practice_games(connect, account_client, account):
    """Only daily attempts are played on /ws/daily/."""
    game = await database_sync_to_async(do_create_game)(account, "queenie", 5)
    ws = await connect(account_client, path="/ws/daily/")
    answer = await ws.send_frame({"type": "open", "game": game.public_id})
    assert answer["type"] == "error" and answer["code"] == "forbidden"


async def test_someone_elses_attempt_is_forbidden(
    connect, client, account, make_account, challenge
):
    """Another player's attempt cannot be opened."""
    attempt, _ = await database_sync_to_async(start_attempt)(account, challenge)
    other = await database_sync_to_async(make_account)("mallory")
    await database_sync_to_async(client.force_login)(other.user)
    ws = await connect(client, path="/ws/daily/")
    answer = await ws.send_frame({"type": "open", "game": attempt.game.public_id})
    assert answer["type"] == "error" and answer["code"] == "forbidden"
