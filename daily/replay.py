"""Replays and ghosts: a finished game's move log turned back into positions, on the server.

Who may watch what:

- Only a *finished* game is replayed: won or resigned; a stuck practice game (its deal is public
  anyway); a race game once its race is over. Anything else is refused, so a replay never shows
  the hidden cards of a game still being played.
- A finished game's replay shows the full position (every card face up): the game is over.
- A daily game's replay is the player's own until the challenge's UTC day ends; after that it is
  everyone's (before, it would show the day's deal and a winning line to players still to play).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from django.core.cache import cache

from daily.dealpick import day_start
from daily.scoring import cards_home
from games.actions import elapsed_ms, move_log, starting_position
from games.models import Game, Move, Player
from games.solver import first_losing_move_from

# The solver's budget for finding where a replayed game was lost: per position searched, and in
# all. Spent once per game and log length (then cached), on the first view of its replay.
LOSING_SECONDS_PER_POSITION = 1.0
LOSING_TOTAL_SECONDS = 3.0
LOSING_CACHE_SECONDS = 30 * 24 * 3600

logger = logging.getLogger(__name__)


class ReplayRefused(Exception):
    """This game cannot be watched (yet) by this viewer; the message says why."""


def is_finished(game: Game) -> bool:
    """Over for good: nothing about its deal is secret from its players any more."""
    if game.kind == Game.Kind.RACE:
        # A racer who has won or resigned shares the deal with others still racing.
        racer = getattr(game, "racer", None)
        return racer is not None and racer.race.is_over
    if game.is_over:
        return True
    return game.kind == Game.Kind.PRACTICE and game.status == Game.Status.STUCK


def check_replay(game: Game, viewer: Player | None, now: dt.datetime) -> None:
    """Raise ReplayRefused unless ``viewer`` may watch ``game``'s replay now."""
    if not is_finished(game):
        raise ReplayRefused("This game is still being played: its replay opens when it is over.")
    attempt = getattr(game, "daily_attempt", None)
    if attempt is None or (viewer is not None and viewer.pk == game.player_id):
        return
    opens = day_start(attempt.challenge.day + dt.timedelta(days=1))
    if now < opens:
        raise ReplayRefused(
            "Replays of today's daily challenge open when the day ends (midnight UTC), "
            "so nobody sees the deal before playing it."
        )


@dataclass(frozen=True)
class Frame:
    """The position after one row of the log (frame 0: the deal)."""

    move: str | None  # the log row that led here: a move, "undo", or None for the deal
    ms: int  # when, in milliseconds from the game's start
    view: dict  # the engine's full state
    cards: int  # cards home (on the foundations for good)

    def as_dict(self) -> dict:
        return {"move": self.move, "ms": self.ms, "cards": self.cards, "view": self.view}


def _position(engine) -> dict:
    view = engine.to_dict()
    view.pop("seed", None)
    return view


def frames(game: Game) -> list[Frame]:
    """Every position of the game from its log, undo rows included, with their times."""
    engine = starting_position(game)
    view = _position(engine)
    out = [Frame(None, 0, view, cards_home(view))]
    for move, at in game.moves.order_by("seq").values_list("move", "at"):
        if move == Move.UNDO:
            engine.undo()
        else:
            engine.play(move)
        view = _position(engine)
        ms = max(0, int((at - game.started_at).total_seconds() * 1000))
        out.append(Frame(move, ms, view, cards_home(view)))
    return out


def progress(replayed: list[Frame]) -> list[tuple[int, int]]:
    """A run's progress as (ms, cards home) at each change: what a ghost shows."""
    points: list[tuple[int, int]] = []
    for frame in replayed:
        if not points or frame.cards != points[-1][1]:
            points.append((frame.ms, frame.cards))
    return points


def seed_is_public(game: Game, now: dt.datetime) -> bool:
    """A daily deal's seed stays unsaid until its day ends, even beside its replay."""
    attempt = getattr(game, "daily_attempt", None)
    return attempt is None or now >= day_start(attempt.challenge.day + dt.timedelta(days=1))


def shown_name(game: Game) -> str:
    """The name a run is shown under: a race game's is the name its racer raced under (as the
    race's results say it), else the player's nickname."""
    if game.kind == Game.Kind.RACE:
        from races.models import Racer

        name = Racer.objects.filter(game=game).values_list("name", flat=True).first()
        if name:
            return name
    return game.player.nickname


def replay_dict(game: Game, now: dt.datetime) -> dict:
    """A finished game's replay as the API and the replay page send it (docs/api.md)."""
    from django.urls import reverse

    from games.frames import iso

    replayed = frames(game)
    return {
        "game": game.public_id,
        "variant": game.variant,
        "kind": game.kind,
        "seed": game.seed if seed_is_public(game, now) else None,
        "player": {
            "id": game.player_id,
            "nickname": shown_name(game),
            "url": reverse("daily:player", args=[game.player_id]),
        },
        "status": game.status,
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "moves": game.move_count,
        "elapsed_ms": elapsed_ms(game) if game.finished_at else None,
        "url": reverse("daily:replay", args=[game.public_id]),
        "frames": [frame.as_dict() for frame in replayed],
    }


def losing_frame(game: Game) -> int | None:
    """The frame right after the first move that turned a winnable position into a lost one
    (the solver proves both within its budget), or None: no such move, or none proved in time.

    Computed once per game and log length (a finished game's log no longer grows) and kept in
    Django's cache; an undone blunder still counts: it was played.
    """
    key = f"replay-losing:{game.public_id}:{game.seq}"
    try:
        cached = cache.get(key)
    except Exception:  # the cache (Redis) is down: compute, as on a first look
        logger.warning("cache unavailable for %s", key, exc_info=True)
        cached = None
    if cached is not None:
        return cached["frame"]
    log = move_log(game)
    index = first_losing_move_from(
        starting_position(game),
        log,
        max_seconds_per_position=LOSING_SECONDS_PER_POSITION,
        max_total_seconds=LOSING_TOTAL_SECONDS,
    )
    frame = None if index is None else index + 1
    try:
        cache.set(key, {"frame": frame}, LOSING_CACHE_SECONDS)
    except Exception:
        logger.warning("cache unavailable for %s", key, exc_info=True)
    return frame
