"""What people do to assessments: a player reports a result, a reviewer clears or confirms one.

`do_report` checks and refuses with a `ReportRefused` whose message is the sentence the player
reads; `do_clear` and `do_confirm` are the review queue's actions (fairplay/admin.py). What the
boards and ratings do about a decision is registered in `ON_DECISION` (fairplay/holds.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from fairplay import assess
from fairplay.models import Assessment, FlaggedPlayer, Report
from games.models import Game, Player
from games.rows import one_or_none

REPORTS_PER_HOUR = 5
"""A player's reports in any hour at most: a flood is refused, never queued."""

REPORT_WINDOW = timedelta(hours=1)

ON_DECISION: list[Callable[[Assessment], None]] = []
"""Called after the commit with each assessment a reviewer cleared or confirmed."""


class ReportRefused(Exception):
    """A report that is not taken; the message says why, for the player."""


class TooManyReports(ReportRefused):
    """A report past the player's hourly limit."""


def check_reporter(reporter: Player | None, game: Game) -> None:
    """Refuse, before any reason is chosen, a report this player may not make of `game`."""
    if reporter is None or reporter.is_guest:
        raise ReportRefused("Log in (or sign up) to report a result.")
    if game.player_id == reporter.pk:
        raise ReportRefused("You cannot report your own result.")
    if game.kind == Game.Kind.PRACTICE or assess.ranked_kind(game) is None:
        raise ReportRefused("Only ranked results (the daily, rated races) can be reported.")


def do_report(reporter: Player, game: Game, reason: str, note: str = "") -> Report:
    """Report `game` (someone else's ranked result): the report is kept and the result goes to
    the review queue (its assessment, once made, is pending); nothing is removed by it."""
    check_reporter(reporter, game)
    if reason not in Report.Reason.values:
        raise ReportRefused("Choose a reason for the report.")
    if "\0" in note:  # as Django's forms refuse it: no database text holds a NUL
        raise ReportRefused("A note cannot hold a null character.")
    since = timezone.now() - REPORT_WINDOW
    with transaction.atomic():
        one_or_none(Player.objects.select_for_update(no_key=True).filter(pk=reporter.pk))
        recent = Report.objects.filter(reporter=reporter, created_at__gt=since).count()
        if recent >= REPORTS_PER_HOUR:
            raise TooManyReports(
                f"You have made {recent} reports in the last hour, the most we take: "
                "please wait before reporting another result."
            )
        try:
            with transaction.atomic():
                report = Report.objects.create(
                    reporter=reporter, game=game, reason=reason, note=note[:300]
                )
        except IntegrityError:
            raise ReportRefused("You have reported this result already.") from None
        Assessment.objects.filter(game=game).update(reports=F("reports") + 1)
        Assessment.objects.filter(
            game=game, status=Assessment.Status.CLEARED, reviewer__isnull=True
        ).update(status=Assessment.Status.PENDING)
    if not Assessment.objects.filter(game=game).exists():
        assess.request([game.pk])
    return report


def _decide(assessment: Assessment, reviewer, status: str) -> Assessment:
    assessment.status = status
    assessment.reviewer = reviewer
    assessment.reviewed_at = timezone.now()
    assessment.save(update_fields=["status", "reviewer", "reviewed_at", "updated_at"])
    for hook in ON_DECISION:
        transaction.on_commit(lambda hook=hook: hook(assessment))
    return assessment


def do_clear(assessment: Assessment, reviewer) -> Assessment:
    """A person found the result fair: it is published (boards, rating)."""
    with transaction.atomic():
        return _decide(assessment, reviewer, Assessment.Status.CLEARED)


def do_confirm(assessment: Assessment, reviewer) -> Assessment:
    """A person found the result a bot's: the account is flagged, and every ranked result of it
    leaves the boards (fairplay/holds.py)."""
    with transaction.atomic():
        FlaggedPlayer.objects.get_or_create(
            player_id=assessment.player_id,
            defaults={"assessment": assessment, "flagged_by": reviewer},
        )
        return _decide(assessment, reviewer, Assessment.Status.CONFIRMED)
