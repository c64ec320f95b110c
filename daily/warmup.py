"""Picking tomorrow's deals in the background, so nobody waits for the solver at midnight.

The first visit of the daily page in a process hands the background worker
(games/worker.py) the picking of any missing deal of today and tomorrow (``manage.py precompute_daily`` does the same ahead of time, and is
what a deployment should run daily). Several processes may pick the same day at once: the pick
is a pure function and the unique constraint keeps one row.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from daily.actions import get_challenge
from daily.models import DailyChallenge
from games import worker
from games.models import Variant

logger = logging.getLogger(__name__)

_running = threading.Lock()


def missing_days(today: dt.date) -> list[tuple[str, dt.date]]:

    wanted = [(v, today + dt.timedelta(days=i)) for i in (0, 1) for v in Variant.values]
    have = set(
        DailyChallenge.objects.filter(day__in=[today, today + dt.timedelta(days=1)]).values_list(
            "variant", "day"
        )
    )
    return [job for job in wanted if job not in have]


def _pick(jobs: list[tuple[str, dt.date]]) -> None:

    try:
        for variant, day in jobs:
            get_challenge(variant, day)
    except Exception:
        logger.exception("picking the daily deals in the background failed")


def ensure_picked(today: dt.date) -> bool:
    """Start picking today's and tomorrow's missing deals unless that is already under way."""
    jobs = missing_days(today)
    if not jobs or not _running.acquire(blocking=False):
        return False
    return worker.submit(_pick, jobs, on_done=lambda _: _running.release())
