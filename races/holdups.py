"""Racers who hold up a race. A race ends when its last racer is done, and its racers who are
done wait for that end: for its results, a rematch, an arena's next race. So the server
resigns, as the player could have (`do_resign`), the racers who would otherwise hold the others
until the race's time limit, or its two-hour cap when it has none (docs/protocol.md, "Leaving
a race" and "The last racer, idle"):

- racers who have **left** (`resign_gone`): in a race where everyone still racing has had no
  page open on any server for `settings.RACER_GONE_AFTER_S` (races/presence.py), or never since
  a start that long ago. A race in which someone still plays is left alone: it is not over
  anyway, and whoever left may come back to it;
- the last racer, **idle** (`resign_idle`): the only one still racing, everyone else done, who
  has made no move (an undo counts) for `settings.RACE_IDLE_AFTER_S` since their last move or
  since the last of the others was done, whichever came later. Their page counts it down.

Either counts as a resignation: the racer ranks by the cards they reached, as at the time
limit; the race closes. `Racer.resigned_for` says why, for their page, the results and the
replay.

Who looks, and when: each process, every `LOOK_EVERY_S`, in the races its pages show racers of
(`resign_in`, from the presence's beat); `close_overdue_races` every minute in every race
(`resign_in(None)`), for a race nobody's page shows any more. Either first finds, in one
statement, the races where someone may hold the others up (`held_up`), and most of the time
there is none. An app above that places races
looks at its own in its own time (`LOOKED_AT_ELSEWHERE`): an arena in the tick that places its
racers again, where it also has the idle one sit out its next races (arenas/holdups.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from games.models import Move
from races.actions import STILL, do_resign
from races.lifecycle import RaceRuleError
from races.models import Race, Racer

LOOK_EVERY_S = 5.0
"""How often a process looks for holdups in the races its pages show racers of."""

LOOKED_AT_ELSEWHERE: list[Callable[[], QuerySet]] = []
"""The ids of the races an app above looks at itself (`Race` pks as a queryset of one column),
registered by that app: the arenas, theirs."""


def gone_since(now: datetime | None = None) -> datetime:
    """A racer still racing whom no server has seen on their race's page since this moment has
    left their race."""
    return (now or timezone.now()) - timedelta(seconds=settings.RACER_GONE_AFTER_S)


def still_racing() -> QuerySet:
    """The racers still racing in started races (to narrow down to the races to look in)."""
    return Racer.objects.filter(race__status=Race.Status.STARTED, status__in=STILL)


def resign_in(races: Iterable[int] | None, now: datetime | None = None) -> int:
    """Resign the racers who hold up these races (ids; None: every race), but in the races
    looked at elsewhere; how many."""
    held = held_up(races, now)
    return len(resign_holdups(still_racing().filter(race_id__in=held), now)) if held else 0


def held_up(races: Iterable[int] | None, now: datetime | None = None) -> list[int]:
    """Of these started races (ids; None: every one), but those looked at elsewhere, the ones
    where someone may hold the others up: everyone still racing unseen since `gone_since`, or
    a single racer still racing with others done (whether they idle, `resign_idle` reads)."""
    racers = Racer.objects.filter(race__status=Race.Status.STARTED)
    if races is not None:
        racers = racers.filter(race_id__in=races)
    for elsewhere in LOOKED_AT_ELSEWHERE:
        racers = racers.exclude(race_id__in=elsewhere())
    still = Q(status__in=STILL)
    unseen = still & (Q(seen_at__lt=gone_since(now)) | Q(seen_at=None))
    counts = racers.values("race_id").annotate(
        racers=Count("pk"), still=Count("pk", filter=still), unseen=Count("pk", filter=unseen)
    )
    left = Q(still__gt=0, unseen=F("still"))
    last = Q(still=1, racers__gt=1)
    return list(counts.filter(left | last).values_list("race_id", flat=True))


def resign_holdups(still: QuerySet, now: datetime | None = None) -> list[Racer]:
    """Resign those of these racers still racing (`still_racing`) who left their races, or idle
    in them as their last racer; those resigned."""
    return resign_gone(still, now) + resign_idle(still, now)


def resign_gone(still: QuerySet, now: datetime | None = None) -> list[Racer]:
    """Resign those of these racers still racing whose races everyone still racing has left;
    those resigned."""
    gone = gone_since(now)
    played_on = still.filter(seen_at__gte=gone).values("race_id")
    absent = still.filter(race__starts_at__lte=gone).exclude(race_id__in=played_on)
    return _resign(absent, Racer.ResignedFor.LEFT)


def resign_idle(still: QuerySet, now: datetime | None = None) -> list[Racer]:
    """Resign those of these racers still racing who are the last of their races, the others all
    done, and have made no move for `RACE_IDLE_AFTER_S` since their last move or the last of
    the others' ends; those resigned. A race of one has nobody waiting on it."""
    now = now or timezone.now()
    alone = still.values("race_id").annotate(n=Count("pk")).filter(n=1).values("race_id")
    others_done = (
        Racer.objects.filter(race_id=OuterRef("race_id"))
        .exclude(status__in=STILL)
        .values("race_id")
        .annotate(last=Max("done_ms"))
        .values("last")
    )
    moved = Move.objects.filter(game_id=OuterRef("game_id")).order_by("-seq").values("at")[:1]
    last = (
        still.filter(race_id__in=alone)
        .annotate(others_done_ms=Subquery(others_done), moved_at=Subquery(moved))
        .exclude(others_done_ms=None)
        .values_list("pk", "race__starts_at", "others_done_ms", "moved_at")
    )
    idle = timedelta(seconds=settings.RACE_IDLE_AFTER_S)
    found = [
        pk
        for pk, starts, others_done_ms, moved_at in last
        if now - idle_since(starts, others_done_ms, moved_at) >= idle
    ]
    return _resign(Racer.objects.filter(pk__in=found), Racer.ResignedFor.IDLE) if found else []


def idle_since(starts: datetime, others_done_ms: int, moved_at: datetime | None) -> datetime:
    """Since when the last racer of a race that started at `starts` has neither moved (last at
    `moved_at`, None if never) nor seen another racer finish (the last `others_done_ms` after
    the start)."""
    return max(starts + timedelta(milliseconds=others_done_ms), moved_at or starts)


def _resign(racers: QuerySet, why: str) -> list[Racer]:
    """Resign the racers, as their players would, for `why`; those resigned (with their players)."""
    resigned = []
    for racer in racers.select_related("race", "player").order_by("race_id", "pk"):
        with contextlib.suppress(RaceRuleError):  # done meanwhile: a move, or a page back
            do_resign(racer.race, racer.player, resigned_for=why)
            racer.resigned_for = why
            resigned.append(racer)
    return resigned
