"""The compose `scheduler` service (deploy/scheduler.py): the periodic commands run at their
times and at start, and a failing command is logged without stopping the others."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import Counter

import pytest
from apscheduler.schedulers.background import BackgroundScheduler

from deploy import scheduler as schedule

MINUTELY = (
    "close_overdue_races",
    "run_arenas",
    "analyse_replays",
    "assess_games",
    "rebuild_leaderboards",
)


def test_a_started_scheduler_fills_the_days_pools_and_boards_at_once_and_then_on_time(
    monkeypatch,
):
    ran = []
    monkeypatch.setattr(schedule, "run_command", lambda *command: ran.append(command))
    at_start = [
        ("precompute_daily", "--days", "7"),
        ("rebuild_leaderboards", "--missing"),
        ("stock_winnable_deals",),
    ]
    scheduler = schedule.build_scheduler(kind=BackgroundScheduler)
    scheduler.start()
    try:
        deadline = time.monotonic() + 10
        while not Counter(at_start) <= Counter(ran) and time.monotonic() < deadline:
            time.sleep(0.05)
        # A minute that turned during the wait also ran the jobs due every minute, on time.
        on_time = {(job.command, *job.args) for job in schedule.JOBS if job.id in MINUTELY}
        assert Counter(at_start) <= Counter(ran)
        assert set((Counter(ran) - Counter(at_start)).elements()) <= on_time
        now = dt.datetime.now(dt.UTC)
        due = {job.id: job.next_run_time for job in scheduler.get_jobs()}
    finally:
        scheduler.shutdown(wait=False)
    assert set(due) == {
        "close_overdue_races",
        "run_arenas",
        "analyse_replays",
        "assess_games",
        "rebuild_leaderboards",
        "rebuild_recent_leaderboards",
        "precompute_daily",
        "stock_winnable_deals",
    }
    for every_minute in MINUTELY:
        assert dt.timedelta(0) < due[every_minute] - now <= dt.timedelta(minutes=1)
    assert due["rebuild_recent_leaderboards"].minute == 45
    assert (due["precompute_daily"].hour, due["precompute_daily"].minute) == (0, 5)
    assert due["precompute_daily"] - now <= dt.timedelta(days=1)
    # Every 5 minutes: a crowd joining an arena ahead finds its races' deals stocked.
    assert dt.timedelta(0) < due["stock_winnable_deals"] - now <= dt.timedelta(minutes=5)


@pytest.mark.django_db
def test_a_command_s_output_is_logged_and_a_failure_does_not_raise(caplog):
    caplog.set_level(logging.INFO, logger="deploy.scheduler")
    assert schedule.run_command("close_overdue_races") is True
    assert "close_overdue_races: closed 0 races" in caplog.text
    assert schedule.run_command("stock_winnable_deals", "no-such-variant") is False
    assert "stock_winnable_deals failed" in caplog.text and "unknown variant" in caplog.text
