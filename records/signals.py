"""What the record follows: ranked daily results onto the boards, names onto the boards' rows,
finished races onto the recent races list, and ended games to the losing-move search.

Imported once, by RecordsConfig.ready.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from daily.actions import AFTER_RANKED_RESULT
from games.models import Game, Player
from games.storage import ON_END
from races.actions import ON_CLOSE, Closing
from records import analysis, leaderboard
from records.recent_races import forget_newest


@receiver(post_save, sender=Player, dispatch_uid="records.signals.renamed")
def renamed(sender, instance: Player, created: bool, raw: bool = False, **kwargs) -> None:
    """A saved player may have a new nickname: the boards' cached rows show names (the saves
    are rare: a nickname, a sign-up). A new player is on no board yet."""
    update_fields = kwargs.get("update_fields")
    if raw or created or (update_fields is not None and "nickname" not in update_fields):
        return

    transaction.on_commit(leaderboard.names_changed)


@receiver(post_delete, sender=Player, dispatch_uid="records.signals.player_gone")
def player_gone(sender, instance: Player, **kwargs) -> None:
    """A guest merged into an account is deleted: its rows go, the account's show instead."""

    transaction.on_commit(leaderboard.names_changed)


def race_closed(closing: Closing) -> None:
    """A race that closes heads the recent races list at once (records/recent_races.py): its
    newest race is forgotten now and again after the commit (a list read between the two may
    have remembered the race before it); and its racers' games go to the losing-move search (a
    resignation and the close end a game with an update, which the Game post_save below never
    sees; the race replay shows every mark)."""
    forget_newest()
    transaction.on_commit(forget_newest)
    analysis.request([r.game_id for r in closing.racers if r.game_id is not None])


# A ranked daily result goes on its boards after the commit that changed it; a game that ends
# (in a move batch, or saved any other way) goes to the losing-move search for its replay.
AFTER_RANKED_RESULT.append(leaderboard.record_attempt)
ON_END.append(analysis.request)
ON_CLOSE.append(race_closed)
post_save.connect(analysis.after_save, sender=Game, dispatch_uid="records.analysis")
