"""Daily streaks count consecutive UTC days."""

import datetime as dt

import pytest

from records.streaks import current_streak, longest_streak

D = dt.date(2026, 11, 22)


def days(*offsets):
    return [D + dt.timedelta(days=o) for o in offsets]


@pytest.mark.parametrize(
    ("offsets", "expected"),
    [((), 0), ((0,), 1), ((0, 1, 2), 3), ((0, 1, 3, 4, 5), 3), ((2, 0, 1, 1), 3), ((0, 2, 4), 1)],
)
def test_longest_streak(offsets, expected):
    """The longest run of consecutive days; order and duplicates do not matter."""
    assert longest_streak(days(*offsets)) == expected


def test_current_streak_ends_today_or_yesterday():
    """Today's streak counts back from today, or from yesterday while today is still open."""
    assert current_streak(days(-2, -1, 0), today=D) == 3
    assert current_streak(days(-3, -2, -1), today=D) == 3
    assert current_streak(days(-3, -2), today=D) == 0


def test_streak_crosses_month_and_year_ends():
    """Calendar days, not day-of-month numbers."""
    assert longest_streak([dt.date(2026, 12, 31), dt.date(2027, 1, 1)]) == 2
