"""Which open quick race a player goes to, as a plain rule on plain values.

A race with racers comes before an empty one (a quick race its last racer left stays open);
then a rated player goes to the race whose players' mean rating is nearest their own, a guest
(no rating) to the fullest race, which starts soonest. Equal choices go to the fuller race, then
to the older one (the order given). Racers without a rating count at the starting rating.
"""

from __future__ import annotations

from dataclasses import dataclass

from races.ratings import START_MU


@dataclass(frozen=True)
class OpenRace:
    key: int
    ratings: tuple[float | None, ...]
    """Its racers' ratings (mu in the race's variant), None for a racer without one."""
    own: float | None = None
    """The placing player's rating in the race's variant; None for a guest (unrated)."""


def mean_rating(race: OpenRace) -> float:
    values = [START_MU if r is None else r for r in race.ratings]
    return sum(values) / len(values) if values else START_MU


def pick(races: list[OpenRace]) -> int | None:
    """The key of the race to join, `races` oldest first; None when there is none."""
    if not races:
        return None

    def cost(item: tuple[int, OpenRace]) -> tuple[bool, float, int, int]:
        order, race = item
        distance = 0.0 if race.own is None else abs(mean_rating(race) - race.own)
        return (not race.ratings, distance, -len(race.ratings), order)

    return min(enumerate(races), key=cost)[1].key
