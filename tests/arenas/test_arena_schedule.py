"""The standing schedule of arenas: made once in a fresh deployment by the scheduler's job,
kept as an admin leaves it, its start times counted from a fixed epoch; and the friends' "set
up an arena" form."""

import io
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from django.core.management import call_command

from arenas.models import Arena, ArenaSchedule
from arenas.schedule import make_coming
from deploy import scheduler
from games.models import Variant

pytestmark = pytest.mark.django_db


def run_the_scheduler_s_arena_job() -> None:
    """`run_arenas` as the scheduler's job list runs it every minute."""
    (job,) = [job for job in scheduler.JOBS if job.command == "run_arenas"]
    call_command(job.command, *job.args, stdout=io.StringIO())


def test_a_fresh_deployment_s_scheduler_makes_the_standard_schedule():
    """The scheduler's own job leaves an active schedule of each game, and their arenas."""
    run_the_scheduler_s_arena_job()
    schedules = ArenaSchedule.objects.filter(active=True)
    assert sorted(s.variant for s in schedules) == sorted(Variant.values)
    assert {(s.every_minutes, s.length_minutes) for s in schedules} == {(60, 30)}
    assert Arena.objects.filter(schedule__isnull=False).exists()


def test_schedule_rows_an_admin_deleted_do_not_come_back():
    run_the_scheduler_s_arena_job()
    ArenaSchedule.objects.all().delete()
    run_the_scheduler_s_arena_job()
    assert not ArenaSchedule.objects.exists()


def test_schedule_rows_an_admin_deactivated_stay_inactive():
    run_the_scheduler_s_arena_job()
    ArenaSchedule.objects.update(active=False)
    run_the_scheduler_s_arena_job()
    assert ArenaSchedule.objects.count() == len(Variant.values)
    assert not ArenaSchedule.objects.filter(active=True).exists()


def test_a_database_with_its_own_schedule_gets_no_standard_one():
    ArenaSchedule.objects.create(variant="queenie", every_minutes=120)
    run_the_scheduler_s_arena_job()
    assert list(ArenaSchedule.objects.values_list("variant", flat=True)) == ["queenie"]


def scheduled_starts(every: ArenaSchedule) -> list[datetime]:
    return list(Arena.objects.filter(schedule=every).values_list("starts_at", flat=True))


def test_an_interval_that_does_not_divide_a_day_keeps_one_series_across_midnight():
    """Runs before and after midnight make one series 25 minutes apart, not a second one from
    the new day's midnight."""
    every = ArenaSchedule.objects.create(variant="penguin", every_minutes=25, length_minutes=20)
    make_coming(hours=1, now=datetime(2026, 3, 1, 23, 50, tzinfo=UTC))
    make_coming(hours=1, now=datetime(2026, 3, 2, 0, 5, tzinfo=UTC))
    starts = scheduled_starts(every)
    assert len(starts) >= 3
    assert {later - earlier for earlier, later in pairwise(starts)} == {timedelta(minutes=25)}


def test_an_hourly_schedule_keeps_its_minute_past_each_hour_across_midnight():
    every = ArenaSchedule.objects.create(variant="penguin", every_minutes=60, offset_minutes=10)
    make_coming(hours=1, now=datetime(2026, 3, 1, 22, 30, tzinfo=UTC))
    make_coming(hours=1, now=datetime(2026, 3, 1, 23, 50, tzinfo=UTC))
    make_coming(hours=1, now=datetime(2026, 3, 2, 0, 30, tzinfo=UTC))
    assert [f"{at:%d %H:%M}" for at in scheduled_starts(every)] == [
        "01 23:10",
        "02 00:10",
        "02 01:10",
    ]
