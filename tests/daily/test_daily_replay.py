"""Replays: every position of a finished game from its move log, for every variant."""

import datetime as dt
import random

import pytest

from daily.actions import do_resign, start_attempt
from games import actions
from games.engine import VARIANTS, new_game

pytestmark = pytest.mark.django_db


def without_seed(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "seed"}


def play_some(game, moves: int, rng: random.Random):
    """Random legal moves through the games app, with an undo now and then."""
    for _ in range(moves):
        update = actions.get_game_update(game)
        if update.can_undo and rng.random() < 0.15:
            game = actions.do_undo(game, game.seq).game
        elif update.legal:
            game = actions.do_play_move(game, rng.choice(update.legal), game.seq).game
    return game


@pytest.fixture
def finished_run(account, make_challenge, today):
    """finished_run(variant, days_ago=0): a resigned attempt with 30 random log rows."""

    def make(variant: str, days_ago: int = 0):
        challenge = make_challenge(variant, day=today - dt.timedelta(days=days_ago))
        attempt, _ = start_attempt(account, challenge)
        play_some(attempt.game, 30, random.Random(variant))
        return do_resign(attempt.game)

    return make


@pytest.mark.parametrize("variant", VARIANTS)
def test_replay_frames_are_the_positions_of_the_log(client, account, finished_run, variant):
    """Frame 0 is the deal, frame n the position after n log rows (undos included), the last
    the game's final position; all cards face up, because the game is over."""
    game = finished_run(variant)
    client.force_login(account.user)
    data = client.get(f"/api/replays/{game.public_id}/").json()
    frames = data["frames"]
    assert len(frames) == game.seq + 1
    engine = new_game(variant, game.seed)
    assert frames[0]["view"] == without_seed(engine.to_dict()) and frames[0]["move"] is None
    for frame, row in zip(frames[1:], game.moves.order_by("seq"), strict=True):
        engine.undo() if row.move == "undo" else engine.play(row.move)
        assert frame["move"] == row.move
        assert frame["view"] == without_seed(engine.to_dict())
    assert frames[-1]["view"] == without_seed(game.state)
    assert [f["ms"] for f in frames] == sorted(f["ms"] for f in frames)
    assert data["status"] == "resigned"
    assert data["seed"] is None  # today's daily deal: its seed is said once the day is over


@pytest.mark.parametrize("variant", VARIANTS)
def test_replay_page_renders(client, account, finished_run, variant):
    """The replay page embeds the frames for the browser to step through."""
    game = finished_run(variant)
    client.force_login(account.user)
    html = client.get(f"/replay/{game.public_id}/").content.decode()
    assert 'id="replay-config"' in html and 'class="replay-slider"' in html


def test_an_unfinished_game_has_no_replay(client, account, challenge):
    """A game still being played is refused, even to its player: no hidden card leaves early."""
    attempt, _ = start_attempt(account, challenge)
    client.force_login(account.user)
    response = client.get(f"/api/replays/{attempt.game.public_id}/")
    assert response.status_code == 403 and response.json()["error"] == "not_yet"
    assert client.get(f"/replay/{attempt.game.public_id}/").status_code == 403


def test_todays_daily_replay_is_the_players_own_until_the_day_ends(
    client, make_account, finished_run
):
    """Others cannot watch today's daily runs (they would see the deal); yesterday's they can."""
    today_run = finished_run("queenie")
    old_run = finished_run("queenie", days_ago=1)
    client.force_login(make_account("bob").user)
    assert client.get(f"/api/replays/{today_run.public_id}/").status_code == 403
    old = client.get(f"/api/replays/{old_run.public_id}/")
    assert old.status_code == 200 and old.json()["seed"] == old_run.seed


def test_a_stuck_practice_game_can_be_replayed(client, player):
    """A practice deal is public: a stuck practice game is over enough to replay."""
    game = actions.do_create_game(player, "penguin", 3)
    game.status = "stuck"
    game.save(update_fields=["status"])
    assert client.get(f"/api/replays/{game.public_id}/").status_code == 200


def test_an_unknown_game_is_404(client, db):
    assert client.get("/api/replays/nope/").status_code == 404
    assert client.get("/replay/nope/").status_code == 404
