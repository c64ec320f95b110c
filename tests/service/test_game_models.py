"""The models: players, games and their move logs."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.actions import do_create_game, do_play_move, do_undo, replay
from games.engine import VARIANTS, new_game
from games.models import MAX_SEED, Game, Move, Player, Variant

pytestmark = pytest.mark.django_db


def test_the_variants_are_the_engines():
    """Game.variant's choices are exactly the engine's five variants, in its order."""
    assert tuple(Variant.values) == VARIANTS


def test_a_new_player_is_a_guest_with_a_default_nickname():
    """A Player without a user is a guest called Guest-NNNN."""
    player = Player.objects.create()
    assert player.is_guest and re.fullmatch(r"Guest-\d{4}", player.nickname)
    assert str(player) == player.nickname


def test_public_ids_are_short_random_and_unique(player):
    """Games are named by 12 URL-safe random characters, never by their primary key."""
    ids = {do_create_game(player, "penguin", seed).public_id for seed in range(20)}
    assert len(ids) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{12}", public_id) for public_id in ids)


def test_a_new_game_stores_the_deal(player):
    """A new game is playing, at seq 0, with the deal's full state as its snapshot."""
    game = do_create_game(player, "spiderweb", 77)
    assert (game.status, game.kind, game.seq, game.move_count) == ("playing", "practice", 0, 0)
    assert game.state == new_game("spiderweb", 77).to_dict()
    assert game.finished_at is None and game.started_at is not None


@pytest.mark.parametrize(
    "seed, valid", [(0, True), (MAX_SEED, True), (-1, False), (MAX_SEED + 1, False)]
)
def test_seeds_run_from_0_to_2_63_minus_1(player, seed, valid):
    """A seed outside 0..2**63-1 is refused by the model's validation and by the actions."""
    game = Game(player=player, variant="penguin", seed=seed)
    if valid:
        game.full_clean()
        assert do_create_game(player, "penguin", seed).seed == seed
    else:
        with pytest.raises(ValidationError):
            game.full_clean()
        with pytest.raises(ValueError):
            do_create_game(player, "penguin", seed)


def test_a_log_has_one_row_per_seq(player):
    """Two Move rows with the same (game, seq) cannot both be stored."""
    game = do_create_game(player, "penguin", 1)
    Move.objects.create(game=game, seq=1, move="t0-c0")
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.create(game=game, seq=1, move="t1-c0")


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, MAX_SEED),
    steps=st.lists(st.integers(0, 10**6), max_size=30),
)
def test_the_log_replays_to_the_position(player, variant, seed, steps):
    """Whatever moves and undos are played, seq counts the log, and the log replays to the
    position the player saw."""
    game = do_create_game(player, variant, seed)
    engine = new_game(variant, seed)
    seq = 0
    for step in steps:
        legal = engine.legal_moves()
        if step % 4 == 0 and engine.move_count:
            update = do_undo(game, seq)
            engine.undo()
        elif legal:
            move = legal[step % len(legal)]
            update = do_play_move(game, move, seq)
            engine.play(move)
        else:
            break
        seq = update.game.seq
        assert update.view == engine.to_dict(view="player")
    game.refresh_from_db()
    assert game.seq == game.moves.count()
    assert game.move_count == engine.move_count
    assert replay(game).to_dict() == engine.to_dict()
