"""Which open quick race a player goes to (races/matching.py): the rule on plain values."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from races.matching import OpenRace, mean_rating, pick


def race(key, *ratings, own=None):
    return OpenRace(key=key, ratings=tuple(ratings), own=own)


@pytest.mark.parametrize(
    "races, expected",
    [
        ([], None),
        ([race(1, 1500, own=1500)], 1),
        # nearest mean rating wins, whatever the order or the size
        ([race(1, 2000, 2100, own=1200), race(2, 1100, own=1200)], 2),
        ([race(1, 1100, own=2050), race(2, 2000, 2100, own=2050)], 2),
        # equally near: the fuller, then the older (first listed)
        ([race(1, 1400, own=1500), race(2, 1600, 1600, own=1500)], 2),
        ([race(1, 1600, 1600, own=1500), race(2, 1400, 1400, own=1500)], 1),
        ([race(1, 1500, own=1500), race(2, 1500, own=1500)], 1),
        # a guest (no rating) goes to the fullest race
        ([race(1, 900), race(2, 2000, 2000, 2000)], 2),
        # an empty race (its last racer left) only when no other is open
        ([race(1, own=1500), race(2, 2400, own=1500)], 2),
        ([race(1), race(2, 900)], 2),
        ([race(1, own=1500)], 1),
        # racers without a rating count at 1500
        ([race(1, None, None, own=1520), race(2, 1800, own=1520)], 1),
    ],
)
def test_the_player_goes_to_the_nearest_then_fullest_then_oldest_race(races, expected):
    assert pick(races) == expected


@given(
    st.lists(st.lists(st.floats(800, 2500), min_size=1, max_size=8), min_size=1, max_size=6),
    st.floats(800, 2500),
)
def test_no_open_race_is_nearer_than_the_one_picked(groups, own):
    races = [race(i, *group, own=own) for i, group in enumerate(groups)]
    chosen = next(r for r in races if r.key == pick(races))
    assert all(abs(mean_rating(chosen) - own) <= abs(mean_rating(r) - own) for r in races)


@given(st.lists(st.integers(0, 8), min_size=1, max_size=6))
def test_an_empty_race_is_picked_only_when_all_are_empty(sizes):
    races = [race(i, *([1500.0] * size)) for i, size in enumerate(sizes)]
    chosen = next(r for r in races if r.key == pick(races))
    assert chosen.ratings or not any(r.ratings for r in races)
