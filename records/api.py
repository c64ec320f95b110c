"""The JSON API (docs/api.md): the boards, players and replays the pages show, as data.

Every endpoint is GET; a parameter that cannot be used gets 400 with a JSON reason.
"""

from __future__ import annotations

import orjson
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from daily.dealpick import next_reset, utc_day
from daily.models import DailyChallenge
from games import params
from games.engine import VARIANT_INFO, VARIANTS
from games.identity import current_player
from games.models import Game, Player
from games.params import error, json_get
from records import leaderboard, race_replays, stats
from records import public_replays as replay
from records.boards import ALL_TIME, DAILY, Board
from records.recent_races import recent_races_page
from records.tables import board_dict

BOARD_PARAMS = {"page", "per_page", "player"}


def viewer(request: HttpRequest) -> Player | None:
    return current_player(request, create=False)


def board_response(request: HttpRequest, board: Board) -> JsonResponse:

    params.allowed(request.GET, BOARD_PARAMS)
    page, per_page = params.page(request.GET)
    player = params.player(request.GET.get("player"))
    result = leaderboard.read_page(board, page, per_page, player.pk if player else None)
    return JsonResponse(board_dict(result, viewer(request)))


@json_get
def daily_index(request: HttpRequest) -> JsonResponse:
    """Today's challenges: the day, when the next opens, and each variant's board."""
    params.allowed(request.GET, set())
    now = timezone.now()
    today = utc_day(now)
    proofs = dict(DailyChallenge.objects.filter(day=today).values_list("variant", "proof"))
    variants = []
    for variant in VARIANTS:
        board = leaderboard.read_page(Board(DAILY, variant, today), 1, 1)
        proof = proofs.get(variant)
        variants.append(
            {
                "variant": variant,
                "name": VARIANT_INFO[variant]["name"],
                "players": board.total,
                "proved": None if proof is None else proof == DailyChallenge.Proof.WON,
                "board": f"/api/leaderboards/daily/{variant}/{today.isoformat()}/",
            }
        )
    return JsonResponse(
        {
            "day": today.isoformat(),
            "now": now.isoformat(),
            "next_reset": next_reset(now).isoformat(),
            "variants": variants,
        }
    )


@json_get
def daily_board(request: HttpRequest, variant: str, day: str) -> JsonResponse:
    return board_response(request, Board(DAILY, params.variant(variant), params.day(day)))


@json_get
def all_time_board(request: HttpRequest, kind: str, variant: str) -> JsonResponse:
    if kind not in ALL_TIME:
        raise params.BadParameter("board", f"unknown board {kind!r}; one of {', '.join(ALL_TIME)}")
    return board_response(request, Board(kind, params.variant(variant)))


@json_get
def recent_races(request: HttpRequest) -> JsonResponse:
    """Finished public races, newest first."""

    params.allowed(request.GET, {"page", "per_page", "variant"})
    page, per_page = params.page(request.GET)
    variant = request.GET.get("variant")
    if variant is not None:
        params.variant(variant)
    return JsonResponse(recent_races_page(page, per_page, variant))


@json_get
def player(request: HttpRequest, player_id: str) -> JsonResponse:
    params.allowed(request.GET, set())
    player_id = params.whole("player", player_id, 0, 1, 2**31 - 1)
    found = Player.objects.filter(pk=player_id).first()
    if found is None:
        return error(404, "not_found", f"there is no player {player_id}")
    return JsonResponse(stats.player_dict(found, viewer(request)))


@json_get
def game_replay(request: HttpRequest, public_id: str) -> HttpResponse:
    """Every position of a finished game, full views, with the time of each move."""
    params.allowed(request.GET, set())
    game = Game.objects.filter(public_id=public_id).select_related("player").first()
    if game is None:
        return error(404, "not_found", f"there is no game {public_id}")
    try:
        replay.check_replay(game, viewer(request), timezone.now())
    except replay.ReplayRefused as exc:
        return error(403, "not_yet", str(exc))
    body = orjson.dumps(replay.replay_dict(game, timezone.now()))  # steps: JSON text already
    return HttpResponse(body, content_type="application/json")


@json_get
def race_replay(request: HttpRequest, code: str) -> HttpResponse:
    """Every racer's game of a finished race on the race's clock, in one document."""
    params.allowed(request.GET, set())
    race = race_replays.find(code)
    if race is None:
        return error(404, "not_found", f"there is no race {code}")
    try:
        race_replays.check_race_replay(race)
    except race_replays.RaceReplayGone as exc:
        return error(404, "not_found", str(exc))
    except replay.ReplayRefused as exc:
        return error(403, "not_yet", str(exc))
    body = orjson.dumps(race_replays.race_replay_dict(race))  # steps: JSON text already
    return HttpResponse(body, content_type="application/json")
