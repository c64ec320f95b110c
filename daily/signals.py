"""Keeps daily attempts (and their boards) in step with their games.

A daily move takes the move path like every other (games/play.py): the writer stores the
attempt's result with the move and, once the batch is stored, calls `record_ranked_attempts`
for the boards. A daily game saved any other way (a resignation) is heard by the `post_save`
receiver below, and so is a player's new nickname (the boards' cached rows show names).
"""

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from games.models import Game, Player


@receiver(post_save, sender=Game, dispatch_uid="daily.signals.sync_daily_attempt")
def sync_daily_attempt(sender, instance: Game, created: bool, raw: bool = False, **kwargs) -> None:
    if raw or created or instance.kind != Game.Kind.DAILY:
        return
    from daily.actions import sync_attempt
    from daily.models import DailyAttempt

    attempt = DailyAttempt.objects.filter(game=instance).first()
    if attempt is not None:
        sync_attempt(attempt, instance)


@receiver(post_save, sender=Player, dispatch_uid="daily.signals.renamed")
def renamed(sender, instance: Player, created: bool, raw: bool = False, **kwargs) -> None:
    """A saved player may have a new nickname: the boards' cached rows show names (the saves
    are rare: a nickname, a sign-up). A new player is on no board yet."""
    update_fields = kwargs.get("update_fields")
    if raw or created or (update_fields is not None and "nickname" not in update_fields):
        return
    from daily import leaderboard

    transaction.on_commit(leaderboard.names_changed)


@receiver(post_delete, sender=Player, dispatch_uid="daily.signals.player_gone")
def player_gone(sender, instance: Player, **kwargs) -> None:
    """A guest merged into an account is deleted: its rows go, the account's show instead."""
    from daily import leaderboard

    transaction.on_commit(leaderboard.names_changed)


@receiver(post_save, sender="races.Race", dispatch_uid="daily.signals.race_finished")
def race_finished(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """A race that finishes heads the recent races list at once (daily/races.py): its newest
    race is forgotten now and again after the commit (a list read between the two may have
    remembered the race before it)."""
    if raw or instance.status != instance.Status.FINISHED:
        return
    from daily.races import forget_newest

    forget_newest()
    transaction.on_commit(forget_newest)


def has_ranked_attempts(applied, result) -> bool:
    """Whether a stored batch moved a ranked attempt (its board's entry changes)."""
    return any(write.attempt is not None and write.attempt.ranked for write in applied)


def record_ranked_attempts(applied, result) -> None:
    """The boards of ranked attempts a stored batch of moves changed (games/writer.py's hook)."""
    from daily import leaderboard

    for write in applied:
        if write.attempt is not None and write.attempt.ranked:
            leaderboard.record_attempt(write.attempt.pk)
