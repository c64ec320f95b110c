"""Racers who hold up a race. A race ends when its last racer is done, and its racers who are
done wait for that end: for its results, a rematch, an arena's next race. So the server
resigns, as the player could have (`do_resign`), the racers who would otherwise hold the others
until the race's time limit, or its two-hour cap when it has none (docs/protocol.md, "Leaving
a race" and "Racers idle"):

- racers who have **left** (`resign_gone`): in a race where everyone still racing has had no
  page open on any server for `settings.RACER_GONE_AFTER_S` (races/presence.py), or never since
  a start that long ago. A race in which someone still plays is left alone: it is not over
  anyway, and whoever left may come back to it;
- the racers still racing, **idle** (`resign_idle`), while someone else is done and waits:
  once none of them has made a move (an undo counts) for `settings.RACE_IDLE_AFTER_S` since
  the last move of any of them, or since the last of the others was done if that came later.
  One who still moves keeps the race going for all (it is not over anyway), and once they are
  done the others' clock runs from their end. Their pages count it down.

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
from collections import defaultdict
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
    racers still racing with others done for `RACE_IDLE_AFTER_S` (whether they idle,
    `resign_idle` reads)."""
    now = now or timezone.now()
    racers = Racer.objects.filter(race__status=Race.Status.STARTED)
    if races is not None:
        racers = racers.filter(race_id__in=races)
    for elsewhere in LOOKED_AT_ELSEWHERE:
        racers = racers.exclude(race_id__in=elsewhere())
    still = Q(status__in=STILL)
    unseen = still & (Q(seen_at__lt=gone_since(now)) | Q(seen_at=None))
    counts = racers.values("race_id").annotate(
        racers=Count("pk"),
        still=Count("pk", filter=still),
        unseen=Count("pk", filter=unseen),
        starts=Max("race__starts_at"),
        last_done_ms=Max("done_ms", filter=~still),
    )
    left = Q(still__gt=0, unseen=F("still"))
    waited_on = Q(still__gt=0, racers__gt=F("still"))
    rows = counts.filter(left | waited_on).values_list(
        "race_id", "still", "unseen", "starts", "last_done_ms"
    )
    idle = timedelta(seconds=settings.RACE_IDLE_AFTER_S)
    return [
        race_id
        for race_id, still_n, unseen_n, starts, last_done_ms in rows
        if unseen_n == still_n
        or (last_done_ms is not None and now - idle_since(starts, last_done_ms, None) >= idle)
    ]


def resign_holdups(still: QuerySet, now: datetime | None = None) -> list[Racer]:
    """Resign those of these racers still racing (`still_racing`, every one of their races')
    who left their races, or idle in them while others wait; those resigned."""
    return resign_gone(still, now) + resign_idle(still, now)


def resign_gone(still: QuerySet, now: datetime | None = None) -> list[Racer]:
    """Resign those of these racers still racing whose races everyone still racing has left;
    those resigned."""
    gone = gone_since(now)
    played_on = still.filter(seen_at__gte=gone).values("race_id")
    absent = still.filter(race__starts_at__lte=gone).exclude(race_id__in=played_on)
    return _resign(absent, Racer.ResignedFor.LEFT)


def resign_idle(still: QuerySet, now: datetime | None = None) -> list[Racer]:
    """Resign those of these racers still racing (every one of their races') who idle while
    someone else in their race is done: none of their race's racers still racing has made a
    move for `RACE_IDLE_AFTER_S` since the last move of any of them or the last of the others'
    ends; those resigned. A race of one has nobody waiting on it."""
    now = now or timezone.now()
    others_done = (
        Racer.objects.filter(race_id=OuterRef("race_id"))
        .exclude(status__in=STILL)
        .values("race_id")
        .annotate(last=Max("done_ms"))
        .values("last")
    )
    moved = Move.objects.filter(game_id=OuterRef("game_id")).order_by("-seq").values("at")[:1]
    waited_on = (
        still.annotate(others_done_ms=Subquery(others_done), moved_at=Subquery(moved))
        .exclude(others_done_ms=None)
        .values_list("pk", "race_id", "race__starts_at", "others_done_ms", "moved_at")
    )
    races: dict[int, list] = defaultdict(list)
    for pk, race_id, starts, others_done_ms, moved_at in waited_on:
        races[race_id].append((pk, starts, others_done_ms, moved_at))
    idle = timedelta(seconds=settings.RACE_IDLE_AFTER_S)
    found = []
    for racers in races.values():
        _, starts, others_done_ms, _ = racers[0]
        moves = [moved_at for *_, moved_at in racers if moved_at is not None]
        if now - idle_since(starts, others_done_ms, max(moves, default=None)) >= idle:
            found += [pk for pk, *_ in racers]
    return _resign(Racer.objects.filter(pk__in=found), Racer.ResignedFor.IDLE) if found else []


def idle_since(starts: datetime, others_done_ms: int, moved_at: datetime | None) -> datetime:
    """Since when the racers still racing in a race that started at `starts` have neither moved
    (the last of them at `moved_at`, None if none ever did) nor seen another racer finish (the
    last `others_done_ms` after the start)."""
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
