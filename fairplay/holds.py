"""What fair play withholds, and what follows an assessment or a reviewer's decision.

A result is withheld while its assessment holds it (a verdict other than clear, pending) or
once a reviewer confirmed it, and every ranked result of a flagged account is withheld. The
boards and streaks (records.board_scores.WITHHELD) and the race ratings
(races.ratings.updates.WITHHELD) leave withheld results out; this module registers the
conditions and, when what is withheld changes, writes the boards again from the record and
recomputes the ratings of the variants concerned (the same rule that rates a race at its close)
and the arena points of the players concerned (arenas.results: an arena's race scores a
withheld result nothing, by the ratings' rule).
"""

from __future__ import annotations

from django.db.models import Q

from arenas import results as arena_results
from daily.models import DailyAttempt
from fairplay.models import Assessment
from races.models import Race, Racer
from races.ratings.updates import recompute
from records import leaderboard

HOLDING = (Assessment.VerdictChoice.REVIEW, Assessment.VerdictChoice.LIKELY_BOT)


def withheld(game: str, player: str) -> Q:
    """The condition, over a model whose game and player are reached by these paths."""
    held = Q(**{f"{game}assessment__status": Assessment.Status.PENDING}) & Q(
        **{f"{game}assessment__verdict__in": HOLDING}
    )
    confirmed = Q(**{f"{game}assessment__status": Assessment.Status.CONFIRMED})
    return held | confirmed | Q(**{f"{player}fairplay_flag__isnull": False})


def withheld_attempts() -> Q:
    """Over DailyAttempt (records.board_scores.WITHHELD)."""
    return withheld("game__", "player__")


def withheld_racers(race: Race) -> set[int]:
    """The players of `race` whose result rates nobody (races.ratings.updates.WITHHELD)."""
    rows = Racer.objects.filter(race=race).filter(withheld("game__", "player__"))
    return set(rows.values_list("player_id", flat=True))


def republish(assessment: Assessment) -> None:
    """The boards or ratings of the assessed result, as what is withheld says now."""
    if assessment.kind == Assessment.Kind.DAILY:
        for pk in DailyAttempt.objects.filter(game_id=assessment.game_id, ranked=True).values_list(
            "pk", flat=True
        ):
            leaderboard.record_attempt(pk)
        return
    race = Race.objects.filter(racers__game_id=assessment.game_id).first()
    if race is not None and race.status == Race.Status.FINISHED and race.rated:
        recompute(race.variant)
        arena_results.rescore_race(race)


def republish_player(player_id: int) -> None:
    """Every ranked result of a player, as what is withheld says now (a flagged account)."""
    for pk in DailyAttempt.objects.filter(player_id=player_id, ranked=True).values_list(
        "pk", flat=True
    ):
        leaderboard.record_attempt(pk)
    variants = (
        Race.objects.filter(racers__player_id=player_id, rated=True, status=Race.Status.FINISHED)
        .values_list("variant", flat=True)
        .distinct()
    )
    for variant in sorted(set(variants)):
        recompute(variant)
    arena_results.rescore_player(player_id)


def after_assessment(assessment: Assessment) -> None:
    """A held result leaves the boards, or its rating change is undone (fairplay.assess)."""
    if assessment.is_held:
        republish(assessment)


def after_decision(assessment: Assessment) -> None:
    """A cleared result is published again; a confirmed one takes the account's results off."""
    if assessment.status == Assessment.Status.CONFIRMED:
        republish_player(assessment.player_id)
    else:
        republish(assessment)
