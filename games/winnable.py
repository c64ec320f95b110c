"""Random deals the solver proves winnable: kept in pools ahead of time, searched when a pool is
empty.

Practice's "new winnable deal" and a race's winnable deal take a deal from the pool of their
use (`WinnableDeal`) at once; only when it is empty do they draw fresh random deals and ask the
solver about each in turn, the first one proved won taken. Either way a background thread then
tops the pool up again. Spiderweb deals are not always proved in a second or two, so "none in
time" is an answer too.

Eighty Thieves is the exception (`BUILT`): no random deal of it was ever proved won, so its
winnable deals are built deals (games.engine.built_deals), each with its winning line, dealt at
once with no pool and no search: practice an open one (its line shipped with the code), a race
one whose number is secret, as a race's random deal is.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time

from django.conf import settings
from django.db import IntegrityError

from games.deals import random_seed
from games.engine import new_game
from games.engine.built_deals import BUILT_COUNT, OPEN_COUNT, open_numbers, secret_number
from games.engine.shuffle import MAX_SEED
from games.models import WinnableDeal
from games.solver import Verdict, solve
from solitaire_site import worker

logger = logging.getLogger(__name__)

Use = WinnableDeal.Use

MAX_SEARCHES = 2
"""Winnable-deal searches one process runs at once. Each is pure CPU for seconds: unbounded, a
burst of requests (or one player holding the button) would take every core from the moves."""
QUEUE_WAIT_S = 2.0
"""How long a request waits for a free search before it is told the solver is busy."""
NEVER_PROVED: frozenset[str] = frozenset()
"""Variants with no winnable deal on offer: none now (Eighty Thieves, whose random deals the
solver never proved won, offers built ones)."""
BUILT = frozenset({"eighty-thieves"})
"""Variants whose winnable deals are built deals, each with its winning line (see above)."""

POOL_SIZE = 6
"""Deals each pool (variant and use) is topped up to."""
PRACTICE_SEED_BOUND = 1_000_000_000
"""Practice deals are numbered below this (short, shareable addresses); race deals use every
seed, as their number is never shown before the race is over."""
BACKGROUND_BUDGET_S = 15.0
BACKGROUND_DEALS = 2
"""A background top-up adds at most this many deals (the one taken, and one towards a full
pool) in at most `BACKGROUND_BUDGET_S` of search: it runs in a web process beside the event loop
and shares its GIL, so bulk stocking is left to `stock_winnable_deals`."""
REFILL_SECONDS_PER_DEAL = 2.0

_searches = threading.BoundedSemaphore(MAX_SEARCHES)
_refilling = threading.Lock()


class SolverBusy(Exception):
    """Every search slot of this process stayed taken: ask again in a moment."""


def offers_winnable(variant: str) -> bool:
    """Whether a winnable deal of the variant is offered (a search for one can succeed)."""
    return variant not in NEVER_PROVED


def built_seed(use: str) -> int:
    """A built deal drawn from the OS's secret source: an open one for practice, for a race one
    whose number is not public."""
    if use == Use.PRACTICE:
        return open_numbers()[secrets.randbelow(OPEN_COUNT)]
    return secret_number(secrets.randbelow(BUILT_COUNT - OPEN_COUNT))


def seed_bound(use: str) -> int:
    return PRACTICE_SEED_BOUND if use == Use.PRACTICE else MAX_SEED + 1


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


def take_pooled_seed(variant: str, use: str) -> int | None:
    """A deal from the pool, removed from it; None when the pool is empty. Each row is dealt
    once: of two requests that read the same row, only the one whose delete removed it keeps
    it (the other takes the next), on any database."""
    for row in WinnableDeal.objects.filter(variant=variant, use=use).order_by("id")[:5]:
        deleted, _ = WinnableDeal.objects.filter(pk=row.pk).delete()
        if deleted:
            return row.seed
    return None


def winnable_seed(
    variant: str, use: str, budget_s: float, per_deal_s: float
) -> tuple[int | None, int]:
    """(a seed the solver proved winnable, deals searched now): from the pool at once when it
    has one, else searched as `find_winnable_seed` does (SolverBusy as there). A background
    top-up of the pool follows either way. A `BUILT` variant's is a built deal, at once."""
    if not offers_winnable(variant):
        return None, 0
    if variant in BUILT:
        return built_seed(use), 0
    seed = take_pooled_seed(variant, use)
    tried = 0
    if seed is None:
        seed, tried = find_winnable_seed(variant, budget_s, per_deal_s, seed_bound(use))
    schedule_refill(variant, use)
    return seed, tried


def pool_size(variant: str, use: str) -> int:
    return WinnableDeal.objects.filter(variant=variant, use=use).count()


def refill(
    variant: str,
    use: str,
    size: int = POOL_SIZE,
    budget_s: float = 120.0,
    per_deal_s: float = REFILL_SECONDS_PER_DEAL,
    on_found=None,
    most: int | None = None,
) -> int:
    """Search deals until the pool holds `size`, `most` were added or `budget_s` is spent; how
    many were added. `on_found()` is called for each. A `BUILT` variant has no pool."""
    if not offers_winnable(variant) or variant in BUILT:
        return 0
    added = 0
    deadline = time.monotonic() + budget_s
    while (
        pool_size(variant, use) < size
        and (most is None or added < most)
        and (left := deadline - time.monotonic()) > 0.05
    ):
        seed, _ = find_winnable_seed(variant, left, per_deal_s, seed_bound(use))
        if seed is None:
            continue
        try:
            WinnableDeal.objects.create(variant=variant, use=use, seed=seed)
        except IntegrityError:  # already pooled (another process found it too)
            continue
        added += 1
        if on_found is not None:
            on_found()
    return added


def _refill_in_background(variant: str, use: str) -> None:
    try:
        refill(variant, use, budget_s=BACKGROUND_BUDGET_S, most=BACKGROUND_DEALS)
    except SolverBusy:
        pass  # requests have every search slot: the next deal taken tries again
    except Exception:
        logger.exception("topping up the %s %s winnable-deal pool failed", variant, use)


def schedule_refill(variant: str, use: str) -> bool:
    """Top the pool up in the background worker (solitaire_site/worker.py; one top-up per
    process at a time; off when `settings.WINNABLE_POOL_REFILL` is; never for a `BUILT` variant,
    which has no pool); whether one was started."""
    if (
        variant in BUILT
        or not settings.WINNABLE_POOL_REFILL
        or not _refilling.acquire(blocking=False)
    ):
        return False
    return worker.submit(
        _refill_in_background, variant, use, on_done=lambda _: _refilling.release()
    )
