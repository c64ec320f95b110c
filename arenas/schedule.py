"""The standing schedule: each active `ArenaSchedule` row makes an arena of its game every
`every_minutes` (counted from a fixed epoch, midnight UTC of 1 January 1970, plus its offset),
`length_minutes` long. Making the coming ones is idempotent: one arena per schedule and start (a
unique constraint)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from arenas.models import Arena, ArenaPlayer, ArenaSchedule, StandardScheduleMade
from games.models import Variant

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""Where every schedule's series is counted from: one series whatever day a run falls on (counted
from each run's midnight, an interval that does not divide a day, 25 minutes say, began a
second series overlapping the first after each midnight). A midnight is a whole number of days
from it, so an interval that divides a day keeps the start times it had from midnight."""


def starts_between(schedule: ArenaSchedule, start: datetime, end: datetime) -> list[datetime]:
    """The schedule's start times in [start, end)."""
    every = timedelta(minutes=max(1, schedule.every_minutes))
    at = EPOCH + timedelta(minutes=schedule.offset_minutes)
    if at < start:
        at += every * -(-(start - at) // every)
    found = []
    while at < end:
        found.append(at)
        at += every
    return found


MAKE_AHEAD_HOURS = 24


def make_coming(hours: int = MAKE_AHEAD_HOURS, now=None, schedules=None) -> int:
    """Make the scheduled arenas starting in the next `hours`, of the active `schedules` (all
    of them by default); how many were new."""
    now = now or timezone.now()
    if schedules is None:
        schedules = ArenaSchedule.objects.all()
    made = 0
    for schedule in schedules.filter(active=True):
        for at in starts_between(schedule, now, now + timedelta(hours=hours)):
            if Arena.objects.filter(schedule=schedule, starts_at=at).exists():
                continue
            try:
                with transaction.atomic():
                    Arena.objects.create(
                        schedule=schedule,
                        name=f"{Variant(schedule.variant).label} arena, {at:%H:%M}",
                        variant=schedule.variant,
                        starts_at=at,
                        ends_at=at + timedelta(minutes=schedule.length_minutes),
                    )
                made += 1
            except IntegrityError:  # a second scheduler made it meanwhile
                continue
    return made


@dataclass(frozen=True)
class Remade:
    """What an admin's edit of a schedule did to its coming arenas (those made ahead)."""

    removed: int
    """Not started and nobody joined them: removed."""
    kept: int
    """Not started but someone joined them: left as they were, under the old settings."""
    made: int | None = None
    """Made again under its settings as they now are (None: it was deleted)."""


def clear_coming(schedule: ArenaSchedule, now=None) -> Remade:
    """Remove the schedule's arenas that have not started and that nobody joined (an admin
    edited, deactivated or deleted it: otherwise those made a day ahead would keep its old
    settings for a day); the ones someone joined stay."""
    now = now or timezone.now()
    coming = Arena.objects.filter(schedule=schedule, starts_at__gt=now)
    joined = Exists(ArenaPlayer.objects.filter(arena=OuterRef("pk")))
    _, deleted = coming.exclude(joined).delete()
    return Remade(removed=deleted.get(Arena._meta.label, 0), kept=coming.count())


def remake_coming(schedule: ArenaSchedule, now=None) -> Remade:
    """After an admin's edit: the schedule's coming arenas nobody joined made again under its
    settings as they now are (none if it is inactive)."""
    now = now or timezone.now()
    cleared = clear_coming(schedule, now)
    made = make_coming(now=now, schedules=ArenaSchedule.objects.filter(pk=schedule.pk))
    return replace(cleared, made=made)


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
