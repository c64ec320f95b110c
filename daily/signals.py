"""Keeps daily attempts in step with their games.

A daily move takes the move path like every other (games/play.py): the attempt's new result is
its part of the game's write (`AttemptWrite`, added by `attempt_part` for every daily game when
it is loaded), stored in the same statement, and once the batch is stored what follows a ranked
attempt's new result runs (`record_ranked`: daily.actions.AFTER_RANKED_RESULT, where the
records app puts its boards). A daily game saved any other way (a resignation) is heard by the
`post_save` receiver below.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.db.models.signals import post_save
from django.dispatch import receiver

from daily.actions import AFTER_RANKED_RESULT, sync_attempt
from daily.models import DailyAttempt
from games.models import Game
from games.play import OVER, WRITE_PARTS
from games.rows import one_or_none
from games.storage import BatchPart, register


@receiver(post_save, sender=Game, dispatch_uid="daily.signals.sync_daily_attempt")
def sync_daily_attempt(sender, instance: Game, created: bool, raw: bool = False, **kwargs) -> None:
    if raw or created or instance.kind != Game.Kind.DAILY:
        return

    attempt = one_or_none(DailyAttempt.objects.filter(game=instance))
    if attempt is not None:
        sync_attempt(attempt, instance)


@dataclass
class AttemptWrite:
    """A daily attempt's result after a move (daily_dailyattempt), its part of the write."""

    pk: int
    ranked: bool
    foundations: int
    foundations_ms: int
    elapsed_ms: int | None
    announce: bool = False
    follow_up: bool = False
    """A ranked attempt's new result is followed up after the commit (AFTER_RANKED_RESULT)."""

    def row(self) -> dict:
        return {
            "id": self.pk,
            "found": self.foundations,
            "found_ms": self.foundations_ms,
            "elapsed": self.elapsed_ms,
        }


def attempt_part(game: Game):
    """What adds the attempt's result to each write of this daily game (play.WRITE_PARTS)."""

    found = one_or_none(DailyAttempt.objects.filter(game_id=game.pk).values_list("pk", "ranked"))
    return None if found is None else functools.partial(add_attempt, *found)


def add_attempt(pk: int, ranked: bool, live, write) -> None:
    """The attempt's new result, when the move changed it (cards home, or the end)."""
    over = live.status in OVER and live.finished_at is not None
    if write.home == write.home_before and not over:
        return
    elapsed = max(0, int((write.at - live.started_at).total_seconds() * 1000))
    write.parts["attempt"] = AttemptWrite(
        pk=pk,
        ranked=ranked,
        foundations=write.home,
        foundations_ms=elapsed,
        elapsed_ms=elapsed if over else None,
        follow_up=ranked,
    )


ATTEMPT_SQL = """
attempt AS (
    UPDATE daily_dailyattempt da
    SET foundations = y.found, foundations_ms = y.found_ms, elapsed_ms = y.elapsed
    FROM b, jsonb_to_recordset(b.b -> 'attempt') AS y(
        game_id bigint, id bigint, found int, found_ms bigint, elapsed bigint
    )
    JOIN g ON g.id = y.game_id
    WHERE da.id = y.id
)
"""


def write_attempts(pairs) -> None:
    """ATTEMPT_SQL through the ORM (SQLite)."""

    for _, a in pairs:
        DailyAttempt.objects.filter(pk=a.pk).update(
            foundations=a.foundations, foundations_ms=a.foundations_ms, elapsed_ms=a.elapsed_ms
        )


def record_ranked(attempts: list[AttemptWrite]) -> None:
    """What follows the new results of ranked attempts a stored batch of moves changed."""

    for attempt in attempts:
        for follow in AFTER_RANKED_RESULT:
            follow(attempt.pk)


# The attempt's part of every daily game's move batch: its result in the batch's statement,
# what follows a ranked result after the commit.
WRITE_PARTS[Game.Kind.DAILY] = attempt_part
register(BatchPart(name="attempt", sql=ATTEMPT_SQL, orm=write_attempts, after_commit=record_ranked))
