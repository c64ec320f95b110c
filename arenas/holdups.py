"""Racers who hold up an arena's race. A race ends when its last racer is done, and its racers
who are done wait for that end before the arena places them again; so the arena resigns, as
the player could have (`do_resign`), the racers who would otherwise hold the others until the
race's time limit (docs/arenas.md):

- racers who have **left** (`resign_gone`): in a race where everyone still racing has had no
  page open on any server for `settings.RACER_GONE_AFTER_S` (races/presence.py), or never since
  a start that long ago. A race in which someone still plays is left alone: it is not over
  anyway, and whoever left may come back to it;
- the last racer, **idle** (`resign_idle`): the only one still racing, everyone else done, who
  has made no move for `settings.ARENA_IDLE_AFTER_S` since their last move or since the last
  of the others was done, whichever came later. Their page counts it down. They then sit out
  the arena's next races (paused) until they resume: a player away from a page left open would
  otherwise be placed again, and hold each next race's others a minute more.

Either counts as a resignation: the racer ranks by the cards they reached, as at the time
limit; the race closes, and its done racers are placed again. `Racer.resigned_for` says why,
for their page, the results and the replay. The arena's rooms look every
`arenas.rooms.PRESENCE_EVERY_S` while they place, and `run_arenas` every minute (after the
arena's end too, while its last races still count)."""

from __future__ import annotations

import contextlib
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Max, OuterRef, Subquery
from django.utils import timezone

from arenas import actions
from arenas.actions import ArenaRuleError
from arenas.models import Arena
from games.models import Move
from races.actions import STILL, do_resign
from races.lifecycle import RaceRuleError
from races.models import Race, Racer
from races.presence import gone_since


def resign_holdups(arena: Arena, now=None) -> int:
    """Resign the arena's racers who left their races or idle in them as their last racer; how
    many."""
    return resign_gone(arena, now) + resign_idle(arena, now)


def racing_in(arena: Arena):
    """The arena's racers still racing in its started races."""
    return Racer.objects.filter(
        race__arena_race__arena=arena, race__status=Race.Status.STARTED, status__in=STILL
    )


def resign_gone(arena: Arena, now=None) -> int:
    """Resign the racers of the arena's races who have left them, in the races where everyone
    still racing has left; how many."""
    gone = gone_since(now)
    still = racing_in(arena)
    played_on = still.filter(seen_at__gte=gone).values("race_id")
    absent = still.filter(race__starts_at__lte=gone).exclude(race_id__in=played_on)
    return len(_resign(absent, Racer.ResignedFor.LEFT))


def resign_idle(arena: Arena, now=None) -> int:
    """Resign the last racer still racing of each of the arena's races whose others are all done,
    if they have made no move for `ARENA_IDLE_AFTER_S` since their last move or the last of
    the others' ends; how many. A race of one has nobody waiting on it."""
    now = now or timezone.now()
    still = racing_in(arena)
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
    idle = timedelta(seconds=settings.ARENA_IDLE_AFTER_S)
    found = [
        pk
        for pk, starts, others_done_ms, moved_at in last
        if now - idle_since(starts, others_done_ms, moved_at) >= idle
    ]
    resigned = _resign(Racer.objects.filter(pk__in=found), Racer.ResignedFor.IDLE)
    for racer in resigned:
        with contextlib.suppress(ArenaRuleError):  # left the arena meanwhile
            actions.do_pause(arena, racer.player, True)
    return len(resigned)


def idle_since(starts, others_done_ms: int, moved_at):
    """Since when the last racer of a race that started at `starts` has neither moved (last at
    `moved_at`, None if never) nor seen another racer finish (the last `others_done_ms` after
    the start)."""
    return max(starts + timedelta(milliseconds=others_done_ms), moved_at or starts)


def _resign(racers, why: str) -> list[Racer]:
    """Resign the racers, as their players would, for `why`; those resigned (with their players)."""
    resigned = []
    for racer in racers.select_related("race", "player").order_by("race_id", "pk"):
        with contextlib.suppress(RaceRuleError):  # done meanwhile: a move, or a page back
            do_resign(racer.race, racer.player, resigned_for=why)
            resigned.append(racer)
    return resigned
