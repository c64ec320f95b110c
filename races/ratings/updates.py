"""Applying a rated race's result to its racers' ratings, once, in the close's transaction.

Only signed-in racers are rated (guests race unrated), ranked among themselves by the race's
final standings (equal standings scores share a rank). The close holds the race row locked and
runs once (its status is checked under that lock), and the `RatingChange` rows' unique
(race, player) constraint is the last guard: a second application would fail and roll the
whole close back. The rating rows are locked in player order, so two races closing at once
with a racer in common never deadlock.

A result can be withheld after the fact (`WITHHELD`, registered by an app above: fairplay holds
a result for review, or a reviewer confirms a bot): `recompute` then rates the variant's races
again from the start, in the order they closed, by the same rule, leaving the withheld racers
out as if they had not raced; publishing the result again recomputes with it back in. A
recompute of an unchanged history gives every rating exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db import transaction

from games.rows import update_rows
from races import ratings
from races.models import Race, Racer, Rating, RatingChange
from races.standings import progress_of

WITHHELD: list[Callable[[Race], set[int]]] = []
"""Per race, the players whose result in it counts for no rating (registered by fairplay)."""


def withheld_in(race: Race) -> set[int]:
    """The players of the race whose result counts for nothing: for its ratings, and for an
    arena's points (arenas.results), by the rules registered in `WITHHELD`."""
    return set().union(*(rule(race) for rule in WITHHELD))


def rated_racers(
    race: Race, racers: list[Racer] | None = None, withheld: set[int] | None = None
) -> list[Racer]:
    """The racers a rated race rates: signed in, their result not withheld; in player order.
    `racers` (all of them, with their players) and `withheld` (`withheld_in`) as the close has
    them already, or read here."""
    if withheld is None:
        withheld = withheld_in(race)
    if racers is None:
        racers = list(race.racers.select_related("player"))
    return sorted(
        (r for r in racers if r.player.user_id is not None and r.player_id not in withheld),
        key=lambda r: r.player_id,
    )


def rate_race(racers: list[Racer], before: list[ratings.Skill]) -> list[ratings.Skill]:
    """The racers' skills after the race, from their skills before and its standings."""
    places = ratings.ranks([progress_of(racer).score for racer in racers])
    return ratings.rate(before, places)


def apply_ratings(
    race: Race,
    now: datetime,
    racers: list[Racer] | None = None,
    withheld: set[int] | None = None,
) -> dict[str, dict]:
    """Rate the finished race's signed-in racers; per racer id, what a page shows of it
    (`racers` and `withheld` as `rated_racers` takes them)."""
    racers = rated_racers(race, racers, withheld)
    if len(racers) < ratings.MIN_RATED_RACERS:
        return {}
    player_ids = [racer.player_id for racer in racers]
    # Each racer's first rating in the variant, where they have none (one statement).
    Rating.objects.bulk_create(
        [
            Rating(
                player_id=p, variant=race.variant, mu=ratings.START_MU, sigma=ratings.START_SIGMA
            )
            for p in player_ids
        ],
        ignore_conflicts=True,
    )
    rows = {
        row.player_id: row
        for row in Rating.objects.select_for_update(no_key=True)
        .filter(player_id__in=player_ids, variant=race.variant)
        .order_by("player_id")
    }
    before = [ratings.Skill(rows[p].mu, rows[p].sigma) for p in player_ids]
    after = rate_race(racers, before)
    changes, shown = [], {}
    for racer, old, new in zip(racers, before, after, strict=True):
        row = rows[racer.player_id]
        row.mu, row.sigma, row.races, row.updated_at = new.mu, new.sigma, row.races + 1, now
        changes.append(
            RatingChange(
                race=race,
                player_id=racer.player_id,
                variant=race.variant,
                mu_before=old.mu,
                mu_after=new.mu,
                sigma_after=new.sigma,
                races=row.races,
                at=now,
            )
        )
        shown[racer.public_id] = change_dict(old.mu, new.mu, row.races)
    RatingChange.objects.bulk_create(changes)
    update_rows(list(rows.values()), ["mu", "sigma", "races", "updated_at"])
    return shown


def recompute(variant: str) -> int:
    """Every rating in `variant` computed afresh from its finished rated races, in the order
    they closed, by `rate_race`, what is withheld now left out: the ratings, and each race's
    `RatingChange` rows, replaced in one transaction; the number of races rated."""
    start = ratings.Skill(ratings.START_MU, ratings.START_SIGMA)
    with transaction.atomic():
        rows = {
            row.player_id: row
            for row in Rating.objects.select_for_update(no_key=True)
            .filter(variant=variant)
            .order_by("player_id")
        }
        when = dict(RatingChange.objects.filter(variant=variant).values_list("race_id", "at"))
        races = Race.objects.filter(
            variant=variant, rated=True, seed_chosen=False, status=Race.Status.FINISHED
        ).order_by("finished_at", "pk")
        skills: dict[int, ratings.Skill] = {}
        counts: dict[int, int] = {}
        changes = []
        rated = 0
        for race in races:
            racers = rated_racers(race)
            if len(racers) < ratings.MIN_RATED_RACERS:
                continue
            rated += 1
            before = [skills.get(racer.player_id, start) for racer in racers]
            for racer, old, new in zip(racers, before, rate_race(racers, before), strict=True):
                skills[racer.player_id] = new
                counts[racer.player_id] = counts.get(racer.player_id, 0) + 1
                changes.append(
                    RatingChange(
                        race=race,
                        player_id=racer.player_id,
                        variant=variant,
                        mu_before=old.mu,
                        mu_after=new.mu,
                        sigma_after=new.sigma,
                        races=counts[racer.player_id],
                        at=when.get(race.pk, race.finished_at),
                    )
                )
        RatingChange.objects.filter(variant=variant).delete()
        RatingChange.objects.bulk_create(changes)
        Rating.objects.filter(variant=variant).exclude(player_id__in=list(skills)).delete()
        for player_id, skill in skills.items():
            row = rows.get(player_id) or Rating(player_id=player_id, variant=variant)
            row.mu, row.sigma, row.races = skill.mu, skill.sigma, counts[player_id]
            row.save()
    return rated


def change_dict(mu_before: float, mu_after: float, races: int) -> dict:
    """A racer's rating after a race as events, the API and pages show it."""
    points = ratings.change(mu_before, mu_after)
    return {
        "rating": ratings.shown(mu_after),
        "change": points,
        "label": ratings.change_label(points),
        "provisional": ratings.is_provisional(races),
    }
