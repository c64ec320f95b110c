"""Applying a rated race's result to its racers' ratings, once, in the close's transaction.

Only signed-in racers are rated (guests race unrated), ranked among themselves by the race's
final standings (equal standings scores share a rank). The close holds the race row locked and
runs once (its status is checked under that lock), and the `RatingChange` rows' unique
(race, player) constraint is the last guard: a second application would fail and roll the
whole close back. The rating rows are locked in player order, so two races closing at once
with a racer in common never deadlock.
"""

from __future__ import annotations

from datetime import datetime

from races import ratings
from races.models import Race, Rating, RatingChange
from races.standings import progress_of


def apply_ratings(race: Race, now: datetime) -> dict[str, dict]:
    """Rate the finished race's signed-in racers; per racer id, what a page shows of it."""
    racers = [
        racer
        for racer in race.racers.select_related("player").order_by("player_id")
        if racer.player.user_id is not None
    ]
    if len(racers) < ratings.MIN_RATED_RACERS:
        return {}
    player_ids = [racer.player_id for racer in racers]
    for player_id in player_ids:
        Rating.objects.get_or_create(
            player_id=player_id,
            variant=race.variant,
            defaults={"mu": ratings.START_MU, "sigma": ratings.START_SIGMA},
        )
    rows = {
        row.player_id: row
        for row in Rating.objects.select_for_update()
        .filter(player_id__in=player_ids, variant=race.variant)
        .order_by("player_id")
    }
    before = [ratings.Skill(rows[p].mu, rows[p].sigma) for p in player_ids]
    places = ratings.ranks([progress_of(racer).score for racer in racers])
    after = ratings.rate(before, places)
    changes, shown = [], {}
    for racer, old, new in zip(racers, before, after, strict=True):
        row = rows[racer.player_id]
        row.mu, row.sigma, row.races = new.mu, new.sigma, row.races + 1
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
    Rating.objects.bulk_update(rows.values(), ["mu", "sigma", "races", "updated_at"])
    return shown


def change_dict(mu_before: float, mu_after: float, races: int) -> dict:
    """A racer's rating after a race as events, the API and pages show it."""
    points = ratings.change(mu_before, mu_after)
    return {
        "rating": ratings.shown(mu_after),
        "change": points,
        "label": ratings.change_label(points),
        "provisional": ratings.is_provisional(races),
    }
