"""Which replays are public, to whom, and what a replay shows (the page's and the API's JSON).

A replay's steps come from games/replay.py. Who may watch what:

- Only a *finished* game is replayed: won or resigned; a stuck practice game (its deal is public
  anyway); a race game once its race is over. Anything else is refused, so a replay never shows
  the hidden cards of a game still being played.
- A finished game's replay shows the full position (every card face up): the game is over.
- A daily game's replay is the player's own until the challenge's UTC day ends; after that it is
  everyone's (before, it would show the day's deal and a winning line to players still to play).
"""

from __future__ import annotations

import datetime as dt

from django.urls import reverse

from daily.dealpick import day_start
from games.actions import elapsed_ms
from games.models import GAME_OVER, Game, Player
from games.replay import cached_replay
from games.sockets import iso
from races.models import RACE_OVER, Racer


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
            "url": reverse("records:player", args=[game.player_id]),
        },
        "status": game.status,
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "moves": game.move_count,
        "elapsed_ms": elapsed_ms(game) if game.finished_at else None,
        "url": reverse("records:replay", args=[game.public_id]),
        "deal": {"ms": 0, "cards": replayed.cards, "view": replayed.deal},
        "steps": replayed.steps_json(),  # JSON text: send with orjson
    }
