"""The rating boards (a page and the JSON API, docs/api.md) and a player's rating history as
JSON. The player page draws its rating charts with `{% player_ratings %}`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games import params
from games.engine import VARIANT_INFO, VARIANTS
from games.models import Player
from games.params import bad_request, error, json_get
from games.rows import one_or_none
from races import ratings
from races.ratings import board

BOARD_PARAMS = {"page", "per_page"}


def _board(request: HttpRequest, variant: str) -> dict:
    params.variant(variant)
    params.allowed(request.GET, BOARD_PARAMS)
    page, per_page = params.page(request.GET)
    return board.board(variant, page, per_page)


@require_GET
def board_page(request: HttpRequest, variant: str) -> HttpResponse:
    try:
        data = _board(request, variant)
    except params.BadParameter as exc:
        return bad_request(request, f"{exc.name}: {exc.reason}")
    context = {
        "data": data,
        "variant": {"id": variant, "name": VARIANT_INFO[variant]["name"]},
        "variants": [{"id": v, "name": VARIANT_INFO[v]["name"]} for v in VARIANTS],
        "pages": range(1, data["pages"] + 1) if data["pages"] <= 20 else None,
        "provisional_races": ratings.PROVISIONAL_RACES,
    }
    return render(request, "races/rating_board.html", context)


@json_get
def board_api(request: HttpRequest, variant: str) -> JsonResponse:
    return JsonResponse(_board(request, variant))


@json_get
def player_api(request: HttpRequest, player_id: int) -> JsonResponse:
    params.allowed(request.GET, set())
    player = one_or_none(Player.objects.filter(pk=player_id))
    if player is None:
        return error(404, "not_found", f"there is no player {player_id}")
    return JsonResponse(
        {
            "player": {"id": player.pk, "nickname": player.nickname},
            "ratings": board.player_ratings(player),
        }
    )
