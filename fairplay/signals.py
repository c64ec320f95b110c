"""Fair play's registrations, made once by FairplayConfig.ready.

When a ranked game may have ended, its assessment is asked for (fairplay/assess.py):

- the move writer's batch that wins or sticks a game (`games.storage.ON_END`);
- a game saved as ended outside the move path (a daily attempt resigned);
- a rated race's close (`races.actions.ON_CLOSE`): every signed-in racer's game, those the close
  ended included (it ends them with an update, which no signal hears), from the racers the close
  holds.

Each hand-over is cheap (a set and an `on_commit`); the worker drops games that are not ranked.
The boards, streaks and ratings leave withheld results out (fairplay/holds.py).
"""

from __future__ import annotations

from django.db.models.signals import post_save

from fairplay import actions, assess, holds
from games.models import Game
from games.storage import ON_END
from races.actions import ON_CLOSE, Closing
from races.ratings import updates
from records import board_scores


def game_saved(sender, instance: Game, created: bool, raw: bool = False, **kwargs) -> None:
    ended = instance.status in assess.ENDED and instance.kind != Game.Kind.PRACTICE
    if ended and not raw and not created:
        assess.request([instance.pk])


def race_closed(closing: Closing) -> None:
    if closing.race.rated:
        signed_in = [r for r in closing.racers if r.game_id is not None and r.player.user_id]
        assess.request([r.game_id for r in signed_in])


ON_END.append(assess.request)
post_save.connect(game_saved, sender=Game, dispatch_uid="fairplay.game_saved")
ON_CLOSE.append(race_closed)
board_scores.WITHHELD.append(holds.withheld_attempts)
updates.WITHHELD.append(holds.withheld_racers)
assess.ON_ASSESSED.append(holds.after_assessment)
actions.ON_DECISION.append(holds.after_decision)
