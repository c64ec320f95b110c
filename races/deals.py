"""A race's deal: a random one, or a winnable one from the race pool (never a practice deal,
whose number is public)."""

from __future__ import annotations

from races.lifecycle import RaceRuleError

WINNABLE_BUDGET_S = 8.0
WINNABLE_SECONDS_PER_DEAL = 2.0


def winnable_seed(variant: str, budget_s: float | None = None) -> int:
    """A random deal the solver wins: the race pool's next (games.winnable; never a practice
    deal, whose number is public), else searched for `budget_s` seconds at most in all.

    The solver is asked about fresh random deals one after another, each with a share of what
    is left of the budget; a deal it proves won is taken. RaceRuleError (`no_winnable_deal`)
    if none is proved in time: some variants are rarely proved so fast, and the page says so.
    """
    from games.winnable import SolverBusy, Use, offers_winnable
    from games.winnable import winnable_seed as pooled_or_searched

    if not offers_winnable(variant):
        raise RaceRuleError(
            "no_winnable_deal",
            f"winnable deals are not offered for {variant}: the solver has never proved one",
        )
    budget = WINNABLE_BUDGET_S if budget_s is None else budget_s
    try:
        seed, _ = pooled_or_searched(variant, Use.RACE, budget, WINNABLE_SECONDS_PER_DEAL)
    except SolverBusy as exc:
        raise RaceRuleError(
            "solver_busy",
            "the solver is busy with other players' deals; try again in a moment, "
            "or race on a random deal",
        ) from exc
    if seed is not None:
        return seed
    raise RaceRuleError(
        "no_winnable_deal",
        "the solver proved no deal winnable in time; try again, or race on a random deal",
    )


def pooled_winnable(race) -> bool:
    """Put a race still on a random deal on a winnable one from the race pool, when the pool
    has one (no search: a quick race's placement and start must not wait for the solver; the
    pool is topped up in the background and stocked by the scheduler). The caller saves the row."""
    from games.winnable import Use, offers_winnable, schedule_refill, take_pooled_seed

    if race.winnable or race.seed_chosen or not offers_winnable(race.variant):
        return False
    seed = take_pooled_seed(race.variant, Use.RACE)
    schedule_refill(race.variant, Use.RACE)
    if seed is None:
        return False
    race.seed, race.winnable = seed, True
    return True
