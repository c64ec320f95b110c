"""Random deals the solver proves winnable, within a total time budget.

Practice's "new winnable deal" and a race's winnable deal both draw fresh random deals and ask
the solver about each in turn; the first one proved won is taken. Some variants (Eighty
Thieves, Spiderweb) are rarely proved in a second or two, so "none in time" is an answer too.
"""

from __future__ import annotations

import threading
import time

from games.deals import random_seed
from games.engine import new_game
from games.engine.shuffle import MAX_SEED
from games.solver import Verdict, solve

MAX_SEARCHES = 2
"""Winnable-deal searches one process runs at once. Each is pure CPU for seconds: unbounded, a
burst of requests (or one player holding the button) would take every core from the moves."""
QUEUE_WAIT_S = 2.0
"""How long a request waits for a free search before it is told the solver is busy."""
NEVER_PROVED = frozenset({"eighty-thieves"})
"""Variants none of whose random deals the solver has ever proved won (docs/solvability.md: no
Eighty Thieves win in hundreds of deals, minutes each): a search would spend its whole budget
for nothing, so no winnable deal of theirs is offered."""

_searches = threading.BoundedSemaphore(MAX_SEARCHES)


class SolverBusy(Exception):
    """Every search slot of this process stayed taken: ask again in a moment."""


def offers_winnable(variant: str) -> bool:
    """Whether a winnable deal of the variant is offered (a search for one can succeed)."""
    return variant not in NEVER_PROVED


def find_winnable_seed(
    variant: str,
    budget_s: float,
    per_deal_s: float,
    bound: int = MAX_SEED + 1,
) -> tuple[int | None, int]:
    """(the first random seed below `bound` the solver proves won, deals tried); (None, tried)
    when none was proved within `budget_s` seconds in all, each deal searched at most
    `per_deal_s` (and never past the total budget). SolverBusy if `MAX_SEARCHES` others run
    and none ends within `QUEUE_WAIT_S`. A variant not `offers_winnable` is (None, 0) at once."""
    if not offers_winnable(variant):
        return None, 0
    if not _searches.acquire(timeout=QUEUE_WAIT_S):
        raise SolverBusy(f"{MAX_SEARCHES} winnable-deal searches are running")
    try:
        deadline = time.monotonic() + budget_s
        tried = 0
        while (left := deadline - time.monotonic()) > 0.05:
            seed = random_seed(variant, bound)
            tried += 1
            result = solve(new_game(variant, seed), max_seconds=min(left, per_deal_s))
            if result.verdict == Verdict.WON:
                return seed, tried
        return None, tried
    finally:
        _searches.release()
