"""An arena's points, as plain rules on plain values (docs/arenas.md, "Points").

Each race of an arena gives each racer points for their place: 4 for the first, 3 for the
second, 2 for the third, 1 for any other place; a racer who made no move at all gets nothing,
whatever their place. A racer who won the deal (every card home) gets 1 more.

A podium is one of the first three places that is not the last of the race (in a race of two,
only the winner is on the podium). Two podiums in a row put a racer on a streak: every race
they play while on it counts double, until a race off the podium ends it.

A result fair play withholds (a held game, a flagged account: the same rule as for the race's
ratings) scores nothing and is no podium.

Players rank by points, then by their average place (lower first), then by the time of their
last race that scored (earlier first: who got there first keeps the place).

Nothing here touches Django: `arenas.results` reads the rows, asks these functions, and writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

PLACE_POINTS = {1: 4, 2: 3, 3: 2}
OTHER_PLACE_POINTS = 1
WIN_BONUS = 1
STREAK_AFTER = 2
"""Podiums in a row that put a racer on a streak (their next races count double)."""

NO_PLACE_MILLI = 9_999
"""The average place (in thousandths) of a player who has not raced yet: after everyone."""
LAST_SCORED_CAP_S = 99_999


@dataclass(frozen=True)
class Outcome:
    """One racer's result in one race."""

    place: int
    racers: int
    moved: bool
    won: bool
    counted: bool = True
    """False for a result fair play withholds: no points, no podium (the streak ends)."""


@dataclass(frozen=True)
class Scored:
    points: int
    doubled: bool
    podium: bool


@dataclass(frozen=True)
class Standing:
    """A player's totals in one arena."""

    points: int = 0
    races: int = 0
    place_sum: int = 0
    podiums_in_a_row: int = 0
    last_scored_s: int | None = None
    """When their last race that scored ended, in seconds from the arena's start."""

    @property
    def on_streak(self) -> bool:
        return self.podiums_in_a_row >= STREAK_AFTER

    @property
    def average_place(self) -> float | None:
        return self.place_sum / self.races if self.races else None


def is_podium(outcome: Outcome) -> bool:
    return outcome.place <= 3 and outcome.place < outcome.racers


def score(outcome: Outcome, on_streak: bool) -> Scored:
    """The points of one race, played on a streak or not."""
    if not 1 <= outcome.place <= outcome.racers:
        raise ValueError(f"place {outcome.place} is not a place in a race of {outcome.racers}")
    if not outcome.counted:
        return Scored(points=0, doubled=False, podium=False)
    points = 0
    if outcome.moved:
        points = PLACE_POINTS.get(outcome.place, OTHER_PLACE_POINTS)
        points += WIN_BONUS if outcome.won else 0
    return Scored(
        points=points * 2 if on_streak else points, doubled=on_streak, podium=is_podium(outcome)
    )


def add(standing: Standing, outcome: Outcome, at_s: int) -> tuple[Standing, Scored]:
    """A player's standing after one more race (which ended `at_s` after the arena's start)."""
    scored = score(outcome, standing.on_streak)
    after = replace(
        standing,
        points=standing.points + scored.points,
        races=standing.races + 1,
        place_sum=standing.place_sum + outcome.place,
        podiums_in_a_row=standing.podiums_in_a_row + 1 if scored.podium else 0,
        last_scored_s=at_s if scored.points else standing.last_scored_s,
    )
    return after, scored


def total(outcomes: list[tuple[Outcome, int]]) -> Standing:
    """A player's standing from their races in order (each with when it ended)."""
    standing = Standing()
    for outcome, at_s in outcomes:
        standing, _ = add(standing, outcome, at_s)
    return standing


def board_score(standing: Standing) -> float:
    """The standing packed into one number, lower first, exact in a double: points (most
    first), then the average place in thousandths, then the last scoring race's time."""
    average = standing.average_place
    milli = NO_PLACE_MILLI if average is None else round(average * 1000)
    last = LAST_SCORED_CAP_S if standing.last_scored_s is None else standing.last_scored_s
    return -standing.points * 10**9 + milli * 10**5 + min(last, LAST_SCORED_CAP_S)


def board_order(standings: Mapping[int, Standing]) -> list[int]:
    """The players (by id) in the board's order: by `board_score`, then, as the rank store
    orders equal scores, by the member's text (the player's id as a string: 10 before 9)."""
    return sorted(standings, key=lambda pid: (board_score(standings[pid]), str(pid)))


def points_of(score_value: float) -> int:
    """The points a board score holds (the inverse of `board_score`'s first key)."""
    return -int(score_value // 10**9)
