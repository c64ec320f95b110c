"""Invariants over random playouts of every variant (hypothesis), and the exact-listing proof:
legal_moves() equals the set of every move string play() accepts."""

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import VARIANTS, Game, new_game

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
CHOICES = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=120)
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def all_cards(d: dict) -> Counter:
    piles = d["tableau"] + d["foundations"] + [d["stock"], d["waste"]]
    return Counter([c for p in piles for c in p] + [c for c in d["cells"] if c])


def playout(variant: str, seed: int, choices: list[int]):
    """Yield the game before each move of a playout picking moves by ``choices``."""
    g = new_game(variant, seed)
    for choice in choices:
        moves = g.legal_moves()
        if not moves:
            return
        yield g, moves[choice % len(moves)]


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=SEEDS, choices=CHOICES)
def test_the_cards_never_change(variant, seed, choices):
    """Whatever is played, the state holds the same multiset of cards."""
    start = all_cards(new_game(variant, seed).to_dict())
    for g, move in playout(variant, seed, choices):
        g.play(move)
        assert all_cards(g.to_dict()) == start


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=SEEDS, choices=CHOICES)
def test_undo_exactly_inverts_play(variant, seed, choices):
    """play then undo gives back the same state, legal moves and history; and undoing the
    whole playout gives back the deal."""
    deal = new_game(variant, seed).to_dict()
    last = None
    for g, move in playout(variant, seed, choices):
        before, moves, history = g.to_dict(), g.legal_moves(), list(g.history)
        g.play(move)
        g.undo()
        assert (g.to_dict(), g.legal_moves(), g.history) == (before, moves, history)
        g.play(move)
        last = g
    if last is not None:
        while last.history:
            last.undo()
        assert last.to_dict() == deal and last.move_count == 0


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=SEEDS, choices=CHOICES)
def test_every_listed_move_plays(variant, seed, choices):
    """No listed move is refused, and each is counted in move_count and history."""
    for g, move in playout(variant, seed, choices):
        for listed in g.legal_moves():
            trial = g.copy()
            trial.play(listed)
            assert trial.history[-1] == listed
            assert trial.move_count == g.move_count + 1
        g.play(move)


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=SEEDS, choices=CHOICES)
def test_state_round_trips(variant, seed, choices):
    """from_dict(to_dict()) is the same position, with the same legal moves, through JSON."""
    g = new_game(variant, seed)  # the deal itself, if it has no move to play
    for g, move in playout(variant, seed, choices):
        g.play(move)
    d = g.to_dict()
    back = Game.from_dict(json.loads(json.dumps(d)))
    assert back.to_dict() == d
    assert back.legal_moves() == g.legal_moves()
    assert (back.is_won(), back.is_stuck()) == (g.is_won(), g.is_stuck())


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=SEEDS, choices=CHOICES)
def test_the_player_view_never_shows_a_hidden_card(variant, seed, choices):
    """No face-down or stock card, and no seed, is in the player view; lengths are kept."""
    for g, move in playout(variant, seed, choices):
        g.play(move)
        full, view = g.to_dict(), g.to_dict(view="player")
        assert "seed" not in view
        assert view["stock"] == ["??"] * len(full["stock"])
        for pile, shown, down in zip(full["tableau"], view["tableau"], full["down"], strict=True):
            assert shown == ["??"] * down + pile[down:]
        for key in ("foundations", "cells", "waste", "down", "variant"):
            assert view[key] == full[key]


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=SEEDS, choices=CHOICES)
def test_stuck_and_won_agree_with_the_legal_moves(variant, seed, choices):
    """Stuck exactly when not won and nothing is legal; won only with every card up."""
    for g, move in playout(variant, seed, choices):
        g.play(move)
        assert g.is_stuck() == (not g.is_won() and not g.legal_moves())
        assert not g.is_won() or g.foundation_count() == len(all_cards(g.to_dict()))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_legal_moves_are_exactly_the_moves_play_accepts(variant, seed, listing_exact):
    """Along a random playout, every src/dst/N combination is tried: play() accepts exactly the
    listed moves (none missing, none extra)."""
    rng = random.Random(seed)
    g = new_game(variant, seed)
    for step in range(60):
        if step % 4 == 0:
            listing_exact(g)
        moves = g.legal_moves()
        if not moves:
            break
        g.play(rng.choice(moves))
    listing_exact(g)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(3, 6))
def test_legal_moves_are_exactly_the_moves_play_accepts_long(variant, seed, listing_exact):
    """The same proof on every position of longer playouts."""
    rng = random.Random(seed)
    g = new_game(variant, seed)
    for _ in range(200):
        listing_exact(g)
        moves = g.legal_moves()
        if not moves:
            break
        g.play(rng.choice(moves))
