"""The in-process store behaves as Redis does, so the service acts the same with or without it."""

import os
import uuid

import pytest

from games.rankstore import MemoryRankStore, RedisRankStore


def _stores():
    yield pytest.param(MemoryRankStore, id="memory")
    url = os.environ.get("REDIS_URL")
    yield pytest.param(
        (lambda: RedisRankStore(url)) if url else None,
        id="redis",
        marks=pytest.mark.skipif(not url, reason="REDIS_URL is not set"),
    )


@pytest.fixture(params=list(_stores()))
def store(request):
    return request.param()


@pytest.fixture
def key(store):
    name = f"test:rankstore:{uuid.uuid4().hex}"
    yield name
    store.delete(name)


def test_lowest_score_ranks_first(store, key):
    """Ranks count from 0 in ascending score order."""
    store.set_many(key, {"slow": 30.0, "fast": 10.0, "middle": 20.0})
    assert [m for m, _ in store.range(key, 0, -1)] == ["fast", "middle", "slow"]
    assert store.rank(key, "slow") == 2
    assert store.rank(key, "absent") is None


def test_ties_order_by_member(store, key):
    """Equal scores fall back to the member's text, as Redis orders them."""
    store.set_many(key, {"b": 1.0, "a": 1.0, "c": 0.5})
    assert store.range(key, 0, -1) == [("c", 0.5), ("a", 1.0), ("b", 1.0)]


def test_setting_again_moves_a_member(store, key):
    """A member appears once; a new score replaces the old one."""
    store.set(key, "p", 5.0)
    store.set(key, "q", 3.0)
    store.set(key, "p", 1.0)
    assert store.count(key) == 2
    assert store.rank(key, "p") == 0
    assert store.score(key, "p") == 1.0


def test_range_takes_inclusive_and_negative_bounds(store, key):
    """``range`` slices like ZRANGE: inclusive stop, negatives from the end."""
    store.set_many(key, {str(i): float(i) for i in range(10)})
    assert [m for m, _ in store.range(key, 2, 4)] == ["2", "3", "4"]
    assert [m for m, _ in store.range(key, -2, -1)] == ["8", "9"]
    assert store.range(key, 20, 30) == []


def test_remove_and_delete(store, key):
    """Removing the last member or deleting the key leaves no key behind."""
    store.set(key, "x", 1.0)
    assert store.exists(key)
    store.remove(key, "x")
    assert not store.exists(key)
    store.set(key, "y", 1.0)
    store.delete(key)
    assert store.count(key) == 0
    assert store.score(key, "y") is None


def test_expire_forgets_the_key(store, key):
    """An expired board is gone (lazily, for the in-process store)."""
    store.set(key, "x", 1.0)
    store.expire(key, 1)
    assert store.exists(key)
    import time

    time.sleep(1.2)
    assert not store.exists(key)


def test_incr_counts_up_from_nothing(store, key):
    """A member's score goes up by one a call, from 0 when it is absent."""
    assert store.incr(key, "version") == 1
    assert store.incr(key, "version") == 2
    assert store.score(key, "version") == 2


def test_many_reads_answer_as_one_read_each(store, key):
    """Several reads at once answer as each would alone, in order, None where a key or member
    is absent."""
    store.set_many(key, {"a": 1.5, "b": 2.0, "c": 3.0})
    calls = [
        ("score", (key, "b")),
        ("score", (key, "absent")),
        ("score", (f"{key}:none", "a")),
        ("range", (key, 1, 2)),
        ("range", (f"{key}:none", 0, 5)),
        ("count", (key,)),
        ("rank", (key, "c")),
        ("rank", (key, "absent")),
    ]
    assert store.many(calls) == [2.0, None, None, [("b", 2.0), ("c", 3.0)], [], 3, 2, None]


def test_mend_writes_what_is_wanted_where_nothing_changed_since_it_was_seen(store, key):
    """A rebuild reads the set (`seen`), then the record (`wanted`): each member the record moved
    is written, a member the record no longer holds leaves, a new one comes, and a member whose
    score is already right is not written at all."""
    store.set_many(key, {"moved": 5.0, "gone": 1.0, "right": 2.0})
    seen = dict(store.range(key, 0, -1))
    changed = store.mend(key, seen, {"moved": 7.0, "right": 2.0, "new": 3.0})
    assert store.range(key, 0, -1) == [("right", 2.0), ("new", 3.0), ("moved", 7.0)]
    assert changed == 3


def test_mend_keeps_a_write_made_after_the_set_was_seen(store, key):
    """A result committed after the rebuild read the record writes its member before the
    rebuild's writes land: that newer score stays, and so does a member who came meanwhile."""
    store.set_many(key, {"racing": 5.0, "other": 1.0})
    seen = dict(store.range(key, 0, -1))
    wanted = {"racing": 6.0, "other": 4.0}  # the record as read
    store.set_many(key, {"racing": 9.0, "newcomer": 2.0})  # a close's write since
    store.mend(key, seen, wanted)
    assert store.range(key, 0, -1) == [("newcomer", 2.0), ("other", 4.0), ("racing", 9.0)]


def test_mend_of_a_lost_set_builds_it_whole(store, key):
    """With nothing seen (the store lost the set), every wanted member is written, however
    many (Redis: more than one script's batch)."""
    wanted = {str(i): float(i) + 0.25 for i in range(1_200)}
    assert store.mend(key, {}, wanted) == 1_200
    assert dict(store.range(key, 0, -1)) == wanted


def test_mend_compares_large_packed_scores_exactly(store, key):
    """Boards pack a standing into one large whole number: a score read back compares equal to
    the one written, so a member nobody wrote since is mended and not skipped."""
    packed = -(4 * 10**9) + 2_500 * 10**5 + 1_234
    store.set(key, "p", float(packed))
    seen = dict(store.range(key, 0, -1))
    assert store.mend(key, seen, {"p": float(packed - 10**9)}) == 1
    assert store.score(key, "p") == float(packed - 10**9)
