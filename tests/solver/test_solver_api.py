"""The solver's public face: what solve() takes and answers, budgets, hint, first_losing_move."""

import pytest
from test_solver_lost import queenie_block, suit

from games.engine import VARIANTS, IllegalMove, new_game
from games.solver import (
    SolveResult,
    Verdict,
    first_losing_move,
    first_losing_move_from,
    hint,
    solve,
)


def test_solve_takes_a_game_or_its_state():
    """solve() accepts an engine Game and its to_dict() alike, with the same answer."""
    game = new_game("penguin", 1)
    a = solve(game, max_nodes=50_000)
    b = solve(game.to_dict(), max_nodes=50_000)
    assert isinstance(a, SolveResult)
    assert (a.verdict, a.moves) == (b.verdict, b.moves)
    assert a.verdict == Verdict.WON and a.nodes > 0 and a.seconds >= 0


def test_player_view_is_refused():
    """A player view (hidden cards as ??) cannot be solved: the solver needs every card."""
    with pytest.raises(ValueError, match="full state"):
        solve(new_game("spiderweb", 1).to_dict(view="player"))


def test_unknown_variant_is_refused():
    """A state of a variant the solver does not know is a ValueError naming it."""
    state = new_game("penguin", 1).to_dict() | {"variant": "klondike"}
    with pytest.raises(ValueError, match="klondike"):
        solve(state)


@pytest.mark.parametrize("variant", VARIANTS)
def test_node_budget_spent_gives_unknown(variant):
    """When the node budget runs out before a verdict, the answer is unknown with no moves."""
    # Penelope's Web deal 11 is proved lost at its start position (relaxed game); 3 is not.
    seed = 3 if variant == "penelopes-web" else 11
    result = solve(new_game(variant, seed), max_nodes=3)
    assert result.verdict == Verdict.UNKNOWN
    assert result.moves == []
    assert result.nodes == 3


def test_time_budget_spent_gives_unknown():
    """A deal too big for the time budget ends unknown, close to the budget."""
    result = solve(new_game("eighty-thieves", 3), max_seconds=0.2)
    assert result.verdict == Verdict.UNKNOWN
    assert result.seconds < 2


def test_verdict_serialises_as_its_name():
    """The JSON form carries the verdict as a plain string."""
    result = solve(new_game("penguin", 2), max_nodes=50_000)
    data = result.to_json()
    assert data["verdict"] == "won"
    assert data["moves"] == result.moves
    assert set(data) == {"verdict", "moves", "nodes", "seconds"}


def test_hint_is_a_legal_first_move_of_a_win():
    """hint() gives a move the engine accepts, from which the solver still wins."""
    game = new_game("penguin", 3)
    move = hint(game)
    assert move in game.legal_moves()
    game.play(move)
    assert solve(game, max_seconds=10).verdict == Verdict.WON


def test_hint_on_a_lost_position_is_none():
    """With no win to be found, there is no hint."""
    assert hint(queenie_block()) is None


def blunder_position() -> dict:
    """Penelope's Web, clubs left: 3♣ onto the 4♣ wins at once, but 2♣ onto the 3♣ buries the
    A♣ for good (no other 3 is left to take the 2♣)."""
    return {
        "variant": "penelopes-web",
        "tableau": [
            ["AC", "3C"],
            ["KC", "QC"],
            ["4C"],
            ["2C"],
            ["JC", "TC", "9C"],
            ["8C"],
            ["7C", "6C"],
            ["5C"],
        ],
        "down": [0] * 8,
        "foundations": [suit("D"), [], suit("H"), suit("S")],
        "cells": [],
        "stock": [],
        "waste": [],
    }


def test_first_losing_move_names_the_move_that_lost():
    """Replaying a log, the first move after which a winnable position is proved lost is named."""
    assert first_losing_move_from(blunder_position(), ["t3-t0"]) == 0
    assert first_losing_move_from(blunder_position(), ["t5-t4", "t0-t2"]) is None


def test_first_losing_move_counts_an_undone_blunder():
    """A losing move that was later undone still is the first losing move: it was played."""
    log = ["t5-t4", "t3-t0", "undo", "t0-t2"]
    assert first_losing_move_from(blunder_position(), log) == 1


def test_first_losing_move_needs_a_winnable_position_before_it(monkeypatch):
    """A move after which the position is proved lost is named only when the position before it
    is proved winnable: after an unproved one (unknown), no move is blamed."""
    from games.solver import analysis

    game = new_game("penguin", 2)
    line = solve(game, max_seconds=10).moves[:4]
    states = [game.to_dict()]
    for move in line:
        game.play(move)
        states.append(game.to_dict())

    def judged(before: Verdict):
        def fake_solve(state, max_seconds):
            i = states.index(state)
            verdict = Verdict.LOST if i >= 3 else before if i == 2 else Verdict.UNKNOWN
            return SolveResult(verdict, [], 1, 0.0)

        return fake_solve

    monkeypatch.setattr(analysis, "solve", judged(Verdict.WON))
    assert first_losing_move_from(states[0], line) == 2
    monkeypatch.setattr(analysis, "solve", judged(Verdict.UNKNOWN))
    assert first_losing_move_from(states[0], line) is None


def test_first_losing_move_of_a_won_game_is_none():
    """A log that stays winnable (undo entries included) has no losing move."""
    game = new_game("penguin", 2)
    line = solve(game, max_seconds=10).moves
    assert first_losing_move("penguin", 2, line[:10] + ["undo"] + line[9:]) is None


def test_first_losing_move_of_a_lost_deal_is_none():
    """When the deal itself is proved lost, no move lost it."""
    seed = next(
        s
        for s in range(50)
        if solve(new_game("penelopes-web", s), max_nodes=2_000).verdict == Verdict.LOST
    )
    first = new_game("penelopes-web", seed).legal_moves()[0]
    assert first_losing_move("penelopes-web", seed, [first]) is None


def test_first_losing_move_rejects_an_illegal_log():
    """A log with an illegal move is refused by the engine (IllegalMove)."""
    with pytest.raises(IllegalMove):
        first_losing_move("penguin", 2, ["t0-t0"])
