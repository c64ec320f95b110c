"""An arena's racers who hold up its races (the rules are the races', races/holdups.py: those who
left a race nobody else still plays, and those idle in a race others wait on). An arena looks at
its own races itself (`races.holdups.LOOKED_AT_ELSEWHERE`), in the rooms' tick that then places
the racers the resignations free (every `arenas.rooms.PRESENCE_EVERY_S`), and `run_arenas` every
minute (after the arena's end too, while its last races still count). A racer resigned as idle
then sits out the arena's next races (paused) until they resume, paused in the race's close
(arenas/results.py, `record_race`): a player away from a page left open would otherwise be
placed again, and hold each next race's others a minute more (docs/arenas.md)."""

from __future__ import annotations

from arenas.models import Arena, ArenaRace
from races import holdups


def arena_races():
    """The ids of every arena's races: the arenas look at them themselves."""
    return ArenaRace.objects.values("race_id")


def resign_holdups(arena: Arena, now=None) -> int:
    """Resign the arena's racers who left their races or idle in them while others wait (the
    idle ones paused by the race's close); how many."""
    still = holdups.still_racing().filter(race__arena_race__arena=arena)
    return len(holdups.resign_holdups(still, now))
