"""The periodic commands, on a schedule, for the compose `scheduler` service:

    python -m deploy.scheduler

APScheduler keeps the times (UTC); each job runs one management command in this process and
logs its output. A job that fails is logged and runs again at its next time; a job still running
when its next time comes is not started twice, and runs a busy process missed are made up once,
not once per miss. The missing boards, the daily deals and the pools are also filled when the
scheduler starts, so a fresh deployment (or one that was down at 00:05) does not wait; and
`run_arenas` makes the standard arena schedule in a fresh database, once. Run one scheduler per
deployment: the commands are idempotent, so a second one costs work but breaks nothing.
"""

from __future__ import annotations

import io
import logging
import os
from dataclasses import dataclass, field
from datetime import UTC

from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

log = logging.getLogger("deploy.scheduler")


@dataclass(frozen=True)
class Job:
    command: str
    args: tuple[str, ...]
    trigger: BaseTrigger
    at_start: bool = False
    """Also run once when the scheduler starts (a fresh deployment needs it before its time)."""
    why: str = field(default="", compare=False)
    name: str = ""
    """The job's id when one command is scheduled twice (default: the command)."""

    @property
    def id(self) -> str:
        return self.name or self.command


JOBS = (
    Job(
        "close_overdue_races",
        (),
        IntervalTrigger(minutes=1, timezone=UTC),
        why="races nobody watched when their time ran out",
    ),
    Job(
        "run_arenas",
        ("--standard-schedule",),
        IntervalTrigger(minutes=1, timezone=UTC),
        why="the scheduled arenas of the next day, and placing arena players no page placed; "
        "the standard schedule once, in a fresh database",
    ),
    Job(
        "analyse_replays",
        (),
        IntervalTrigger(minutes=1, timezone=UTC),
        why="the losing-move marks of finished games no web process searched (restarts, races)",
    ),
    Job(
        "assess_games",
        (),
        IntervalTrigger(minutes=1, timezone=UTC),
        why="the fair-play assessments of ranked games no web process made (restarts, a full queue)",
    ),
    Job(
        "rebuild_leaderboards",
        ("--missing",),
        IntervalTrigger(minutes=1, timezone=UTC),
        at_start=True,
        why="boards the rank store lost (a Redis restart): requests never rebuild one",
    ),
    Job(
        "rebuild_leaderboards",
        ("--days", "2"),
        CronTrigger(minute=45, timezone=UTC),
        why="the recent boards afresh, mending a write lost while Redis was unreachable",
        name="rebuild_recent_leaderboards",
    ),
    Job(
        "precompute_daily",
        ("--days", "7"),
        CronTrigger(hour=0, minute=5, timezone=UTC),
        at_start=True,
        why="the coming days' daily deals, picked ahead (the solver may take minutes)",
    ),
    Job(
        "stock_winnable_deals",
        (),
        IntervalTrigger(minutes=5, timezone=UTC),
        at_start=True,
        why="the pools of proved-winnable deals, a race pool as deep as the coming arenas' crowds",
    ),
)


def run_command(command: str, *args: str) -> bool:
    """Run one management command; log its output, or its failure. True if it succeeded."""
    from django.core.management import call_command
    from django.db import connections

    out = io.StringIO()
    try:
        call_command(command, *args, stdout=out, stderr=out, verbosity=0)
    except Exception:
        log.exception("%s failed; output: %s", command, out.getvalue().strip())
        return False
    finally:
        # A job runs in one of the scheduler's threads: give its connections back.
        connections.close_all()
    log.info("%s: %s", command, out.getvalue().strip() or "done")
    return True


def build_scheduler(jobs=JOBS, kind=BlockingScheduler):
    scheduler = kind(
        timezone=UTC,
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600},
    )
    for job in jobs:
        scheduler.add_job(
            run_command, job.trigger, args=(job.command, *job.args), id=job.id, name=job.why
        )
        if job.at_start:
            scheduler.add_job(run_command, args=(job.command, *job.args), id=f"{job.id}@start")
    return scheduler


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solitaire_site.settings")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    django.setup()
    scheduler = build_scheduler()
    for job in scheduler.get_jobs():
        log.info("scheduled %s (%s)", job.id, job.trigger)
    scheduler.start()


if __name__ == "__main__":
    main()
