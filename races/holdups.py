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
    unseen = Q(status__in=STILL) & (Q(seen_at__lt=gone_since(now)) | Q(seen_at=None))
    counts = _by_race(racers).annotate(unseen=Count("pk", filter=unseen))
    left = Q(still__gt=0, unseen=F("still"))
    rows = counts.filter(left | WAITED_ON).values_list(*ENDS, "still", "unseen")
    return [
        race_id
        for race_id, starts, last_done_ms, still, unseen in rows
        if unseen == still or _idle_for(now, _done_at(starts, last_done_ms))
    ]


WAITED_ON = Q(still__gt=0, racers__gt=F("still"))
"""Of a race's counts (`_by_race`): someone still racing, someone done."""


def _by_race(racers: QuerySet) -> QuerySet:
    """These racers counted by race: how many (`racers`), how many still racing (`still`), and
    when the race started (`starts`) and the last of those done was, after the start
    (`last_done_ms`, None if none is: `_done_at`)."""
    still = Q(status__in=STILL)
    return (
        racers.order_by()
        .values("race_id")
        .annotate(
            racers=Count("pk"),
            still=Count("pk", filter=still),
            starts=Max("race__starts_at"),
            last_done_ms=Max("done_ms", filter=~still),
        )
    )


ENDS = ("race_id", "starts", "last_done_ms")
"""The columns of a race's counts (`_by_race`) that say when the last of its done racers was."""


def _done_at(starts: datetime, last_done_ms: int | None) -> datetime | None:
    """When the last of a race's done racers was (None: nobody is done)."""
    return None if last_done_ms is None else starts + timedelta(milliseconds=last_done_ms)


def _idle_for(now: datetime, since: datetime | None) -> bool:
    """Whether `since` (None: never) is `RACE_IDLE_AFTER_S` ago or more."""
    return since is not None and now - since >= timedelta(seconds=settings.RACE_IDLE_AFTER_S)


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
    ends; those resigned. A race of one has nobody waiting on it.

    First the races whose others' last end is that long ago (most of the time none), then, in
    those alone, each racer's last move."""
    now = now or timezone.now()
    counts = _by_race(Racer.objects.filter(race_id__in=still.values("race_id")))
    ends = counts.filter(WAITED_ON).values_list(*ENDS)
    since = {race_id: _done_at(starts, ms) for race_id, starts, ms in ends}
    since = {race_id: at for race_id, at in since.items() if _idle_for(now, at)}
    if not since:
        return []
    moved = Move.objects.filter(game_id=OuterRef("game_id")).order_by("-seq").values("at")[:1]
    racers = still.filter(race_id__in=since).annotate(moved_at=Subquery(moved))
    rows = list(racers.values_list("pk", "race_id", "moved_at"))
    for _, race_id, moved_at in rows:
        since[race_id] = max(since[race_id], moved_at or since[race_id])
    found = [pk for pk, race_id, _ in rows if _idle_for(now, since[race_id])]
    return _resign(Racer.objects.filter(pk__in=found), Racer.ResignedFor.IDLE) if found else []


def _resign(racers: QuerySet, why: str) -> list[Racer]:
    """Resign the racers, as their players would, for `why`; those resigned (with their players)."""
    resigned = []
    for racer in racers.select_related("race", "player").order_by("race_id", "pk"):
        with contextlib.suppress(RaceRuleError):  # done meanwhile: a move, or a page back
            do_resign(racer.race, racer.player, resigned_for=why)
            racer.resigned_for = why
            resigned.append(racer)
    return resigned
