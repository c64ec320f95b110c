"""A race's deal: a random one, or a winnable one: a built deal for Eighty Thieves (its number
not public), else from the race pool (never a practice deal, whose number is public). No request
asks the solver: an empty pool starts a search in the background worker
(games.winnable.start_search), and a race opened in a lobby takes the deal it found at its
start; if none has come by then, the race is run on the random deal it opened with. An arena's
races, placed and started at once, keep the deal they were placed with (`placed_deals`)."""

from __future__ import annotations

from games.deals import random_seed
from games.winnable import Use, offers_winnable, start_search, winnable_seeds
from games.winnable import winnable_seed as pooled_seed
from races.lifecycle import RaceRuleError


def winnable_seed(variant: str) -> int | None:
    """A race deal the solver proved winnable, at once: the race pool's next (a built deal for
    Eighty Thieves); None when the pool is empty, a background search for it then started (the
    race opens on a random deal and takes the found one at its start: `pooled_winnable`).
    RaceRuleError (`no_winnable_deal`) for a variant whose deals were never proved winnable."""

    if not offers_winnable(variant):
        raise RaceRuleError(
            "no_winnable_deal",
            f"winnable deals are not offered for {variant}: the solver has never proved one",
        )
    seed = pooled_seed(variant, Use.RACE)
    if seed is None:
        start_search(variant, Use.RACE)
    return seed


def pooled_winnable(race, *, search_if_empty: bool = False) -> bool:
    """Put a race that wants a winnable deal (a quick race, or one set up with "winnable") but is
    still on a random deal on one from the race pool, when the pool has one; never a search
    here (a placement or a start must not wait for the solver). A deal taken is replaced by a
    background search; with `search_if_empty` (a race just opened) an empty pool starts one
    too, while at the start it is left to the scheduler. The caller saves the row."""

    wanted = race.quick or race.wants_winnable
    if not wanted or race.winnable or race.seed_chosen or not offers_winnable(race.variant):
        return False
    seed = pooled_seed(race.variant, Use.RACE)  # taken, it is topped up behind
    if seed is None:
        if search_if_empty:
            start_search(race.variant, Use.RACE)  # the deal this race waits for
        return False
    race.seed, race.winnable = seed, True
    return True


def placed_deals(variant: str, count: int) -> list[tuple[int, bool]]:
    """Deals for `count` races placed together (an arena's batch), (seed, winnable) each: proved
    ones (`winnable_seeds`: built deals for Eighty Thieves, else the race pool's while it lasts,
    taken in one statement), else random ones. The races start at once, so a random deal stays
    theirs: a background search looks for the deals the pool lacked, for the next batches,
    never waited for."""
    seeds = winnable_seeds(variant, Use.RACE, count)
    if len(seeds) < count:
        start_search(variant, Use.RACE)
    randoms = [random_seed(variant) for _ in range(count - len(seeds))]
    return [(seed, True) for seed in seeds] + [(seed, False) for seed in randoms]
