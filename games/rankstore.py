"""Sorted sets for leaderboards: Redis when configured, an in-process twin otherwise.

The daily challenge keeps its boards as sorted sets (lowest score ranks first); a race's
standings need none (races/standings.py sorts its few racer rows).
With ``LEADERBOARD_REDIS_URL`` set they live in Redis and every process shares them; without it
one process keeps them in memory, so the service runs with nothing else installed. The database
is always the record: a board is an index that can be rebuilt from it.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable, Mapping

import redis
from django.conf import settings

_store: RankStore | None = None
_store_lock = threading.Lock()


class RankStore:
    """The sorted-set operations the leaderboards need, with Redis's semantics."""

    def set(self, key: str, member: str, score: float) -> None:
        self.set_many(key, {member: score})

    def set_many(self, key: str, mapping: Mapping[str, float]) -> None:
        raise NotImplementedError

    def remove(self, key: str, member: str) -> None:
        raise NotImplementedError

    def mend(self, key: str, seen: Mapping[str, float], wanted: Mapping[str, float]) -> int:
        """Make the set `wanted`, member by member, where a member still has the score it had
        in `seen` (the whole set, read before `wanted` was read from the record; absent there:
        still absent): a member written since (a result committed after that read) keeps what
        that newer write gave it. A member of `seen` not in `wanted` leaves the set. Atomic in
        each member; how many members it changed."""
        changes = [
            (member, seen.get(member), wanted.get(member))
            for member in seen.keys() | wanted.keys()
            if seen.get(member) != wanted.get(member)
        ]
        return self._mend(key, changes) if changes else 0

    def mend_to(self, key: str, read: Callable[[], Mapping[str, float]]) -> tuple[int, int]:
        """Make the set what `read()` reads from the record (a rebuild), reading the set first:
        a result committed, and written here, after the record's read keeps that newer write
        (`mend`). How many members the record holds, and how many changed."""
        seen = dict(self.range(key, 0, -1))
        wanted = read()
        return len(wanted), self.mend(key, seen, wanted)

    def _mend(self, key: str, changes: list[tuple[str, float | None, float | None]]) -> int:
        """`mend`'s writes: (member, score it must still have or None for absent, new score or
        None to remove)."""
        raise NotImplementedError

    def rank(self, key: str, member: str) -> int | None:
        """0-based position in ascending score order, or None if absent."""
        raise NotImplementedError

    def score(self, key: str, member: str) -> float | None:
        raise NotImplementedError

    def many(self, calls: list[tuple[str, tuple]]) -> list:
        """Several reads in one round trip, in order: ``[("range", (key, 0, 9)), ("count",
        (key,))]`` answers as ``[self.range(key, 0, 9), self.count(key)]`` would. For ``score``,
        ``rank``, ``range`` and ``count``."""
        return [getattr(self, name)(*args) for name, args in calls]

    def incr(self, key: str, member: str) -> float:
        """Add 1 to a member's score (0 if absent); the new score."""
        raise NotImplementedError

    def range(self, key: str, start: int, stop: int) -> list[tuple[str, float]]:
        """Members from ``start`` to ``stop`` inclusive (negative counts from the end)."""
        raise NotImplementedError

    def count(self, key: str) -> int:
        raise NotImplementedError

    def delete(self, key: str) -> None:
        raise NotImplementedError

    def exists(self, key: str) -> bool:
        raise NotImplementedError

    def expire(self, key: str, seconds: int) -> None:
        raise NotImplementedError


_MEND = """
local n = 0
for i = 1, #ARGV, 3 do
  local member, was, now = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local score = redis.call('ZSCORE', KEYS[1], member)
  local same
  if was == '' then same = not score else same = score and tonumber(score) == tonumber(was) end
  if same then
    if now == '' then redis.call('ZREM', KEYS[1], member)
    else redis.call('ZADD', KEYS[1], now, member) end
    n = n + 1
  end
end
return n
"""
"""`RankStore.mend`'s writes in Redis, one script a batch: each member compared and written with
nothing between (scores travel as `repr` of a float, which Redis reads back exactly)."""
MEND_BATCH = 500


class RedisRankStore(RankStore):
    def __init__(self, url: str) -> None:
        self.redis = redis.Redis.from_url(url, decode_responses=True)
        self._mend_script = self.redis.register_script(_MEND)

    def set_many(self, key, mapping):
        if mapping:
            self.redis.zadd(key, dict(mapping))

    def remove(self, key, member):
        self.redis.zrem(key, member)

    def _mend(self, key, changes):
        done = 0
        for start in range(0, len(changes), MEND_BATCH):
            args = [
                "" if value is None else (value if i == 0 else repr(float(value)))
                for change in changes[start : start + MEND_BATCH]
                for i, value in enumerate(change)
            ]
            done += self._mend_script(keys=[key], args=args)
        return done

    def rank(self, key, member):
        return self.redis.zrank(key, member)

    def score(self, key, member):
        return self.redis.zscore(key, member)

    _READS = {
        "score": lambda pipe, key, member: pipe.zscore(key, member),
        "rank": lambda pipe, key, member: pipe.zrank(key, member),
        "range": lambda pipe, key, start, stop: pipe.zrange(key, start, stop, withscores=True),
        "count": lambda pipe, key: pipe.zcard(key),
    }

    def many(self, calls):
        pipe = self.redis.pipeline(transaction=False)
        for name, args in calls:
            self._READS[name](pipe, *args)
        answers = pipe.execute()
        return [
            [(m, float(s)) for m, s in answer] if name == "range" else answer
            for (name, _), answer in zip(calls, answers, strict=True)
        ]

    def incr(self, key, member):
        return self.redis.zincrby(key, 1, member)

    def range(self, key, start, stop):
        return [(m, float(s)) for m, s in self.redis.zrange(key, start, stop, withscores=True)]

    def count(self, key):
        return self.redis.zcard(key)

    def delete(self, key):
        self.redis.delete(key)

    def exists(self, key):
        return bool(self.redis.exists(key))

    def expire(self, key, seconds):
        self.redis.expire(key, seconds)


class _SortedSet:
    """Members ordered by (score, member), as Redis orders ties."""

    def __init__(self) -> None:
        self.scores: dict[str, float] = {}
        self.order: list[tuple[float, str]] = []

    def put(self, member: str, score: float) -> None:
        old = self.scores.get(member)
        if old is not None:
            del self.order[bisect.bisect_left(self.order, (old, member))]
        self.scores[member] = score
        bisect.insort(self.order, (score, member))

    def drop(self, member: str) -> None:
        old = self.scores.pop(member, None)
        if old is not None:
            del self.order[bisect.bisect_left(self.order, (old, member))]


class MemoryRankStore(RankStore):
    """One process's boards, thread-safe; expiry is checked lazily on access."""

    def __init__(self) -> None:
        self._sets: dict[str, _SortedSet] = {}
        self._expires: dict[str, float] = {}
        self._lock = threading.Lock()

    def _get(self, key: str) -> _SortedSet | None:
        deadline = self._expires.get(key)
        if deadline is not None and deadline <= time.monotonic():
            self._sets.pop(key, None)
            self._expires.pop(key, None)
        return self._sets.get(key)

    def set_many(self, key, mapping):
        with self._lock:
            zset = self._get(key)
            if zset is None:
                zset = self._sets[key] = _SortedSet()
            for member, score in mapping.items():
                zset.put(str(member), float(score))

    def remove(self, key, member):
        with self._lock:
            zset = self._get(key)
            if zset is not None:
                zset.drop(member)
                if not zset.scores:
                    self._sets.pop(key, None)
                    self._expires.pop(key, None)

    def _mend(self, key, changes):
        with self._lock:
            zset = self._get(key)
            if zset is None:
                zset = self._sets[key] = _SortedSet()
            done = 0
            for member, was, now in changes:
                if zset.scores.get(member) != was:
                    continue
                if now is None:
                    zset.drop(member)
                else:
                    zset.put(member, float(now))
                done += 1
            if not zset.scores:
                self._sets.pop(key, None)
                self._expires.pop(key, None)
            return done

    def rank(self, key, member):
        with self._lock:
            zset = self._get(key)
            if zset is None or member not in zset.scores:
                return None
            return bisect.bisect_left(zset.order, (zset.scores[member], member))

    def score(self, key, member):
        with self._lock:
            zset = self._get(key)
            return None if zset is None else zset.scores.get(member)

    def incr(self, key, member):
        with self._lock:
            zset = self._get(key)
            if zset is None:
                zset = self._sets[key] = _SortedSet()
            score = zset.scores.get(member, 0.0) + 1
            zset.put(member, score)
            return score

    def range(self, key, start, stop):
        with self._lock:
            zset = self._get(key)
            if zset is None:
                return []
            n = len(zset.order)
            start = max(start + n if start < 0 else start, 0)
            stop = stop + n if stop < 0 else stop
            return [(m, s) for s, m in zset.order[start : stop + 1]]

    def count(self, key):
        with self._lock:
            zset = self._get(key)
            return 0 if zset is None else len(zset.scores)

    def delete(self, key):
        with self._lock:
            self._sets.pop(key, None)
            self._expires.pop(key, None)

    def exists(self, key):
        with self._lock:
            return self._get(key) is not None

    def expire(self, key, seconds):
        with self._lock:
            if self._get(key) is not None:
                self._expires[key] = time.monotonic() + seconds


def get_rank_store() -> RankStore:
    """The process's store, made on first use from ``settings.LEADERBOARD_REDIS_URL``."""
    global _store
    if _store is None:
        with _store_lock:
            if _store is None:
                url = getattr(settings, "LEADERBOARD_REDIS_URL", None)
                _store = RedisRankStore(url) if url else MemoryRankStore()
    return _store
