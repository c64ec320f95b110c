"""Random deals the solver proves winnable: kept in pools ahead of time, searched for in the
background worker, never in a request.

Practice's "new winnable deal" and a race's winnable deal take a deal from the pool of their
use (`WinnableDeal`) at once (`winnable_seed`). An empty pool is never searched in the request:
the solver's pure-Python search would hold the web process's interpreter lock for seconds and
stall every other page and socket of it. Instead `start_search` hands the search to the
background worker (games/worker.py: a process of its own at a lower priority), at most
one per variant and use at a time in each process, which puts what it proves in the pool.
Practice waits for it on a page that polls (`wait_for_deal`, games/views.py); a race opens on a
random deal and takes the pool's deal at its start if one has come (races/deals.py). A deal
taken is replaced by the same kind of search. Spiderweb deals are not
always proved in a second or two, so "none in time" is an answer too.

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
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.db import IntegrityError, connection
from django.utils.crypto import constant_time_compare

from games import worker
from games.deals import random_seed
from games.engine import new_game
from games.engine.built_deals import (
    BUILT_COUNT,
    OPEN_COUNT,
    is_built,
    open_numbers,
    secret_number,
)
from games.engine.shuffle import MAX_SEED
from games.models import WinnableDeal
from games.solver import Verdict, solve

logger = logging.getLogger(__name__)

Use = WinnableDeal.Use

NEVER_PROVED: frozenset[str] = frozenset()
"""Variants with no winnable deal on offer: none now (Eighty Thieves, whose random deals the
solver never proved won, offers built ones)."""
BUILT = frozenset({"eighty-thieves"})
"""Variants whose winnable deals are built deals, each with its winning line (see above)."""

POOL_SIZES = {Use.PRACTICE: 6, Use.RACE: 24}
"""Deals each pool (variant and use) is topped up to, however busy the cores are. A race pool is
deeper: an arena places up to eight races a transaction, batch after batch (a crowd at its
start; a wave of races ending together), each on a deal of its own."""
RACE_DEMAND: list[Callable[[str], int]] = []
"""Asked how many race deals of a variant an app above may take together soon (the arenas: a
crowd's first placement, then its races ending together); the race pool is stocked that deep
ahead (`pool_target`), past its `POOL_SIZES` only while the cores are not contended."""
RACE_POOL_MOST = 500
"""The deepest any demand makes a race pool."""
PRACTICE_SEED_BOUND = 1_000_000_000
"""Practice deals are numbered below this (short, shareable addresses); race deals use every
seed, as their number is never shown before the race is over."""
SEARCH_BUDGET_S = 15.0
SEARCH_DEALS = 2
SEARCH_QUICK_S = 1.0
"""A background search adds at most `SEARCH_DEALS` deals (one for whoever waits, one towards a
full pool) in at most `SEARCH_BUDGET_S` of search, and more only within its first
`SEARCH_QUICK_S` (a Penguin deal is proved in some 25 ms: a pool an arena's wave of races
emptied is full again in one search): the worker runs one job at a time, and other jobs
(replays' losing moves, the daily picks) wait behind it; bulk stocking is left to
`stock_winnable_deals`."""
SECONDS_PER_DEAL = 2.0
"""The most the solver spends on any one random deal."""
WAIT_LIMIT_S = 60.0
"""A player waiting for a practice deal is told none came once this long has passed (the search
may have waited behind other jobs of the worker)."""
RECORD_S = 300
"""How long the outcome of a search is kept (Django's cache, shared by the processes where it is
Redis): a waiter on any process learns from it that the search ended with no deal."""

_running: set[tuple[str, str]] = set()
"""The pools (variant, use) this process has a search queued or running for."""
_lock = threading.Lock()


@dataclass(frozen=True)
class Wait:
    """Where a player waiting for a pool's deal stands: `ready` (the pool has one), `searching`
    (a search is under way), or `none` (it ended with no deal proved, `tried` deals asked)."""

    status: str
    tried: int = 0


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
    `per_deal_s` (and never past the total budget). A variant not `offers_winnable` is
    (None, 0) at once. Seconds of pure CPU: for the background worker and the commands, never a
    request."""
    if not offers_winnable(variant):
        return None, 0
    deadline = time.monotonic() + budget_s
    tried = 0
    while (left := deadline - time.monotonic()) > 0.05:
        seed = random_seed(variant, bound)
        tried += 1
        result = solve(new_game(variant, seed), max_seconds=min(left, per_deal_s))
        if result.verdict == Verdict.WON:
            return seed, tried
    return None, tried


def take_pooled_seeds(variant: str, use: str, count: int) -> list[int]:
    """Up to `count` deals from the pool, the oldest first, removed from it in one statement
    (an arena's batch of races takes a deal each). Each row is dealt once, on any database: the
    rows a `DELETE ... RETURNING` removed are this caller's alone, and on PostgreSQL a second
    taker at the same instant skips the rows the first holds and takes the next ones."""
    if count <= 0:
        return []
    table, pk, variant_col, use_col, seed_col = map(
        connection.ops.quote_name, [WinnableDeal._meta.db_table, "id", "variant", "use", "seed"]
    )
    skip = (
        " FOR UPDATE SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    )
    # The rows are picked once, in a materialized CTE: as `WHERE id IN (SELECT ... LIMIT n FOR
    # UPDATE SKIP LOCKED)` PostgreSQL may run the subquery more than once, and with SKIP LOCKED
    # each run can pick other rows, so more than `count` were deleted (seen in CI: three for two).
    sql = (
        f"WITH picked AS MATERIALIZED (SELECT {pk} FROM {table}"
        f" WHERE {variant_col} = %s AND {use_col} = %s ORDER BY {pk} LIMIT %s{skip})"
        f" DELETE FROM {table} WHERE {pk} IN (SELECT {pk} FROM picked)"
        f" RETURNING {pk}, {seed_col}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [variant, use, count])
        return [seed for _, seed in sorted(cursor.fetchall())]


def winnable_seeds(variant: str, use: str, count: int) -> list[int]:
    """Up to `count` seeds the solver proved winnable, at once: a `BUILT` variant's built deals
    (always `count`), else the pool's oldest, taken in one statement (`take_pooled_seeds`) and
    replaced behind them by a background search (`start_search`). Fewer, or none, when the pool
    runs short (none for a variant not `offers_winnable`): this never searches, and an empty
    pool starts nothing; the caller starts or joins a background search (`start_search`,
    `wait_for_deal`) if it wants one."""
    if count <= 0 or not offers_winnable(variant):
        return []
    if variant in BUILT:
        return [built_seed(use) for _ in range(count)]
    seeds = take_pooled_seeds(variant, use, count)
    if seeds:
        start_search(variant, use)
    return seeds


def winnable_seed(variant: str, use: str) -> int | None:
    """One of `winnable_seeds`: None when the pool is empty (or the variant not
    `offers_winnable`)."""
    seeds = winnable_seeds(variant, use, 1)
    return seeds[0] if seeds else None


def proved_mark(variant: str, seed: int) -> str:
    """What a deal dealt as winnable carries in its address (`?proved=`), as the pool's row is
    gone once dealt: the deal's signature, so its page can say "proved winnable" and no address
    can make another deal's page say so (96 bits of it: the address stays short)."""
    return signing.Signer(salt="games.winnable.proved").signature(f"{variant}:{seed}")[:16]


def is_proved(variant: str, seed: int, mark: str | None) -> bool:
    """Whether the page of this deal says it was proved winnable: a built deal always (each
    has its winning line), another with its `proved_mark`."""
    if variant in BUILT and is_built(seed):
        return True
    return bool(mark) and constant_time_compare(mark, proved_mark(variant, seed))


def pool_size(variant: str, use: str) -> int:
    return WinnableDeal.objects.filter(variant=variant, use=use).count()


def pool_target(variant: str, use: str) -> int:
    """How deep the pool is stocked: its `POOL_SIZES`, a race pool deeper where `RACE_DEMAND`
    asks (at most `RACE_POOL_MOST`)."""
    size = POOL_SIZES[use]
    if use == Use.RACE:
        wanted = max((ask(variant) for ask in RACE_DEMAND), default=0)
        size = max(size, min(wanted, RACE_POOL_MOST))
    return size


def refill(
    variant: str,
    use: str,
    size: int | None = None,
    budget_s: float = 120.0,
    per_deal_s: float = SECONDS_PER_DEAL,
    on_found=None,
    most: int | None = None,
    tally: dict | None = None,
    more_within_s: float = 0.0,
) -> int:
    """Search deals until the pool holds `size` (by default its `pool_target`), `most` were
    added or `budget_s` is spent; how many were added. Past `most`, the search goes on while it
    is under `more_within_s` old: deals proved that quickly fill the pool in one search. Past
    the pool's `POOL_SIZES` (stock ahead, no race waits for it) it stops once the cores are
    contended (`worker.contended`): live play first, the next search goes on.
    `on_found()` is called for each; `tally["tried"]` counts the deals asked. A `BUILT` variant
    has no pool."""
    if not offers_winnable(variant) or variant in BUILT:
        return 0
    size = pool_target(variant, use) if size is None else size
    added = 0
    started = time.monotonic()
    deadline = started + budget_s
    while (held := pool_size(variant, use)) < size:
        if held >= POOL_SIZES[use] and worker.contended():
            if tally is not None:
                tally["yielded"] = True
            break
        past_most = most is not None and added >= most
        end = min(deadline, started + more_within_s) if past_most else deadline
        if (left := end - time.monotonic()) <= 0.05:
            break
        seed, tried = find_winnable_seed(variant, left, per_deal_s, seed_bound(use))
        if tally is not None:
            tally["tried"] = tally.get("tried", 0) + tried
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


# ------------------------------------------------------------------ the background searches


def search_pool(variant: str, use: str) -> tuple[int, int]:
    """In the worker: one search for the pool; (deals added, deals tried)."""
    tally = {"tried": 0}
    try:
        added = refill(
            variant,
            use,
            budget_s=SEARCH_BUDGET_S,
            most=SEARCH_DEALS,
            tally=tally,
            more_within_s=SEARCH_QUICK_S,
        )
    except Exception:
        logger.exception("searching the %s %s winnable-deal pool failed", variant, use)
        added = 0
    return added, tally["tried"]


def start_search(variant: str, use: str) -> bool:
    """Hand a search for the pool to the background worker, unless this process has one queued
    or running for it already (coalesced: however many ask, one search per variant and use at a
    time, so a burst of requests queues at most one job per pool); whether one was started.
    Never with `settings.WINNABLE_POOL_REFILL` off (the pools are then filled by
    `stock_winnable_deals` alone), for a `BUILT` variant (no pool) or one not
    `offers_winnable`."""
    if not settings.WINNABLE_POOL_REFILL or variant in BUILT or not offers_winnable(variant):
        return False
    key = (variant, use)
    with _lock:
        if key in _running:
            return False
        _running.add(key)

    def done(future) -> None:
        added, tried = _outcome(future)
        try:
            cache.set(_record_key(variant, use), (time.time(), added, tried), RECORD_S)
        except Exception:  # the cache (Redis) away: waiters go on until WAIT_LIMIT_S
            logger.warning("could not record the %s %s search's outcome", variant, use)
        with _lock:
            _running.discard(key)

    return worker.submit(search_pool, variant, use, on_done=done)


def _outcome(future) -> tuple[int, int]:
    if future is None or future.cancelled() or future.exception() is not None:
        return 0, 0
    return future.result()


def _record_key(variant: str, use: str) -> str:
    return f"winnable-search:{variant}:{use}"


def searching(variant: str, use: str) -> bool:
    """Whether this process has a search for the pool queued or running."""
    with _lock:
        return (variant, use) in _running


def wait_for_deal(variant: str, use: str, since: float) -> Wait:
    """For a player waiting since `since` (seconds since the epoch) for a deal of the pool:
    `ready` when the pool holds one; `none` when a search that ended after `since` added none,
    after `WAIT_LIMIT_S`, or when no search can be started (`start_search`); else `searching`,
    a background search started or joined here. A database read and a cache read: never a
    search."""
    state = _where(variant, use, since)
    if state is None:
        started = start_search(variant, use)
        state = _where(variant, use, since) or Wait("searching" if started else "none")
    return state


def _where(variant: str, use: str, since: float) -> Wait | None:
    """As `wait_for_deal`, but None when no search runs here and none ended since."""
    if WinnableDeal.objects.filter(variant=variant, use=use).exists():
        return Wait("ready")
    try:
        record = cache.get(_record_key(variant, use))
    except Exception:  # the cache (Redis) away
        record = None
    ended_since = record is not None and record[0] >= since
    tried = record[2] if ended_since else 0
    if time.time() - since > WAIT_LIMIT_S:
        return Wait("none", tried)
    if searching(variant, use):
        return Wait("searching")
    if ended_since and record[1] == 0:
        return Wait("none", tried)
    return None
