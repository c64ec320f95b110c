"""Each race's standings as a sorted set in the rank store (Redis when configured): an index of
the racer rows, one score per racer (races/standings.py), read by snapshots and events.

The rows are the record: when Redis cannot be reached the same order is read from the rows, a
write it missed marks the set stale, and the next read rebuilds it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from redis.exceptions import RedisError

from games.rankstore import get_rank_store
from races.lifecycle import RacerStatus
from races.models import Race, Racer
from races.standings import Progress, encode_score

logger = logging.getLogger(__name__)

RESULTS_KEEP_S = 24 * 3600
"""How long a finished race's sorted set stays in the rank store (the database keeps it all)."""


def standings_key(race: Race) -> str:
    """The race's sorted set (the code too, so a reused row id never meets an old set)."""
    return f"race:{race.pk}:{race.code}:standings"


def standing_member(racer: Racer) -> str:
    """The racer's member in the sorted set: the row id, zero-padded, so that equal scores
    (everyone at the start) fall back to the order of joining, as Redis sorts equal scores
    by member."""
    return f"{racer.pk:012d}"


def progress_of(racer: Racer) -> Progress:
    return Progress(
        member=standing_member(racer),
        cards=racer.cards,
        reached_ms=racer.cards_at_ms,
        won_ms=racer.finish_ms if racer.status == RacerStatus.WON else None,
    )


def standings(race: Race, moved: Racer | None = None) -> list[str]:
    """Racer ids best first, from the race's sorted set (rebuilt from the rows unless it holds
    exactly the race's racers: it may be gone, or partial after Redis restarted empty and only
    the racers who moved since were written back; or a write to it failed). `moved`: write that
    racer's score first, in the same round trip.

    The set is only an index of the rows: when Redis cannot be reached the same order is read
    from the rows, so a Redis blip never fails the move, start or close that asked (it used to
    roll the move back with `server_error`), and the set is rebuilt on its next read."""
    try:
        return _standings_from_index(race, moved)
    except RedisError:
        logger.warning("race %s: standings read from the rows (Redis unavailable)", race.code)
        _mark_stale(race)
        return _standings_from_rows(race)


def _standings_from_index(race: Race, moved: Racer | None) -> list[str]:
    store = get_rank_store()
    key = standings_key(race)
    ids = _members(race)
    stale = (race.pk, race.code) in _stale_indexes  # a write was missed: rebuild, whatever it holds
    if stale:
        members = []
    elif moved is None:
        members = [member for member, _ in store.range(key, 0, -1)]
    else:
        members = store.set_and_range(key, standing_member(moved), progress_of(moved).score)
    if stale or set(members) != set(ids):
        _write_index(race)
        members = [member for member, _ in store.range(key, 0, -1)]
    return [ids[member] for member in members if member in ids]


def _standings_from_rows(race: Race) -> list[str]:
    """The sorted set's order (score, then member, as Redis sorts) from the rows themselves."""
    racers = sorted(race.racers.all(), key=lambda r: (progress_of(r).score, standing_member(r)))
    return [racer.public_id for racer in racers]


# Races (pk, code) of this process whose sorted set missed a write while Redis was away: their
# next read rebuilds it. Bounded: past that many, all are forgotten (a set that holds
# every racer, one score stale, then mends with that racer's next move).
_stale_indexes: set[tuple[int, str]] = set()
_STALE_INDEXES_KEPT = 4096


_started_members: OrderedDict[tuple[int, str], dict[str, str]] = OrderedDict()
_STARTED_MEMBERS_KEPT = 4096


def _members(race: Race) -> dict[str, str]:
    """Sorted-set member -> racer id, for every racer of the race. Racers never change once the
    race has started, so a started race's map is kept in the process (a move needs no query)."""
    cache_key = (race.pk, race.code)
    if race.status != Race.Status.LOBBY:
        cached = _started_members.get(cache_key)
        if cached is not None:
            return cached
    # race_id too: the related manager reads it on every row, and a deferred field is a query.
    ids = {standing_member(r): r.public_id for r in race.racers.only("pk", "public_id", "race_id")}
    if race.status != Race.Status.LOBBY:
        _started_members[cache_key] = ids
        while len(_started_members) > _STARTED_MEMBERS_KEPT:
            _started_members.popitem(last=False)
    return ids


def _write_index(race: Race) -> None:
    """Write the race's sorted set afresh from the rows (RedisError when Redis is away)."""
    store = get_rank_store()
    key = standings_key(race)
    store.delete(key)
    store.set_many(key, {standing_member(r): progress_of(r).score for r in race.racers.all()})
    _stale_indexes.discard((race.pk, race.code))


def index_write(race: Race, write) -> None:
    """`write()` to the race's sorted set; when Redis is away, mark the set stale (rebuilt on
    its next read) instead of failing the caller's transaction."""
    try:
        write()
    except RedisError:
        logger.warning("race %s: standings index not written (Redis unavailable)", race.code)
        _mark_stale(race)


def _mark_stale(race: Race) -> None:
    _mark_stale_key((race.pk, race.code))


def _mark_stale_key(key: tuple[int, str]) -> None:
    if len(_stale_indexes) >= _STALE_INDEXES_KEPT:
        _stale_indexes.clear()
    _stale_indexes.add(key)


def rebuild(race: Race) -> None:
    index_write(race, lambda: _write_index(race))


def record(racers) -> None:
    """The scores of racers who just moved (games/store.RacerWrite), in one round trip."""
    by_key: dict[str, dict[str, int]] = {}
    for r in racers:
        won_ms = r.finish_ms if r.status == RacerStatus.WON else None
        score = encode_score(cards=r.cards, reached_ms=r.cards_at_ms, won_ms=won_ms)
        key = f"race:{r.race_pk}:{r.race_code}:standings"
        by_key.setdefault(key, {})[f"{r.pk:012d}"] = score
    try:
        added = get_rank_store().set_in_many(by_key)
    except RedisError:
        logger.warning("standings index not written (Redis unavailable)")
        for r in racers:
            _mark_stale_key((r.race_pk, r.race_code))
        return
    # A started race's set holds every racer: a member new to it means the set was lost (Redis
    # restarted empty) or missed writes. Rebuild it whole from the rows.
    lost = {r.race_pk for r in racers if added[f"race:{r.race_pk}:{r.race_code}:standings"]}
    for race in Race.objects.filter(pk__in=lost) if lost else ():
        index_write(race, lambda race=race: _write_index(race))
