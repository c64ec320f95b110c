"""A game's replay: its move log turned back into positions, on the server.

A replay is sent as the deal in full and one step a log row, each with the edits from the
position before it (a few cards), and the browser computes the positions as it steps: an
800-move replay is tens of kilobytes, not every position in full. Who may watch which replay
is not this module's concern (records/public_replays.py says it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import orjson
from django.core.cache import cache

from games.actions import starting_position
from games.models import Game, Move
from games.play import cards_home

REPLAY_CACHE_SECONDS = 24 * 3600

logger = logging.getLogger(__name__)


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
