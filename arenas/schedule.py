"""The standing schedule: each active `ArenaSchedule` row makes an arena of its game every
`every_minutes` (counted from a fixed epoch, midnight UTC of 1 January 1970, plus its offset),
`length_minutes` long. Making the coming ones is idempotent: one arena per schedule and start (a
unique constraint)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.template.defaultfilters import pluralize
from django.utils import timezone

from arenas import events
from arenas.models import Arena, ArenaPlayer, ArenaSchedule, StandardScheduleMade
from games.models import Variant
from games.rows import one_or_none

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""Where every schedule's series is counted from: one series whatever day a run falls on (counted
from each run's midnight, an interval that does not divide a day, 25 minutes say, began a
second series overlapping the first after each midnight). A midnight is a whole number of days
from it, so an interval that divides a day keeps the start times it had from midnight."""


def starts_between(schedule: ArenaSchedule, start: datetime, end: datetime) -> list[datetime]:
    """The schedule's start times in [start, end)."""
    every = interval(schedule)
    at = series_start(schedule)
    if at < start:
        at += every * -(-(start - at) // every)
    found = []
    while at < end:
        found.append(at)
        at += every
    return found


def interval(schedule: ArenaSchedule) -> timedelta:
    return timedelta(minutes=max(1, schedule.every_minutes))


def series_start(schedule: ArenaSchedule) -> datetime:
    """The first start of the schedule's series: the epoch plus its offset."""
    return EPOCH + timedelta(minutes=schedule.offset_minutes)


def is_a_start(schedule: ArenaSchedule, at: datetime) -> bool:
    """Whether the schedule, as it is, starts an arena at `at` (one of its start times)."""
    return (at - series_start(schedule)) % interval(schedule) == timedelta(0)


def series_name(schedule: ArenaSchedule) -> str:
    """The name of the schedule's arenas, after how often they come ("Hourly Penguin arena"),
    with no time of day in it: the pages show each arena's start in the reader's own time."""
    game, every = Variant(schedule.variant).label, schedule.every_minutes
    if every in (60, 24 * 60):
        return f"{'Hourly' if every == 60 else 'Daily'} {game} arena"
    if every % 60 == 0:
        return f"{game} arena, every {every // 60} hours"
    return f"{game} arena, every {every} minute{pluralize(every)}"


def scheduled(schedule: ArenaSchedule, at: datetime) -> dict:
    """The fields of its arena starting at `at` that the schedule sets."""
    return {
        "name": series_name(schedule),
        "variant": schedule.variant,
        "ends_at": at + timedelta(minutes=schedule.length_minutes),
    }


MAKE_AHEAD_HOURS = 24


def make_coming(hours: int = MAKE_AHEAD_HOURS, now=None, schedules=None) -> int:
    """Make the scheduled arenas starting in the next `hours`, of the active `schedules` (all
    of them by default); how many were new."""
    now = now or timezone.now()
    if schedules is None:
        schedules = ArenaSchedule.objects.all()
    until = now + timedelta(hours=hours)
    return sum(
        make_coming_of(schedule.pk, now, until) for schedule in schedules.filter(active=True)
    )


def make_coming_of(pk: int, now: datetime, until: datetime) -> int:
    """Make one schedule's arenas starting in [now, until), under a lock on its row: an admin's
    edit of it (`remake_coming`) waits for this to commit, or this for the edit, reading the
    schedule afresh after it (a schedule deleted or deactivated meanwhile makes none). A second
    scheduler waits too, then finds the arenas made."""
    with transaction.atomic():
        schedule = one_or_none(
            ArenaSchedule.objects.select_for_update(no_key=True).filter(pk=pk, active=True)
        )
        if schedule is None:
            return 0
        starts = starts_between(schedule, now, until)
        made = set(
            Arena.objects.filter(schedule=schedule, starts_at__in=starts).values_list(
                "starts_at", flat=True
            )
        )
        new = Arena.objects.bulk_create(
            Arena(schedule=schedule, starts_at=at, **scheduled(schedule, at))
            for at in starts
            if at not in made
        )
    return len(new)


@dataclass(frozen=True)
class Remade:
    """What an admin's edit of a schedule did to its coming arenas (those made ahead)."""

    removed: int
    """Not started, nobody joined them, and their start is none of the schedule's now (or it
    was deactivated or deleted): removed."""
    kept: int
    """Not started but someone joined them: left as they were, under the old settings."""
    changed: int = 0
    """Not started, nobody joined them, their start still one of the schedule's: its settings
    as they now are (a length, a game) put on them in place, so their public ids, and the links
    that name them, stay."""
    made: int | None = None
    """Made for the starts new under its settings (None: it was deleted)."""


@transaction.atomic
def clear_coming(schedule: ArenaSchedule, now=None) -> Remade:
    """Remove the schedule's arenas that have not started and that nobody joined (an admin
    deletes it); the ones someone joined stay."""
    unjoined, joined = lock_coming(schedule, now or timezone.now())
    Arena.objects.filter(pk__in=[arena.pk for arena in unjoined]).delete()
    return Remade(removed=len(unjoined), kept=joined)


@transaction.atomic
def remake_coming(schedule: ArenaSchedule, now=None) -> Remade:
    """After an admin's edit (otherwise the arenas made a day ahead would keep its old settings
    for a day): of its coming arenas nobody joined, those whose start is still one of the
    schedule's take its settings in place, keeping their public ids (their pages open are told
    after the commit: `events.edited`); the others are removed (all of them if it is inactive),
    and the starts new under its settings get arenas."""
    now = now or timezone.now()
    unjoined, joined = lock_coming(schedule, now)
    stay = [a for a in unjoined if schedule.active and is_a_start(schedule, a.starts_at)]
    gone = Arena.objects.filter(pk__in=[a.pk for a in unjoined]).exclude(
        pk__in=[a.pk for a in stay]
    )
    gone.delete()
    changed = [a for a in stay if take(a, scheduled(schedule, a.starts_at))]
    Arena.objects.bulk_update(changed, ["name", "variant", "ends_at"])
    transaction.on_commit(lambda: events.edited(changed))  # their open pages follow
    made = make_coming(now=now, schedules=ArenaSchedule.objects.filter(pk=schedule.pk))
    return Remade(removed=len(unjoined) - len(stay), kept=joined, changed=len(changed), made=made)


def lock_coming(schedule: ArenaSchedule, now: datetime) -> tuple[list[Arena], int]:
    """The schedule's coming arenas nobody joined, and how many someone joined, read under
    locks held to the end of the transaction (the admin's): the schedule's row, which
    `make_coming_of` takes too, and the arenas' rows, which a join's insert waits for (a join
    that came first is counted joined)."""
    list(ArenaSchedule.objects.select_for_update(no_key=True).filter(pk=schedule.pk))
    # A full lock, deliberately: a join's insert, whose foreign-key check shares the arena's key,
    # waits for the edit's commit instead of joining an arena the edit is about to remove.
    coming = list(
        Arena.objects.select_for_update(no_key=False).filter(schedule=schedule, starts_at__gt=now)
    )
    joined = set(ArenaPlayer.objects.filter(arena__in=coming).values_list("arena", flat=True))
    return [arena for arena in coming if arena.pk not in joined], len(joined)


def take(arena: Arena, fields: dict) -> bool:
    """Set these fields on the arena; whether any changed."""
    changed = {name for name, value in fields.items() if getattr(arena, name) != value}
    for name in changed:
        setattr(arena, name, fields[name])
    return bool(changed)


STANDARD_EVERY_MINUTES = 60
STANDARD_LENGTH_MINUTES = 30


def make_standard_schedule() -> int:
    """The standard schedule, once in the database's life: an arena of each game every hour, 30
    minutes long, the games' start times spread over the hour; how many rows were made. The
    scheduler asks every minute; a marker (`StandardScheduleMade`) says it was made, so rows an
    admin deleted or deactivated since do not come back. A database that already has schedule
    rows (an admin's) gets the marker and no rows."""
    with transaction.atomic():
        # A second scheduler's insert of the marker waits for this one's commit, then finds it.
        _, first = StandardScheduleMade.objects.get_or_create(pk=1)
        if not first or ArenaSchedule.objects.exists():
            return 0
        step = STANDARD_EVERY_MINUTES // len(Variant.values)
        ArenaSchedule.objects.bulk_create(
            ArenaSchedule(
                variant=variant,
                every_minutes=STANDARD_EVERY_MINUTES,
                offset_minutes=i * step,
                length_minutes=STANDARD_LENGTH_MINUTES,
            )
            for i, variant in enumerate(Variant.values)
        )
    return len(Variant.values)
