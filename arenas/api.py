"""The arenas' JSON API (docs/api.md, "Arenas"): the list, one arena with a page of its
standings, and one player's races in an arena. GET only; a parameter that cannot be used gets
400 with a JSON reason (games.params)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from arenas import standings
from arenas.models import Arena, ArenaPlayer
from games import params
from games.params import error, json_get
from games.rows import one_or_none


def arena_dict(arena: Arena) -> dict:
    return {
        **arena.facts(),
        "visibility": arena.visibility,
        "race_time_limit_s": arena.race_time_limit_s,
        "url": arena.get_absolute_url(),
        "api": f"/api/arenas/{arena.public_id}/",
    }


@json_get
def arena_list(request: HttpRequest) -> JsonResponse:
    """The public arenas running now, coming up, and the latest ended."""
    params.allowed(request.GET, set())
    now = timezone.now()
    lists = Arena.objects.listed().by_phase(now)
    return JsonResponse(
        {
            "now": now.isoformat(),
            **{phase: [arena_dict(a) for a in arenas] for phase, arenas in lists.items()},
        }
    )


@json_get
def arena_detail(request: HttpRequest, arena_id: str) -> JsonResponse:
    """One arena, its lobby's counts and a page of its standings (?page=, ?per_page=). Once it
    has ended, how many of its races are still `finishing`; at 0 the standings are `final`, read
    from the record as the page's are (a board write that failed cannot leave them behind)."""
    params.allowed(request.GET, {"page", "per_page"})
    arena = one_or_none(Arena.objects.filter(public_id=arena_id))
    if arena is None:
        return error(404, "not_found", f"there is no arena {arena_id}")
    page, per_page = params.page(request.GET)
    left = standings.finishing_after_end(arena)
    return JsonResponse(
        {
            **arena_dict(arena),
            "lobby": standings.lobby(arena),
            "finishing": left,
            "final": left == 0,
            "standings": standings.standings_page(arena, page, per_page, final=left == 0),
        }
    )


@json_get
def arena_player(request: HttpRequest, arena_id: str, player_id: str) -> JsonResponse:
    """One player's races in an arena: place, points, and links to each race."""
    params.allowed(request.GET, set())
    player_id = params.whole("player", player_id, 0, 1, 2**31 - 1)
    found = ArenaPlayer.objects.filter(arena__public_id=arena_id, player_id=player_id)
    entry = one_or_none(found.select_related("arena", "player"))
    if entry is None:
        return error(404, "not_found", f"player {player_id} is not in arena {arena_id}")
    results = standings.results_of(entry.arena, player_id)
    return JsonResponse(
        {
            "arena": arena_dict(entry.arena),
            "player": player_id,
            "name": entry.player.nickname,
            "points": entry.points,
            "races": [
                {
                    "race": r.race.code,
                    "place": r.place,
                    "racers": r.racers,
                    "won": r.won,
                    "points": r.points,
                    "doubled": r.doubled,
                    "at": r.at.isoformat(),
                    "results": f"/races/{r.race.code}/results/",
                    "replay": f"/api/races/{r.race.code}/replay/",
                }
                for r in results
            ],
        }
    )
