"""Positions whose answer is known to be lost are proved lost (and the engine-only exhaustive
search agrees)."""

from solver_positions import exhaustive_verdict

from games.solver import Verdict, solve

RANKS = "A23456789TJQK"


def suit(s: str, n: int = 13) -> list[str]:
    return [RANKS[i] + s for i in range(n)]


def test_penelopes_web_blocked_ace_is_lost():
    """Penelope's Web: A♣ lies under 3♣, the only 4 lies under 2♣, every pile is taken: the 2
    can only go onto the 3, and then neither 3 nor 2 can ever move again."""
    state = {
        "variant": "penelopes-web",
        "tableau": [
            ["AC", "3C"],
            ["KC", "QC"],
            ["4C", "2C"],
            ["JC"],
            ["TC", "9C"],
            ["8C"],
            ["7C"],
            ["6C", "5C"],
        ],
        "down": [0] * 8,
        "foundations": [suit("D"), [], suit("H"), suit("S")],
        "cells": [],
        "stock": [],
        "waste": [],
    }
    assert exhaustive_verdict(state) == "lost"
    result = solve(state, max_seconds=10)
    assert result.verdict == Verdict.LOST
    assert result.moves == []


def queenie_block() -> dict:
    """Queenie, stock out: A♣ under 2♣, and no red 3 left to take the 2♣."""
    return {
        "variant": "queenie",
        "tableau": [
            ["AC", "2C"],
            ["KH"],
            ["3C", "4C"],
            ["5C", "6C"],
            ["7C", "8C", "9C"],
            ["TC", "JC"],
            ["QC", "KC"],
        ],
        "down": [0] * 7,
        "foundations": [[], suit("D"), suit("H", 12), suit("S")],
        "cells": [],
        "stock": [],
        "waste": [],
    }


def test_queenie_unbreakable_block_is_lost():
    """Queenie, stock out: A♣ lies under 2♣, and a black 2 needs a red 3, all of which are home,
    so the A♣ can never come out, however the other piles are moved."""
    state = queenie_block()
    assert exhaustive_verdict(state) == "lost"
    assert solve(state, max_seconds=10).verdict == Verdict.LOST


def test_penelopes_web_dead_position_is_cut_without_search():
    """A Penelope's Web position where a card can provably never move again is lost at once,
    and the check does not fire on a winnable position."""
    from test_solver_api import blunder_position

    from games.engine import Game
    from games.solver.variants import RULES

    rules = RULES["penelopes-web"]
    live = rules(blunder_position())
    assert not live.hopeless(live.start)
    game = Game.from_dict(blunder_position())
    game.play("t3-t0")  # 2♣ onto 3♣: the 2 has no other 3 to go to, the A♣ is buried for good
    dead = rules(game.to_dict())
    assert dead.hopeless(dead.start)
    assert solve(game, max_seconds=10).nodes == 1
