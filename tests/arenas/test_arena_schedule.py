"""The standing schedule of arenas: made once in a fresh deployment by the scheduler's job,
kept as an admin leaves it, its start times counted from a fixed epoch; and the friends' "set
up an arena" form."""

import importlib
import io
import re
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from arenas.models import Arena, ArenaPlayer, ArenaSchedule
from arenas.schedule import make_coming, series_name
from deploy import scheduler
from games.models import Variant


def run_the_scheduler_s_arena_job() -> None:
    """`run_arenas` as the scheduler's job list runs it every minute."""
    (job,) = [job for job in scheduler.JOBS if job.command == "run_arenas"]
    call_command(job.command, *job.args, stdout=io.StringIO())


@pytest.mark.django_db
def test_a_fresh_deployment_s_scheduler_makes_the_standard_schedule():
    """The scheduler's own job leaves an active schedule of each game, and their arenas."""
    run_the_scheduler_s_arena_job()
    schedules = ArenaSchedule.objects.filter(active=True)
    assert sorted(s.variant for s in schedules) == sorted(Variant.values)
    assert {(s.every_minutes, s.length_minutes) for s in schedules} == {(60, 30)}
    assert Arena.objects.filter(schedule__isnull=False).exists()


@pytest.mark.django_db
def test_schedule_rows_an_admin_deleted_do_not_come_back():
    run_the_scheduler_s_arena_job()
    ArenaSchedule.objects.all().delete()
    run_the_scheduler_s_arena_job()
    assert not ArenaSchedule.objects.exists()


@pytest.mark.django_db
def test_schedule_rows_an_admin_deactivated_stay_inactive():
    run_the_scheduler_s_arena_job()
    ArenaSchedule.objects.update(active=False)
    run_the_scheduler_s_arena_job()
    assert ArenaSchedule.objects.count() == len(Variant.values)
    assert not ArenaSchedule.objects.filter(active=True).exists()


@pytest.mark.django_db
def test_a_database_with_its_own_schedule_gets_no_standard_one():
    ArenaSchedule.objects.create(variant="queenie", every_minutes=120)
    run_the_scheduler_s_arena_job()
    assert list(ArenaSchedule.objects.values_list("variant", flat=True)) == ["queenie"]


def upgrade_to_the_marker() -> None:
    """The data step of the migration that adds the marker, on the database as it is."""
    added = importlib.import_module("arenas.migrations.0003_standard_schedule_made")
    added.mark_a_database_in_use(apps, SimpleNamespace(connection=connection))


@pytest.mark.django_db
def test_a_database_in_use_before_the_marker_gets_no_standard_schedule():
    """Its admin deleted every schedule row; the arenas they made are left."""
    at = datetime(2026, 3, 1, 12, tzinfo=UTC)
    Arena.objects.create(name="Earlier", variant="penguin", starts_at=at, ends_at=at + HOUR)
    upgrade_to_the_marker()
    run_the_scheduler_s_arena_job()
    assert not ArenaSchedule.objects.exists()


@pytest.mark.django_db
def test_an_empty_database_gets_the_standard_schedule_after_the_upgrade():
    upgrade_to_the_marker()
    run_the_scheduler_s_arena_job()
    assert ArenaSchedule.objects.count() == len(Variant.values)


def scheduled_starts(every: ArenaSchedule) -> list[datetime]:
    return list(Arena.objects.filter(schedule=every).values_list("starts_at", flat=True))


@pytest.mark.django_db
def test_an_interval_that_does_not_divide_a_day_keeps_one_series_across_midnight():
    """Runs before and after midnight make one series 25 minutes apart, not a second one from
    the new day's midnight."""
    every = ArenaSchedule.objects.create(variant="penguin", every_minutes=25, length_minutes=20)
    make_coming(hours=1, now=datetime(2026, 3, 1, 23, 50, tzinfo=UTC))
    make_coming(hours=1, now=datetime(2026, 3, 2, 0, 5, tzinfo=UTC))
    starts = scheduled_starts(every)
    assert len(starts) >= 3
    assert {later - earlier for earlier, later in pairwise(starts)} == {timedelta(minutes=25)}


@pytest.mark.django_db
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


@pytest.mark.django_db
def test_making_the_coming_arenas_of_no_schedule_makes_none():
    """An empty choice of schedules is none of them, not all."""
    ArenaSchedule.objects.create(variant="penguin")
    assert make_coming(schedules=ArenaSchedule.objects.none()) == 0
    assert not Arena.objects.exists()


@pytest.fixture
def stopped_clock(monkeypatch) -> datetime:
    """The clock stopped at twenty past this hour, for a fixture and the admin's request after
    it alike: an hour's turn between the two would add or drop a coming arena."""
    at = timezone.now().replace(minute=20, second=0, microsecond=0)
    monkeypatch.setattr(timezone, "now", lambda: at)
    return at


@pytest.fixture
def hourly(player, stopped_clock) -> ArenaSchedule:
    """Penguin every hour at :00, 30 minutes long, its day of arenas made, one of them running
    and one coming that a player joined (the clock stopped)."""
    every = ArenaSchedule.objects.create(variant="penguin", every_minutes=60, length_minutes=30)
    Arena.objects.create(
        schedule=every,
        variant="penguin",
        name="Running",
        starts_at=stopped_clock.replace(minute=0),
        ends_at=stopped_clock + HOUR,
    )
    make_coming()
    ArenaPlayer.objects.create(arena=coming_arenas(every).last(), player=player)
    return every


HOUR = timedelta(hours=1)


def coming_arenas(every: ArenaSchedule):
    return Arena.objects.filter(schedule=every, starts_at__gt=timezone.now())


def links(every: ArenaSchedule) -> dict[datetime, str]:
    """The coming arenas' public ids (what their links name), by start."""
    return dict(coming_arenas(every).values_list("starts_at", "public_id"))


def edit(admin_client, every: ArenaSchedule, **changes):
    return admin_client.post(
        reverse("admin:arenas_arenaschedule_change", args=[every.pk]),
        schedule_form(**changes),
        follow=True,
    )


def schedule_form(**changes) -> dict:
    form = {
        "variant": "penguin",
        "every_minutes": 60,
        "offset_minutes": 0,
        "length_minutes": 30,
        "active": "on",
    }
    return {name: value for name, value in {**form, **changes}.items() if value is not None}


def said(answer) -> str:
    return " ".join(str(message) for message in answer.context["messages"])


@pytest.mark.django_db
def test_an_admin_s_edit_makes_the_coming_arenas_nobody_joined_again(admin_client, hourly):
    joined = coming_arenas(hourly).filter(players__isnull=False).get()
    answer = edit(admin_client, hourly, offset_minutes=15, length_minutes=45)
    assert answer.status_code == 200
    others = coming_arenas(hourly).exclude(pk=joined.pk)
    assert len(others) == 24
    assert {(a.starts_at.minute, a.ends_at - a.starts_at) for a in others} == {
        (15, timedelta(minutes=45))
    }
    # The joined one stays as it was, and the running one too.
    joined_now = Arena.objects.get(pk=joined.pk)
    assert (joined_now.starts_at.minute, joined_now.ends_at) == (0, joined.ends_at)
    assert Arena.objects.filter(schedule=hourly, name="Running").exists()
    assert "removed 23 coming arenas nobody had joined, made 24" in said(answer)
    assert "1 coming arenas someone has joined stay as they were" in said(answer)


@pytest.mark.django_db
def test_an_admin_s_save_that_changes_nothing_keeps_the_coming_arenas(admin_client, hourly):
    before = links(hourly)
    answer = edit(admin_client, hourly)
    assert links(hourly) == before
    assert "coming arenas" not in said(answer)


@pytest.mark.django_db
def test_a_new_length_changes_the_coming_arenas_in_place(admin_client, hourly):
    """Their starts stay the schedule's, so they keep their public ids: a link shared, a page
    open or a reminder still finds them."""
    before = links(hourly)
    answer = edit(admin_client, hourly, length_minutes=45)
    assert links(hourly) == before
    lengths = {a.ends_at - a.starts_at for a in coming_arenas(hourly).filter(players=None)}
    assert lengths == {timedelta(minutes=45)}
    joined = coming_arenas(hourly).get(players__isnull=False)
    assert joined.ends_at - joined.starts_at == timedelta(minutes=30)
    assert "removed 0 coming arenas nobody had joined, changed 23 in place" in said(answer)


@pytest.mark.django_db
def test_a_new_game_changes_the_coming_arenas_in_place(admin_client, hourly):
    before = links(hourly)
    edit(admin_client, hourly, variant="queenie")
    assert links(hourly) == before
    unjoined = coming_arenas(hourly).filter(players=None)
    assert {a.variant for a in unjoined} == {"queenie"}
    assert all(a.name == "Hourly Queenie arena" for a in unjoined)


@pytest.mark.django_db
def test_a_new_interval_keeps_the_arenas_of_the_starts_it_keeps(admin_client, hourly):
    """Every 90 minutes from midnight UTC: the hourly arenas at 00:00, 03:00 ... keep their ids,
    the others nobody joined go, and the ones at 01:30, 04:30 ... are new."""
    before = links(hourly)
    joined = coming_arenas(hourly).get(players__isnull=False)
    edit(admin_client, hourly, every_minutes=90)
    after = links(hourly)
    both = set(before) & set(after)
    assert both == {at for at in before if at.hour % 3 == 0} | {joined.starts_at}
    assert {at: after[at] for at in both} == {at: before[at] for at in both}
    assert {f"{at.hour % 3}:{at.minute}" for at in set(after) - both} == {"1:30"}


@pytest.mark.django_db
def test_an_admin_who_deactivates_a_schedule_removes_its_coming_arenas(admin_client, hourly):
    joined = coming_arenas(hourly).filter(players__isnull=False).get()
    edit(admin_client, hourly, active=None)
    assert list(coming_arenas(hourly)) == [joined]


@pytest.mark.django_db
def test_an_admin_who_deletes_a_schedule_removes_its_coming_arenas(admin_client, hourly):
    joined = coming_arenas(hourly).filter(players__isnull=False).get()
    answer = admin_client.post(
        reverse("admin:arenas_arenaschedule_delete", args=[hourly.pk]), {"post": "yes"}, follow=True
    )
    assert not ArenaSchedule.objects.exists()
    assert set(Arena.objects.values_list("name", flat=True)) == {"Running", joined.name}
    assert "removed 23 coming arenas nobody had joined." in said(answer)


@pytest.mark.django_db
def test_the_admin_s_delete_action_removes_the_schedules_coming_arenas(admin_client, hourly):
    admin_client.post(
        reverse("admin:arenas_arenaschedule_changelist"),
        {"action": "delete_selected", "_selected_action": [hourly.pk], "post": "yes"},
    )
    assert not ArenaSchedule.objects.exists()
    assert Arena.objects.count() == 2  # the running one and the one joined


@pytest.mark.django_db
def test_an_admin_s_edit_in_the_list_changes_the_coming_arenas(admin_client, hourly):
    before = links(hourly)
    admin_client.post(
        reverse("admin:arenas_arenaschedule_changelist"),
        {
            "form-TOTAL_FORMS": 1,
            "form-INITIAL_FORMS": 1,
            "form-0-id": hourly.pk,
            "form-0-every_minutes": 60,
            "form-0-offset_minutes": 0,
            "form-0-length_minutes": 20,
            "form-0-active": "on",
            "_save": "Save",
        },
    )
    lengths = {a.ends_at - a.starts_at for a in coming_arenas(hourly).filter(players=None)}
    assert lengths == {timedelta(minutes=20)}
    assert links(hourly) == before


def set_up_an_arena(client, **changes):
    """The form sent as a browser would, with a start typed 12 hours from now in UTC."""
    start = (timezone.now() + 12 * HOUR).astimezone(UTC).replace(second=0, microsecond=0)
    form = {
        "variant": "penguin",
        "starts_at": f"{start:%Y-%m-%dT%H:%M}",
        "minutes": 30,
        "race_time_limit_s": 60,
        "visibility": "link",
        **changes,
    }
    return client.post(reverse("arenas:new"), form), start


@pytest.mark.django_db
def test_a_start_typed_in_the_player_s_time_is_read_at_its_utc_instant(client):
    """India is 5 h 30 ahead of UTC: 12:00 typed there is 06:30 UTC."""
    answer, typed = set_up_an_arena(client, minutes_ahead_of_utc=330)
    arena = Arena.objects.get()
    assert answer.url == arena.get_absolute_url()
    assert arena.starts_at == typed - timedelta(hours=5, minutes=30)


@pytest.mark.django_db
def test_a_start_typed_behind_utc_is_read_later(client):
    answer, typed = set_up_an_arena(client, minutes_ahead_of_utc=-300)
    assert Arena.objects.get().starts_at == typed + timedelta(hours=5)


@pytest.mark.django_db
def test_without_scripts_the_form_says_and_reads_the_start_in_utc(client):
    page = client.get(reverse("arenas:new")).content.decode()
    assert "Starts at (UTC)" in page and "In UTC" in page
    _, typed = set_up_an_arena(client)
    _, typed_again = set_up_an_arena(client, minutes_ahead_of_utc="")
    assert [a.starts_at for a in Arena.objects.all()] == [typed, typed_again]


@pytest.mark.django_db
@pytest.mark.parametrize("ahead", ["Europe/Paris", "9999", "-721", "1.5"])
def test_a_time_zone_that_cannot_be_read_is_a_clear_error(client, ahead):
    answer, _ = set_up_an_arena(client, minutes_ahead_of_utc=ahead)
    assert answer.status_code == 200
    assert "time zone came with the start but could not be read" in answer.content.decode()
    assert not Arena.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("minutes", [5, 180])
def test_an_arena_lasts_from_5_to_180_minutes(client, minutes):
    set_up_an_arena(client, minutes=minutes)
    arena = Arena.objects.get()
    assert arena.ends_at - arena.starts_at == timedelta(minutes=minutes)


@pytest.mark.django_db
@pytest.mark.parametrize("minutes", [4, 181])
def test_a_length_outside_5_to_180_minutes_is_refused(client, minutes):
    answer, _ = set_up_an_arena(client, minutes=minutes)
    assert "Pick one of the lengths (5 to 180 minutes)." in answer.content.decode()
    assert not Arena.objects.exists()


def test_a_browser_in_india_sets_the_start_in_its_own_time(browser, live_url):
    """The page shows and reads the start in the browser's time (5 h 30 ahead of UTC), the
    server's suggested start moved to it, and the arena starts at the instant typed; the arena's
    page and the arenas' list then show its times in that time too (the server's UTC as their
    titles)."""
    context = browser.new_context(timezone_id="Asia/Kolkata")
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live_url}/arenas/new/")
        page.wait_for_selector("#arena-form[data-local-time]")
        assert page.inner_text("label[for=id_starts_at]") == "Starts at (your time):"
        # Chromium names the zone as ICU does (Asia/Calcutta for a while), after the offset.
        help_text = page.inner_text("#id_starts_at_helptext")
        assert help_text.startswith("In your time: Asia/") and help_text.endswith(", UTC+05:30.")
        start = page.locator("#id_starts_at")
        suggested = datetime.fromisoformat(start.get_attribute("value")).replace(tzinfo=UTC)
        assert start.input_value() == f"{suggested + timedelta(hours=5, minutes=30):%Y-%m-%dT%H:%M}"

        typed = (datetime.now(UTC) + 3 * HOUR).replace(second=0, microsecond=0)
        local = typed + timedelta(hours=5, minutes=30)
        start.fill(f"{local:%Y-%m-%dT%H:%M}")
        page.check("input[name=visibility][value=public]")
        page.click("form button[type=submit]")
        page.wait_for_url(re.compile(r"/arenas/(?!new/)[\w-]+/$"))
        arena_id = page.url.rstrip("/").rsplit("/", 1)[1]
        facts = page.request.get(f"{live_url}/api/arenas/{arena_id}/").json()
        assert datetime.fromisoformat(facts["starts_at"]) == typed

        shown = f"{local:%a} {local.day} {local:%b}, {local:%H:%M}"  # "D j M, H:i"
        ends = local + timedelta(minutes=30)
        line = page.inner_text("#arena-facts")
        assert f" · {shown} to {ends:%H:%M} your time · " in line, line
        assert (
            page.get_attribute("#arena-facts time", "title")
            == f"{typed:%a} {typed.day} {typed:%b}, {typed:%H:%M} UTC"
        )
        page.goto(f"{live_url}/arenas/")
        assert page.inner_text(f"tr[data-arena='{arena_id}'] time") == shown
        assert "Starts (your time)" in page.inner_text("#upcoming-h + table thead")
    finally:
        context.close()
    assert not errors


@pytest.mark.parametrize(
    ("variant", "every", "name"),
    [
        ("penguin", 60, "Hourly Penguin arena"),
        ("queenie", 24 * 60, "Daily Queenie arena"),
        ("spiderweb", 180, "Spiderweb arena, every 3 hours"),
        ("eighty-thieves", 25, "Eighty Thieves arena, every 25 minutes"),
        ("penguin", 1, "Penguin arena, every 1 minute"),
    ],
)
def test_a_schedule_s_arenas_are_named_after_how_often_they_come(variant, every, name):
    """No time of day in the name: the pages show each start in the reader's own time."""
    assert series_name(ArenaSchedule(variant=variant, every_minutes=every)) == name
