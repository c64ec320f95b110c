"""Random deals the solver proves winnable, within a total time budget.

Practice's "new winnable deal" and a race's winnable deal both draw fresh random deals and ask
the solver about each in turn; the first one proved won is taken. Some variants (Eighty
Thieves, Spiderweb) are rarely proved in a second or two, so "none in time" is an answer too.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from games.engine import new_game
from games.solver import Verdict, solve


def find_winnable_seed(
    variant: str,
    random_seed: Callable[[], int],
    budget_s: float,
    per_deal_s: float,
) -> tuple[int | None, int]:
    """(the first seed from `random_seed()` the solver proves won, deals tried); (None, tried)
    when none was proved within `budget_s` seconds in all, each deal searched at most
    `per_deal_s` (and never past the total budget)."""
    deadline = time.monotonic() + budget_s
    tried = 0
    while (left := deadline - time.monotonic()) > 0.05:
        seed = random_seed()
        tried += 1
        result = solve(new_game(variant, seed), max_seconds=min(left, per_deal_s))
        if result.verdict == Verdict.WON:
            return seed, tried
    return None, tried
