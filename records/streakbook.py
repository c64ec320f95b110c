"""The streak board's record: each player's run of consecutive days won, per variant, kept as
ranked wins are recorded (one row per player and variant), so neither a board write nor a
rebuild reads the history of daily attempts.

A win is normally the latest day the player has won (a ranked attempt is started on its day),
and advancing the run takes one row. A win that arrives out of order (an attempt started before
midnight and won after the next day's) recounts that one player's days. ``recount_all`` builds
the whole table from history: the data migration and ``rebuild_leaderboards`` use it.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from daily.models import DailyStreak
from records.board_scores import ranked_attempts
from records.streaks import longest_streak

_DAY = dt.timedelta(days=1)


@dataclass(frozen=True)
class Run:
    """A player's streak on one variant: the longest run, and the run ending on ``last_day``."""

    longest: int
    current: int
    last_day: dt.date


def advance(run: Run | None, day: dt.date) -> Run | None:
    """The run after a win on ``day``; None when the day is before the run's last (recount)."""
    if run is None:
        return Run(1, 1, day)
    if day == run.last_day:
        return run
    if day < run.last_day:
        return None
    current = run.current + 1 if day - run.last_day == _DAY else 1
    return Run(max(run.longest, current), current, day)


def run_of(days) -> Run | None:
    """The run of a set of won days, counted afresh."""
    played = sorted(set(days))
    if not played:
        return None
    current = 1
    while current < len(played) and played[-1 - current] == played[-current] - _DAY:
        current += 1
    return Run(longest_streak(played), current, played[-1])


def won_days(player_id: int, variant: str) -> list[dt.date]:
    """The days the player won, of the wins the boards count."""
    return list(
        ranked_attempts(variant)
        .filter(player_id=player_id, game__status="won")
        .values_list("challenge__day", flat=True)
    )


def record_win(player_id: int, variant: str, day: dt.date) -> Run:
    """Count a ranked win on ``day`` into the player's streak (idempotent); the run now."""

    with transaction.atomic():
        row = (
            DailyStreak.objects.select_for_update(no_key=True)
            .filter(player_id=player_id, variant=variant)
            .first()
        )
        old = None if row is None else Run(row.longest, row.current, row.last_day)
        new = advance(old, day) or run_of(won_days(player_id, variant) + [day])
        if new != old:
            _keep(player_id, variant, new)
    return new


def recount(player_id: int, variant: str) -> Run | None:
    """The player's streak counted afresh from the wins the boards count (a win withheld or
    published again); None, and no row, when none is left."""
    with transaction.atomic():
        DailyStreak.objects.select_for_update(no_key=True).filter(
            player_id=player_id, variant=variant
        ).first()
        run = run_of(won_days(player_id, variant))
        if run is None:
            DailyStreak.objects.filter(player_id=player_id, variant=variant).delete()
        else:
            _keep(player_id, variant, run)
    return run


def _keep(player_id: int, variant: str, run: Run) -> None:
    DailyStreak.objects.update_or_create(
        player_id=player_id,
        variant=variant,
        defaults={"longest": run.longest, "current": run.current, "last_day": run.last_day},
    )


def recount_all() -> int:
    """Rebuild the table from every ranked win the boards count; the number of rows."""
    days: dict[tuple[int, str], list[dt.date]] = defaultdict(list)
    wins = (
        ranked_attempts()
        .filter(game__status="won")
        .values_list("player_id", "challenge__variant", "challenge__day")
    )
    for player_id, variant, day in wins.iterator(chunk_size=10_000):
        days[player_id, variant].append(day)
    rows = []
    for (player_id, variant), won in days.items():
        run = run_of(won)
        rows.append(
            DailyStreak(
                player_id=player_id,
                variant=variant,
                longest=run.longest,
                current=run.current,
                last_day=run.last_day,
            )
        )
    with transaction.atomic():
        DailyStreak.objects.all().delete()
        DailyStreak.objects.bulk_create(rows, batch_size=5_000)
    return len(rows)
