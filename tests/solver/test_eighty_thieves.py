"""Eighty Thieves' search rules: the dead-position test on positions whose answer is known, the
beam (wins that replay, never a "lost"), and the safe automatic moves."""

import pytest
from solver_positions import endgame, exhaustive_verdict, replays_to_a_win
from test_solver_lost import suit

from games.engine import Game
from games.solver import Verdict, solve
from games.solver.cards import parse
from games.solver.search import _Budget
from games.solver.variants import RULES

Rules = RULES["eighty-thieves"]


def state(tableau, foundations, stock=(), waste=()) -> dict:
    out = {
        "variant": "eighty-thieves",
        "tableau": [list(p) for p in tableau],
        "down": [0] * 10,
        "foundations": [list(f) for f in foundations],
        "cells": [],
        "stock": list(stock),
        "waste": list(waste),
    }
    Game.from_dict(out)  # the engine accepts it
    return out


def kings_on_queens(t9: list[str], waste: list[str], spades_left: int = 1) -> dict:
    """Clubs, diamonds and hearts home to the Jack on all four of their piles; every Club and
    Diamond Queen lies under a King of its suit (t0-t7), t8 is Q K Q K of Hearts, t9 and the
    waste hold the other Hearts (and Spades). Spades are home but for the top
    ``spades_left`` ranks of one pile: its King in the stock, the rest where given."""
    tableau = [["QC", "KC"]] * 4 + [["QD", "KD"]] * 4 + [["QH", "KH", "QH", "KH"], t9]
    foundations = [suit(s, 11) for s in "CDH" for _ in range(4)]
    foundations += [suit("S")] * 3 + [suit("S", 13 - spades_left)]
    return state(tableau, foundations, stock=["KS"], waste=waste)


def assert_alive_and_won(st: dict) -> None:
    """The engine-only search wins ``st``, the dead test stays silent, the solver wins it."""
    assert exhaustive_verdict(st) == "won"
    rules = Rules(st)
    assert not rules.dead(rules.start)
    result = solve(st, max_seconds=10)
    assert result.verdict == Verdict.WON
    assert replays_to_a_win(st, result.moves)


def test_every_queen_under_a_king_is_dead_and_lost():
    """Every Heart Queen left lies under a King of its suit (in t8, t9 and the waste), and no
    pile can ever empty (every front is a King that needs a Queen home first): nothing can go
    home but the Spade King. The test says so at once and the engine-only search agrees."""
    lost = kings_on_queens(["QH", "KH"], ["QH", "KH"])
    assert exhaustive_verdict(lost) == "lost"
    rules = Rules(lost)
    assert rules.dead(rules.start)
    result = solve(lost, max_seconds=10)
    assert result.verdict == Verdict.LOST
    assert result.nodes == 1  # cut at the start


def test_a_free_queen_is_not_dead_and_wins():
    """The same position with a Heart Queen on top of the waste: it goes home, the King under
    it follows, and the chain unlocks every Heart, so the test must not fire."""
    alive = kings_on_queens(["QH", "KH"], ["KH", "QH"])
    assert_alive_and_won(alive)


def test_an_empty_pile_keeps_the_position_alive():
    """Every Heart Queen under a Heart King again, but t9 holds only the Spade Queen, which
    goes home at once: the empty pile takes the waste's King, freeing a Queen, and the game
    is won. The test must count the empty pile as a way out."""
    alive = kings_on_queens(["QS"], ["QH", "KH", "QH", "KH"], spades_left=2)
    assert_alive_and_won(alive)


@pytest.mark.parametrize("seed", range(8))
def test_dead_never_fires_on_a_won_endgame(seed):
    """Soundness on random endgames: whenever the solver wins (a line that replays), the
    dead-position test said nothing at the start."""
    st = endgame("eighty-thieves", seed, left=14)
    rules = Rules(st)
    result = solve(st, max_seconds=20)
    if result.verdict == Verdict.WON:
        assert replays_to_a_win(st, result.moves)
        assert not rules.dead(rules.start)


@pytest.mark.parametrize("seed", range(4))
def test_beam_wins_endgames_with_lines_that_replay(seed):
    """The beam alone finds wins of endgames with stock left, and their lines replay."""
    st = endgame("eighty-thieves", 50 + seed, left=16)
    rules = Rules(st)
    result = rules.beam(_Budget(None, 20))
    assert result.verdict == Verdict.WON
    assert replays_to_a_win(st, result.moves)


def test_beam_never_says_lost():
    """On a lost position the beam runs out of positions and answers unknown: only the
    complete search after it may prove the loss."""
    rules = Rules(kings_on_queens(["QH", "KH"], ["QH", "KH"]))
    assert rules.beam(_Budget(None, 5)).verdict == Verdict.UNKNOWN


def test_beam_respects_a_node_budget():
    """A node budget stops the beam with unknown at exactly that many positions."""
    rules = Rules(endgame("eighty-thieves", 3, left=40))
    result = rules.beam(_Budget(7, None))
    assert (result.verdict, result.nodes) == (Verdict.UNKNOWN, 7)


def test_safe_move_waits_for_every_lower_copy():
    """A card goes up on its own only once all four copies of its suit's next lower rank are
    home; an Ace always."""
    found = [parse("3S"), parse("3S"), parse("3S"), parse("2S")] + [0] * 12
    assert Rules._up(parse("4S"), found) == -1
    found[3] = parse("3S")
    assert Rules._up(parse("4S"), found) == 0
    assert Rules._up(parse("AH"), found) == 4
