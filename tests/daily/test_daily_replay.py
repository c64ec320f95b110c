"""Replays: every position of a finished game from its move log, for every variant."""

import datetime as dt
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from daily.actions import do_resign, start_attempt
from games import actions
from games import replay as game_replay
from games.engine import VARIANTS, new_game
from games.play import cards_home

pytestmark = pytest.mark.django_db


def position(state: dict) -> dict:
    """A replay's position: the full state without the seed and the move count."""
    return {k: v for k, v in state.items() if k not in ("seed", "moves")}


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
def test_replay_steps_lead_through_the_positions_of_the_log(client, account, finished_run, variant):
    """The deal in full, then one step a log row (undos included) whose edits turn each position
    into the next, ending at the game's final position; all cards face up: the game is over."""
    game = finished_run(variant)
    client.force_login(account.user)
    data = client.get(f"/api/replays/{game.public_id}/").json()
    steps = data["steps"]
    assert len(steps) == game.seq
    engine = new_game(variant, game.seed)
    view = data["deal"]["view"]
    assert view == position(engine.to_dict()) and data["deal"]["ms"] == 0
    for (move, _, cards, edits), row in zip(steps, game.moves.order_by("seq"), strict=True):
        engine.undo() if row.move == "undo" else engine.play(row.move)
        view = game_replay.apply(view, edits)
        assert move == row.move
        assert view == position(engine.to_dict())
        assert cards == cards_home(view)
    assert view == position(game.state)
    assert [step[1] for step in steps] == sorted(step[1] for step in steps)
    assert data["status"] == "resigned"
    assert data["seed"] is None  # today's daily deal: its seed is said once the day is over


@given(
    before=st.lists(st.sampled_from(["AS", "2S", "3S", "KH", "QH"]), max_size=8),
    after=st.lists(st.sampled_from(["AS", "2S", "3S", "KH", "QH"]), max_size=8),
)
def test_a_splice_turns_any_pile_into_any_other(before, after):
    """Whatever two piles are, the edit between them leads from one to the other, and keeps
    what they share at both ends out of the edit."""
    if before == after:
        assert game_replay.edits({"stock": before}, {"stock": after}) == []
        return
    (edit,) = game_replay.edits({"stock": before}, {"stock": after})
    assert game_replay.apply({"stock": before}, [edit])["stock"] == after
    start, removed, *added = edit[1:]
    pairs = zip(before, after, strict=False)
    shared = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
    assert start == min(len(before), len(after)) if shared is None else start == shared
    assert len(added) - removed == len(after) - len(before)


@pytest.mark.parametrize("variant", VARIANTS)
def test_replay_page_renders(client, account, finished_run, variant):
    """The replay page embeds the deal and the steps for the browser to step through."""
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
