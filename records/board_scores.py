"""The leaderboards computed from the database, the record the Redis boards index.

Every board here counts ranked daily attempts only (an account's first attempt of a day): they
are the games played on the same deal under the server's clock. A member is a player's id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db.models import Count, Min, Q

from daily.models import DailyAttempt, DailyStreak
from games.models import Game
from records import scoring
from records.boards import DAILY, FASTEST, STREAK, WINS, Board

WITHHELD: list[Callable[[], Q]] = []
"""Ranked attempts kept off every board and streak, each a condition on DailyAttempt,
registered by an app above (fairplay: results held for review, accounts confirmed as bots)."""


def ranked_attempts(variant: str | None = None):
    """The ranked attempts the boards count (of one variant, or all), the withheld left out."""
    rows = DailyAttempt.objects.filter(ranked=True)
    if variant is not None:
        rows = rows.filter(challenge__variant=variant)
    for withheld in WITHHELD:
        rows = rows.exclude(withheld())
    return rows


def is_withheld(attempt_pk: int) -> bool:
    """A ranked attempt the boards leave out (no query while nothing is registered)."""
    return bool(WITHHELD) and not ranked_attempts().filter(pk=attempt_pk).exists()


def attempt_result(attempt: DailyAttempt) -> scoring.DailyResult:
    """A ranked attempt as the daily board ranks it (its game must be loaded)."""
    if attempt.game.status == Game.Status.WON and attempt.elapsed_ms is not None:
        return scoring.DailyResult(won=True, ms=attempt.elapsed_ms, foundations=0)
    return scoring.DailyResult(
        won=False, ms=attempt.foundations_ms, foundations=attempt.foundations
    )


def scores(board: Board, players: Iterable[int] | None = None) -> dict[str, float]:
    """Every member's score on a board (or only those of ``players``), from the database."""
    if board.kind == DAILY:
        rows = ranked_attempts(board.variant).filter(challenge__day=board.day)
        if players is not None:
            rows = rows.filter(player_id__in=list(players))
        # The game's status only: its row also holds the state, a few kilobytes of JSON each.
        rows = rows.select_related("game").only(
            "player_id", "elapsed_ms", "foundations", "foundations_ms", "game__status"
        )
        return {str(a.player_id): scoring.daily_score(attempt_result(a)) for a in rows}
    if board.kind == STREAK:  # one row per player, kept as wins are recorded
        runs = DailyStreak.objects.filter(variant=board.variant, longest__gt=0)
        if players is not None:
            runs = runs.filter(player_id__in=list(players))
        return {str(p): scoring.count_score(n) for p, n in runs.values_list("player_id", "longest")}
    wins = ranked_attempts(board.variant).filter(game__status=Game.Status.WON)
    if players is not None:
        wins = wins.filter(player_id__in=list(players))
    if board.kind == FASTEST:
        best = (
            wins.filter(elapsed_ms__isnull=False).values("player_id").annotate(ms=Min("elapsed_ms"))
        )
        return {str(r["player_id"]): scoring.fastest_score(r["ms"]) for r in best}
    if board.kind == WINS:
        counts = wins.values("player_id").annotate(n=Count("id"))
        return {str(r["player_id"]): scoring.count_score(r["n"]) for r in counts}
    raise ValueError(f"unknown board {board.kind!r}")
