"""The standing schedule of arenas: made once in a fresh deployment by the scheduler's job,
kept as an admin leaves it, its start times counted from a fixed epoch; and the friends' "set
up an arena" form."""

import io

import pytest
from django.core.management import call_command

from arenas.models import Arena, ArenaSchedule
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
