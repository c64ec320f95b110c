"""The losing-move mark of a replay, found off the request and stored (``LosingMove``).

The solver looks for the first move that turned a position proved winnable into one proved lost
(``games.solver.first_losing_move_from``): up to ``LOSING_TOTAL_SECONDS`` of search a game, far
too long for a page. So it runs

- when a game ends: the move writer's batch that finishes it, or a save that resigns it, hands
  the game to this process's analysis worker (``REPLAY_ANALYSIS=1``, the default), which
  searches after the commit, one game at a time, at most ``QUEUE_LIMIT`` waiting, and only
  while the machine's cores are not contended (live play comes first: ``games.worker.contended``).
  The worker is a process of its own at a lower priority (games/worker.py), never a thread of
  the web process, whose sockets a search would stall;
- from ``manage.py analyse_replays`` (the scheduler runs it every minute): the recent finished
  games that have no mark for their log yet (a restart lost the queue, a race closed by time, a
  game nobody's thread saw end, a crowd's games the worker let wait), stopping while the cores
  are contended.

The replay page only reads the stored mark: "being analysed" until it exists. Opening a replay
without one asks the thread to look (never the request itself).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db.models import F, Q

from daily.models import LosingMove
from games import worker
from games.models import Game, Move
from games.play import move_log, starting_position
from games.solver import first_losing_move_from

LOSING_SECONDS_PER_POSITION = 1.0
LOSING_TOTAL_SECONDS = 3.0
QUEUE_LIMIT = 64
"""Games waiting for the thread at most; more are left to ``analyse_replays``."""

logger = logging.getLogger(__name__)


def losing_frame_of(game: Game) -> int | None:
    """Search: the frame right after the game's first losing move, or None (no such move, or
    none proved within the budget). An undone blunder still counts: it was played. A game won
    without an undo needs no search: no move of its line can have lost it."""
    log = move_log(game)
    if game.status == Game.Status.WON and Move.UNDO not in log:
        return None
    index = first_losing_move_from(
        starting_position(game),
        log,
        max_seconds_per_position=LOSING_SECONDS_PER_POSITION,
        max_total_seconds=LOSING_TOTAL_SECONDS,
    )
    return None if index is None else index + 1


def analyse(game_pk: int) -> bool:
    """Find and store one game's mark, unless it is stored for its log already; True if a
    search ran."""

    game = Game.objects.filter(pk=game_pk).first()
    if game is None or LosingMove.objects.filter(game=game, seq=game.seq).exists():
        return False
    frame = losing_frame_of(game)
    LosingMove.objects.update_or_create(game=game, defaults={"seq": game.seq, "frame": frame})
    return True


def stored(game: Game) -> tuple[bool, int | None]:
    """(analysed, frame): whether the game's log has a stored mark, and the mark."""

    row = LosingMove.objects.filter(game=game).values_list("seq", "frame").first()
    if row is None or row[0] != game.seq:
        return False, None
    return True, row[1]


def waiting(recent: int, limit: int) -> list[int]:
    """Among the ``recent`` newest games, the finished ones without a mark for their log,
    newest first (at most ``limit``): a primary-key range, never a scan of every game."""
    newest = Game.objects.order_by("-pk").values_list("pk", flat=True).first()
    if newest is None:
        return []
    ended = (
        Q(status__in=[Game.Status.WON, Game.Status.RESIGNED])
        | Q(kind=Game.Kind.PRACTICE, status=Game.Status.STUCK)
        | Q(kind=Game.Kind.RACE, racer__race__status="finished")
    )
    rows = (
        Game.objects.filter(pk__gt=newest - recent)
        .filter(ended)
        .exclude(losing_move__seq=F("seq"))
        .order_by("-pk")
        .values_list("pk", flat=True)
    )
    return list(rows[:limit])


# ------------------------------------------------------------------ the worker


def _work(game_pk: int) -> bool:
    """One game's search, in the worker."""
    try:
        return analyse(game_pk)
    except Exception:
        logger.exception("the losing-move search of game %s failed", game_pk)
        return False


_queue = worker.JobQueue(_work, QUEUE_LIMIT, yields=True)


def request(game_pks) -> None:
    """Hand games to the analysis worker (if it is on) after the current transaction commits,
    as fair play's are (`games.worker.JobQueue`)."""
    if settings.REPLAY_ANALYSIS:
        _queue.request(game_pks)


ENDED = frozenset({Game.Status.WON, Game.Status.STUCK, Game.Status.RESIGNED})


def after_save(sender, instance: Game, created: bool, raw: bool = False, **kwargs) -> None:
    """A game saved as ended outside the move path (a resignation)."""
    if not raw and not created and instance.status in ENDED:
        request([instance.pk])
