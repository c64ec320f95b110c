"""A race watched again: every racer's game on the race's own clock, in one document
(docs/api.md, "Race replays"; the page is records/race_replay.html with js/race-replay.js).

The rule is the single replays' (records/public_replays.py): a race game is public once its race
is over, so a race's replay opens when the race finishes and never before, to anyone. The deal
is sent once in full (every racer played it); each racer's steps are games/replay.py's, kept as
JSON text in the cache and put into the document as they are, their times shifted onto the race's
clock only when a game started apart from its race (none does today: races/actions.py starts each
game at the race's ``starts_at``). The losing move of each game is the one records/analysis.py
stored off the request; a GET reads, it never asks for one nor writes anything.
"""

from __future__ import annotations

import orjson
from django.urls import reverse

from daily.models import LosingMove
from games.replay import Replayed, cached_replay
from games.sockets import iso
from races.codes import normalize_code
from races.models import Race, Racer
from records.public_replays import ReplayRefused


class RaceReplayGone(Exception):
    """There is no race to replay here (the message says why)."""


def find(code: str) -> Race | None:
    """The race with this code, typed any way."""
    return Race.objects.filter(code=normalize_code(code) or "").first()


def check_race_replay(race: Race) -> None:
    """Raise ReplayRefused while the race is not over, RaceReplayGone when it never ran."""
    if race.status == Race.Status.CANCELLED:
        raise RaceReplayGone(
            f"Race {race.code} was cancelled before it started: nothing was raced."
        )
    if race.status != Race.Status.FINISHED:
        raise ReplayRefused(
            f"Race {race.code} is not over yet: its replay opens when the race finishes, "
            "so nobody sees another racer's cards while the race is on."
        )


def _on_race_clock(replayed: Replayed, shift_ms: int):
    """The steps with their times from the race's start: the cached text as it is when the game
    started with its race, else decoded and shifted (a game started apart from its race)."""
    if not shift_ms:
        return replayed.steps_json()
    steps = orjson.loads(replayed.steps)
    for step in steps:
        step[1] += shift_ms
    return orjson.Fragment(orjson.dumps(steps))


def losing_moves(games: list[int], seqs: dict[int, int]) -> dict[int, tuple[bool, int | None]]:
    """Per game pk, (analysed, frame) from the stored marks (one query): analysed when a mark
    was stored for the game's whole log."""
    found = {pk: (False, None) for pk in games}
    rows = LosingMove.objects.filter(game_id__in=games).values_list("game_id", "seq", "frame")
    for pk, seq, frame in rows:
        if seq == seqs[pk]:
            found[pk] = (True, frame)
    return found


def replay_racer(racer: Racer, race: Race, marks: dict, deal: dict) -> dict:
    """One racer of a finished race, with their steps on the race's clock."""
    game = racer.game
    out = {
        "id": racer.public_id,
        "name": racer.name,
        "player": {"id": racer.player_id, "url": reverse("records:player", args=[racer.player_id])},
        "place": racer.place,
        "status": racer.status,
        "finish_ms": racer.finish_ms if racer.status == Racer.Status.WON else None,
        "done_ms": racer.done_ms,
        "resigned_for": racer.resigned_for or None,
        "cards": racer.cards,
        "moves": racer.moves,
        "game": None,
        "replay": None,
        "analysed": False,
        "losing_frame": None,
        "steps": [],
        "last_ms": 0,  # taken out by end_ms
    }
    if game is None:  # a game deleted since: the racer's row stays, without moves
        return out
    replayed = cached_replay(game)
    deal.setdefault("cards", replayed.cards)
    deal.setdefault("view", replayed.deal)
    shift_ms = int((game.started_at - race.starts_at).total_seconds() * 1000)
    analysed, frame = marks[game.pk]
    out.update(
        game=game.public_id,
        replay=reverse("records:replay", args=[game.public_id]),
        analysed=analysed,
        losing_frame=frame,
        steps=_on_race_clock(replayed, shift_ms),
        last_ms=replayed.end_ms + shift_ms,
    )
    return out


def race_replay_dict(race: Race) -> dict:
    """A finished race's replay (docs/api.md): the race, the deal once, then each racer (in the
    order they joined: the order ties fall back to) with their steps. Three queries when the
    games' replays are cached (the race, its racers with their games, the losing moves), one
    more a game whose replay is not. Encode with orjson (the steps are JSON text)."""
    racers = list(race.racers.select_related("game"))
    games = [r.game for r in racers if r.game is not None]
    marks = losing_moves([g.pk for g in games], {g.pk: g.seq for g in games})
    deal: dict = {"ms": 0}
    rows = [replay_racer(r, race, marks, deal) for r in racers]
    return {
        "race": race.code,
        "variant": race.variant,
        "seed": race.seed,
        "ranked": race.ranked,
        "rated": race.rated,
        "starts_at": iso(race.starts_at),
        "ends_at": iso(race.ends_at),
        "finished_at": iso(race.finished_at),
        "end_ms": end_ms(racers, rows),
        "url": reverse("records:race_replay", args=[race.code]),
        "results": reverse("races:results", args=[race.code]),
        "deal": deal if "view" in deal else None,
        "racers": rows,
    }


def end_ms(racers: list[Racer], rows: list[dict]) -> int:
    """Where the replay's clock stops: the last thing that happened (a move, a finish, the end
    of a racer's race), on the race's clock."""
    last = [r.done_ms or 0 for r in racers] + [row.pop("last_ms") for row in rows]
    return max([0, *last])
