"""Replays and ghosts: a finished game's move log turned back into positions, on the server.

Who may watch what:

- Only a *finished* game is replayed: won or resigned; a stuck practice game (its deal is public
  anyway); a race game once its race is over. Anything else is refused, so a replay never shows
  the hidden cards of a game still being played.
- A finished game's replay shows the full position (every card face up): the game is over.
  It is sent as the deal in full and one step a log row, each with the edits from the position
  before it (a few cards), and the browser computes the positions as it steps: an 800-move
  replay is tens of kilobytes, not every position in full.
- A daily game's replay is the player's own until the challenge's UTC day ends; after that it is
  everyone's (before, it would show the day's deal and a winning line to players still to play).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

import orjson
from django.core.cache import cache
from django.urls import reverse

from daily.dealpick import day_start
from daily.scoring import cards_home
from games.actions import elapsed_ms, starting_position
from games.models import GAME_OVER, Game, Move, Player
from games.sockets import iso
from races.models import RACE_OVER, Racer

REPLAY_CACHE_SECONDS = 24 * 3600

logger = logging.getLogger(__name__)


class ReplayRefused(Exception):
    """This game cannot be watched (yet) by this viewer; the message says why."""


def is_finished(game: Game) -> bool:
    """Over for good: nothing about its deal is secret from its players any more."""
    racer = getattr(game, "racer", None) if game.kind == Game.Kind.RACE else None
    return finished(game.kind, game.status, racer.race.status if racer is not None else None)


def finished(kind: str, status: str, race_status: str | None) -> bool:
    """`is_finished` on plain facts: the game's kind and status and, for a race's game, its
    race's status (None: no race)."""
    if kind == Game.Kind.RACE:
        # A racer who has won or resigned shares the deal with others still racing.
        return race_status in RACE_OVER
    if status in GAME_OVER:
        return True
    return kind == Game.Kind.PRACTICE and status == Game.Status.STUCK


def replays_open(day: dt.date) -> dt.datetime:
    """When the replays of a day's daily challenge open to everyone: as the day ends."""
    return day_start(day + dt.timedelta(days=1))


def refusal(
    finished: bool, owner_id: int, day: dt.date | None, viewer: Player | None, now: dt.datetime
) -> str | None:
    """Why ``viewer`` may not watch a game now, or None if they may: the rule on plain facts (is
    it over, whose is it, which daily challenge's day if any), for the boards' cached rows."""
    if not finished:
        return "This game is still being played: its replay opens when it is over."
    if day is None or (viewer is not None and viewer.pk == owner_id):
        return None
    if now < replays_open(day):
        return (
            "Replays of today's daily challenge open when the day ends (midnight UTC), "
            "so nobody sees the deal before playing it."
        )
    return None


def check_replay(game: Game, viewer: Player | None, now: dt.datetime) -> None:
    """Raise ReplayRefused unless ``viewer`` may watch ``game``'s replay now."""
    finished = is_finished(game)
    attempt = getattr(game, "daily_attempt", None) if finished else None
    day = attempt.challenge.day if attempt is not None else None
    reason = refusal(finished, game.player_id, day, viewer, now)
    if reason is not None:
        raise ReplayRefused(reason)


@dataclass(frozen=True)
class Replayed:
    """A finished game as the replay sends it: the deal in full, then each log row as a step
    ``[move, ms, cards, edits]``: the move (or "undo"), when (ms from the game's start), the
    cards home after it, and the edits that turn the position before it into the one after
    (``edits``). The steps are kept as their JSON text: cached and sent as they are, a long
    replay costs a page one string, not thousands of objects to unpickle and encode again."""

    deal: dict
    cards: int  # cards home at the deal
    steps: bytes  # the JSON list of steps
    progress: list[tuple[int, int]]  # (ms, cards home) at each change: what a ghost shows
    end_ms: int

    def steps_json(self) -> orjson.Fragment:
        """The steps, for orjson to put in a document as they are."""
        return orjson.Fragment(self.steps)


def splice(old: list, new: list) -> list:
    """``[start, removed, *added]``: ``new`` is ``old`` with ``removed`` items at ``start``
    replaced by ``added`` (a move takes cards off one end of a pile and puts them on another)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return [start, len(old) - start - end, *new[start : len(new) - end]]


def edits(before: dict, after: dict) -> list[list]:
    """What changed between two positions, one edit a changed pile: ``["tableau.3", start,
    removed, *added]`` inside a list of piles, ``["stock", start, removed, *added]`` for a flat
    list, ``[key, value]`` for anything else."""
    out: list[list] = []
    for key, new in after.items():
        old = before.get(key)
        if new == old:
            continue
        if isinstance(new, list) and isinstance(old, list):
            if new and isinstance(new[0], list) and len(new) == len(old):
                out += [
                    [f"{key}.{i}", *splice(a, b)]
                    for i, (a, b) in enumerate(zip(old, new, strict=True))
                    if a != b
                ]
            else:
                out.append([key, *splice(old, new)])
        else:
            out.append([key, new])
    return out


def apply(view: dict, changes: list[list]) -> dict:
    """The position ``changes`` (from ``edits``) lead to from ``view``; ``view`` is left as it
    is (the browser's replay-steps.js does the same)."""
    out = dict(view)
    for path, *rest in changes:
        if len(rest) == 1:
            out[path] = rest[0]
            continue
        key, _, index = path.partition(".")
        start, removed, *added = rest
        if index:
            piles = out[key] = list(out[key])
            pile = piles[int(index)] = list(piles[int(index)])
        else:
            pile = out[key] = list(out[key])
        pile[start : start + removed] = added
    return out


def _position(engine) -> dict:
    """The engine's full state without its seed (said apart, when it may be) and its move count
    (a replay counts its steps)."""
    view = engine.to_dict()
    view.pop("seed", None)
    view.pop("moves", None)
    return view


def replay(game: Game) -> Replayed:
    """The game from its log: the deal, and each row's step (undo rows included) with its time."""
    engine = starting_position(game)
    before = deal = _position(engine)
    steps = []
    for move, at in game.moves.order_by("seq").values_list("move", "at"):
        if move == Move.UNDO:
            engine.undo()
        else:
            engine.play(move)
        after = _position(engine)
        ms = max(0, int((at - game.started_at).total_seconds() * 1000))
        steps.append([move, ms, cards_home(after), edits(before, after)])
        before = after
    cards = cards_home(deal)
    end_ms = steps[-1][1] if steps else 0
    return Replayed(deal, cards, orjson.dumps(steps), progress(cards, steps), end_ms)


def cached_replay(game: Game) -> Replayed:
    """``replay(game)``, kept in Django's cache per game and log length: a finished game's log
    no longer grows, and its replay is asked for again and again (a shared link)."""
    key = f"replay:{game.public_id}:{game.seq}"
    try:
        found = cache.get(key)
    except Exception:  # the cache (Redis) is down: compute, as on a first look
        logger.warning("cache unavailable for %s", key, exc_info=True)
        found = None
    if found is not None:
        return found
    made = replay(game)
    try:
        cache.set(key, made, REPLAY_CACHE_SECONDS)
    except Exception:
        logger.warning("cache unavailable for %s", key, exc_info=True)
    return made


def progress(dealt: int, steps: list[list]) -> list[tuple[int, int]]:
    """A run's progress as (ms, cards home) at each change, from the deal's cards on."""
    points = [(0, dealt)]
    for _, ms, cards, _ in steps:
        if cards != points[-1][1]:
            points.append((ms, cards))
    return points


def seed_is_public(game: Game, now: dt.datetime) -> bool:
    """A daily deal's seed stays unsaid until its day ends, even beside its replay."""
    attempt = getattr(game, "daily_attempt", None)
    return attempt is None or now >= day_start(attempt.challenge.day + dt.timedelta(days=1))


def shown_name(game: Game) -> str:
    """The name a run is shown under: a race game's is the name its racer raced under (as the
    race's results say it), else the player's nickname."""
    if game.kind == Game.Kind.RACE:
        name = Racer.objects.filter(game=game).values_list("name", flat=True).first()
        if name:
            return name
    return game.player.nickname


def replay_dict(game: Game, now: dt.datetime) -> dict:
    """A finished game's replay as the API and the replay page send it (docs/api.md): the deal
    in full, then one step a log row, each with its edits to the position before it. Encode it
    with orjson (its steps are JSON text already)."""

    replayed = cached_replay(game)
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
        "deal": {"ms": 0, "cards": replayed.cards, "view": replayed.deal},
        "steps": replayed.steps_json(),  # JSON text: send with orjson
    }
