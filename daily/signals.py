"""Keeps daily attempts (and their boards) in step with their games, whatever saved the game.

A daily game is played through games.actions like every other kind; this receiver is the one
place the daily challenge hears about it, so no path that saves a game can skip the boards.
"""

from django.db.models.signals import post_save
from django.dispatch import receiver

from games.models import Game


@receiver(post_save, sender=Game, dispatch_uid="daily.signals.sync_daily_attempt")
def sync_daily_attempt(sender, instance: Game, created: bool, raw: bool = False, **kwargs) -> None:
    if raw or created or instance.kind != Game.Kind.DAILY:
        return
    from daily.actions import sync_attempt
    from daily.models import DailyAttempt

    attempt = DailyAttempt.objects.filter(game=instance).first()
    if attempt is not None:
        sync_attempt(attempt, instance)
