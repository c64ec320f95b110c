"""Daily streaks: runs of consecutive UTC days."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable


def longest_streak(days: Iterable[dt.date]) -> int:
    """The longest run of consecutive calendar days among ``days`` (duplicates count once)."""
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(set(days)):
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    return best


def current_streak(days: Iterable[dt.date], today: dt.date) -> int:
    """The run of consecutive days ending today, or yesterday if today is not played yet."""
    played = set(days)
    day = today if today in played else today - dt.timedelta(days=1)
    run = 0
    while day in played:
        run += 1
        day -= dt.timedelta(days=1)
    return run
