"""Race ratings as plain rules: openskill's Bradley-Terry model (full pairing) on a familiar
scale.

A race is a free-for-all: every racer is a team of one, ranked by the race's final standings,
and racers whose standings score is equal share a rank (ties stay ties). A new player starts at
1500 (mu) with an uncertainty (sigma) of 350; the rating shown is mu, rounded. A new player's
first races move it a lot (sigma is large), later ones little: the winner of a first race of
eight new players gains about 390, of two about 55; among established players (sigma 80) the
winner of eight gains about 23.

Why Bradley-Terry and not openskill's Plackett-Luce: with ties, Plackett-Luce can rate a racer
tied for first below the racer who came fourth alone (ranks 1, 1, 1, 4, 5 among equals give
+27 to the tied and +60 to the fourth); the full pairing never ranks a better place lower
(tests/races/test_race_ratings.py holds it to that). Nothing here touches Django:
races/ratings/updates.py reads the rows, asks these functions, and writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import BradleyTerryFull

START_MU = 1500.0
START_SIGMA = 350.0
MODEL = BradleyTerryFull(
    mu=START_MU, sigma=START_SIGMA, beta=2 * START_SIGMA, tau=START_SIGMA / 100
)
PROVISIONAL_RACES = 5
"""A rating says it is provisional until its player has raced this many rated races."""
MIN_RATED_RACERS = 2
"""A race changes ratings only when at least this many of its racers are signed in."""


@dataclass(frozen=True)
class Skill:
    mu: float = START_MU
    sigma: float = START_SIGMA


def ranks(scores: list[int]) -> list[int]:
    """Competition ranks from standings scores (lower is better): equal scores share a rank,
    and the next rank skips as many (1, 2, 2, 4)."""
    return [1 + sum(other < score for other in scores) for score in scores]


def rate(skills: list[Skill], places: list[int]) -> list[Skill]:
    """Everyone's new skill after one race, `places` being their ranks (ties equal)."""
    if len(skills) < MIN_RATED_RACERS:
        return list(skills)
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=places)
    return [Skill(mu=team[0].mu, sigma=team[0].sigma) for team in rated]


def shown(mu: float) -> int:
    """The rating a player sees."""
    return round(mu)


def change(mu_before: float, mu_after: float) -> int:
    return shown(mu_after) - shown(mu_before)


def change_label(points: int) -> str:
    """A rating change as players read it: "+14", "-3", "±0"."""
    return "±0" if points == 0 else f"{points:+d}"


def is_provisional(races: int) -> bool:
    return races < PROVISIONAL_RACES
