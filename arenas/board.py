"""An arena's live board: a sorted set in the rank store (games.rankstore), one per arena, each
member a player's id, each score their standing packed by `arenas.points.board_score` (lower
first). The record is `ArenaResult` in the database; the board is an index of it, written after
each race's commit and rebuilt from the record whenever Redis lost it (`rebuild`,
`manage.py rebuild_leaderboards`).

Keys carry the arena's random public id, so no two arenas (nor two databases on one Redis)
share one.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection
from django.db.models import (
    BigIntegerField,
    Case,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    Q,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Collate, Least
from django.utils import timezone
from redis.exceptions import RedisError

from arenas import points
from arenas.models import Arena, ArenaPlayer, ArenaResult
from games.rankstore import RankStore, get_rank_store

logger = logging.getLogger(__name__)

KEY_PREFIX = "arena"
KEPT_AFTER_END = timedelta(days=1)
"""How long an ended arena's board stays in the store (its podium page reads the database)."""
BUILT = "built"


def key(arena: Arena) -> str:
    return f"{KEY_PREFIX}:{arena.public_id}"


def marker_key(arena: Arena) -> str:
    return f"{key(arena)}:built"


TOTALS = ["points", "races", "place_sum", "podiums_in_a_row", "last_scored_s"]
"""A player's totals in an arena, on their `ArenaPlayer` row (`standing_of`), written with their
results in each close's transaction."""


def standing_of(entry: ArenaPlayer) -> points.Standing:
    return points.Standing(
        points=entry.points,
        races=entry.races,
        place_sum=entry.place_sum,
        podiums_in_a_row=entry.podiums_in_a_row,
        last_scored_s=entry.last_scored_s,
    )


def write(arena: Arena, entries: Iterable[ArenaPlayer], store: RankStore | None = None) -> None:
    """Put players' standings (their rows, just committed) on the arena's board. Called after
    the commit; a failure loses nothing: `rebuild` makes the board from the record again."""
    try:
        store = store or get_rank_store()
        if not is_built(arena, store):  # new, or lost with Redis: all of it from the record
            rebuild(arena, store, totals)
            return
        scores = {str(e.player_id): points.board_score(standing_of(e)) for e in entries}
        store.set_many(key(arena), scores)
    except (RedisError, OSError):
        logger.exception("could not write the board of arena %s", arena.public_id)


def recount(arena: Arena) -> dict[int, points.Standing]:
    """Every player's standing in the arena, counted again from the results (the record)."""
    outcomes: dict[int, list[tuple[points.Outcome, int]]] = {
        player_id: [] for player_id in arena.players.values_list("player_id", flat=True)
    }
    for result in ArenaResult.objects.filter(arena=arena).order_by("at", "race_id"):
        outcome = points.Outcome(
            place=result.place,
            racers=result.racers,
            moved=result.moved,
            won=result.won,
            counted=not result.withheld,
        )
        outcomes.setdefault(result.player_id, []).append((outcome, result.at_s))
    return {player_id: points.total(found) for player_id, found in outcomes.items()}


def totals(arena: Arena) -> dict[int, points.Standing]:
    """Every player's standing in the arena from their totals: the record as `recount` counts it
    (each close writes the two in one transaction), read as one row of values a player where the
    recount reads every result: 1.9 ms of CPU against 184 for an arena of 1,000."""
    found = arena.players.order_by().values_list("player_id", *TOTALS)
    return {pid: points.Standing(*columns) for pid, *columns in found}


def mend_from(
    arena: Arena, standings: Callable[[Arena], dict[int, points.Standing]], store: RankStore
) -> tuple[int, int]:
    """Make the arena's board equal to `standings` (read from the record), a close written
    meanwhile kept (`RankStore.mend_to`): the players on it and how many entries changed."""
    return store.mend_to(
        key(arena),
        lambda: {str(pid): points.board_score(s) for pid, s in standings(arena).items()},
    )


def rebuild(
    arena: Arena,
    store: RankStore | None = None,
    standings: Callable[[Arena], dict[int, points.Standing]] | None = None,
) -> int:
    """Make the arena's board equal to the record, every result counted again (`recount`; a
    close that finds the board lost reads the players' `totals`, the same figures for a
    hundredth of the work); the number of players on it."""
    store = store or get_rank_store()
    k = key(arena)
    players, _ = mend_from(arena, standings or recount, store)
    store.set(marker_key(arena), BUILT, 0)
    ttl = int((arena.ends_at + KEPT_AFTER_END - timezone.now()).total_seconds())
    for name in (k, marker_key(arena)):
        store.expire(name, max(ttl, 60))
    return players


MENDED_AFTER_LAST_RACE = timedelta(minutes=3)
"""How long after its last race's time limit an arena's board is still mended (`mend_changing`):
that race is closed within the scheduler's minute once overdue, and mended in the next."""


def changing(now=None) -> list[Arena]:
    """The arenas whose boards still change: those running, and those whose races under way at
    the end may still close (each within the arena's race time limit)."""
    now = now or timezone.now()
    return [
        arena
        for arena in kept(now)
        if now < arena.ends_at + timedelta(seconds=arena.race_time_limit_s) + MENDED_AFTER_LAST_RACE
    ]


def mend_changing(now=None, store: RankStore | None = None) -> int:
    """Put right, on the boards that still change, what a close's lost board write left wrong
    (its process died between the commit and the write; Redis was away a moment): read from the
    players' totals, one row a player, where the hourly rebuild counts every result. The
    scheduler runs it every minute (`run_arenas`); a board the store lost is
    `rebuild_leaderboards --missing`'s. How many entries it changed."""
    store = store or get_rank_store()
    changed = 0
    for arena in changing(now):
        if is_built(arena, store):
            changed += mend_from(arena, totals, store)[1]
    return changed


def is_built(arena: Arena, store: RankStore | None = None) -> bool:
    """Whether the store holds the arena's board: its marker (`rebuild` sets it) and the board
    itself, in one trip. A board lost on its own while its marker stayed (a key evicted) counts
    as lost: read from the record, and put back whole by the next write, where a join's write
    made it a board of one that ranked the newcomer first."""
    marker, players = (store or get_rank_store()).many(
        [("count", (marker_key(arena),)), ("count", (key(arena),))]
    )
    return bool(marker and players)


def kept(now=None):
    """The arenas whose boards the store keeps: those running, or ended less than a day ago."""
    now = now or timezone.now()
    return Arena.objects.filter(starts_at__lte=now, ends_at__gt=now - KEPT_AFTER_END)


def kept_rebuilds(missing: bool = False) -> dict[str, Callable[[], int]]:
    """The rebuild of each kept arena's board (`missing`: only those the store lost), by the
    arena's public id (records' `rebuild_leaderboards` runs them, all or the one it is named)."""
    return {
        arena.public_id: functools.partial(rebuild, arena)
        for arena in kept()
        if not (missing and is_built(arena))
    }


@dataclass(frozen=True)
class Row:
    rank: int  # 1-based
    player_id: int
    points: int
    score: float


@dataclass(frozen=True)
class Top:
    rows: list[Row]
    count: int


def read_top(arena: Arena, size: int, start: int = 0, store: RankStore | None = None) -> Top:
    """`size` players of the board from position `start` (0: the first), and how many are on
    it."""
    store = store or get_rank_store()
    k = key(arena)
    found, count = store.many([("range", (k, start, start + size - 1)), ("count", (k,))])
    rows = [
        Row(rank=i, player_id=int(m), points=points.points_of(s), score=s)
        for i, (m, s) in enumerate(found, start + 1)
    ]
    return Top(rows=rows, count=count)


def read_ranks(entries: list[ArenaPlayer], store: RankStore | None = None) -> dict[int, int]:
    """Each of these entries' rank on its arena's board (by the entry's id), the boards of
    several arenas read in one trip: none for an arena whose board the store does not hold (its
    marker, a sorted set of one member, gone: lost with Redis, or a day after the end)."""
    store = store or get_rank_store()
    calls = []
    for entry in entries:
        calls.append(("count", (marker_key(entry.arena),)))
        calls.append(("rank", (key(entry.arena), str(entry.player_id))))
    answers = store.many(calls) if calls else []
    return {
        entry.pk: rank + 1
        for entry, built, rank in zip(entries, answers[::2], answers[1::2], strict=True)
        if built and rank is not None
    }


def read_own(arena: Arena, player_ids: list[int], store: RankStore | None = None) -> dict[int, Row]:
    """Each of these players' rows (the pinned own rows of a process's sockets), in one trip."""
    store = store or get_rank_store()
    k = key(arena)
    calls = [(name, (k, str(pid))) for pid in player_ids for name in ("rank", "score")]
    answers = store.many(calls) if calls else []
    rows = {}
    for i, pid in enumerate(player_ids):
        rank, score = answers[2 * i], answers[2 * i + 1]
        if rank is not None and score is not None:
            rows[pid] = Row(
                rank=rank + 1, player_id=pid, points=points.points_of(score), score=score
            )
    return rows


def record_score() -> ExpressionWrapper:
    """`points.board_score` of a player's totals (`TOTALS`) in SQL, the same whole number: the
    average place's thousandths are rounded from the same double (PostgreSQL's round of a
    double, as Python's, takes a half to the even neighbour)."""
    average_milli = Func(
        Cast("place_sum", FloatField()) / Cast("races", FloatField()) * Value(1000.0),
        function="ROUND",
        output_field=FloatField(),
    )
    milli = Case(
        When(races=0, then=Value(points.NO_PLACE_MILLI)),
        default=Cast(average_milli, BigIntegerField()),
        output_field=BigIntegerField(),
    )
    cap = Value(points.LAST_SCORED_CAP_S)
    return ExpressionWrapper(
        Cast("points", BigIntegerField()) * Value(-(10**9))
        + milli * Value(10**5)
        + Least(Coalesce(F("last_scored_s"), cap), cap),
        # Django infers an integer, whose range a score of 3 points or more leaves (a lookup
        # beyond a field's range matches nothing)
        output_field=BigIntegerField(),
    )


BYTEWISE = {"postgresql": "C", "sqlite": "BINARY"}
"""Each database's collation that orders text by its bytes, as the rank store orders the
members of equal scores ("10" before "9")."""


def record_row(entry: ArenaPlayer) -> Row:
    """A player's row in the board's order, from the totals on their row (`entry`, as read) and
    how many of the arena's players rank ahead of them, counted by the database: a score lower
    (`record_score`), or the same and the member's text before theirs (as the rank store orders
    equal scores: "10" before "9"). One count, where reading every player's totals to sort
    them read a row a player."""
    score = points.board_score(standing_of(entry))
    ahead = (
        ArenaPlayer.objects.filter(arena_id=entry.arena_id)
        .alias(
            score=record_score(),
            member=Collate(Cast("player_id", TextField()), BYTEWISE[connection.vendor]),
        )
        .filter(Q(score__lt=score) | Q(score=score, member__lt=str(entry.player_id)))
    )
    return Row(rank=ahead.count() + 1, player_id=entry.player_id, points=entry.points, score=score)
