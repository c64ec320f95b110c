"""Fair play's registrations, made once by FairplayConfig.ready.

When a ranked game may have ended, its assessment is asked for (fairplay/assess.py):

- the move writer's batch that wins or sticks a game (`games.storage.ON_END`);
- a game saved as ended outside the move path (a daily attempt resigned);
- a rated race that finishes: every signed-in racer's game, those its close ended included (the close ends
  them with an update, which no signal hears).

Each hand-over is cheap (a set and an `on_commit`); the worker drops games that are not ranked.
The boards, streaks and ratings leave withheld results out (fairplay/holds.py).
"""

from __future__ import annotations

from django.db.models.signals import post_save

from fairplay import actions, assess, holds
from games.models import Game
from games.storage import ON_END
from races.models import Race
from races.ratings import updates
from records import board_scores


def game_saved(sender, instance: Game, created: bool, raw: bool = False, **kwargs) -> None:
    ended = instance.status in assess.ENDED and instance.kind != Game.Kind.PRACTICE
    if ended and not raw and not created:
        assess.request([instance.pk])


def race_saved(sender, instance: Race, created: bool, raw: bool = False, **kwargs) -> None:
    if not raw and instance.status == Race.Status.FINISHED and instance.rated:
        racers = instance.racers.exclude(game=None).filter(player__user__isnull=False)
        assess.request(racers.values_list("game_id", flat=True))


ON_END.append(assess.request)
post_save.connect(game_saved, sender=Game, dispatch_uid="fairplay.game_saved")
post_save.connect(race_saved, sender=Race, dispatch_uid="fairplay.race_saved")
board_scores.WITHHELD.append(holds.withheld_attempts)
updates.WITHHELD.append(holds.withheld_racers)
assess.ON_ASSESSED.append(holds.after_assessment)
actions.ON_DECISION.append(holds.after_decision)
