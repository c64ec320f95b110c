"""Pages of the daily challenge: a variant's start page, starting, playing and resigning an
attempt (a ghost race is played on the same page). Today's boards, the replays and the ghost
races' start are the records app's.

Thin: check the parameters, call one action or read, render.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from daily.actions import (
    AttemptRefused,
    attempts_today,
    do_resign,
    get_challenge,
    start_attempt,
)
from daily.dealpick import next_reset, utc_day
from daily.models import DailyChallenge
from games.identity import current_player
from games.models import Game
from games.params import known_variant
from games.replay import cached_replay
from games.rows import one_or_none
from games.sockets import iso
from games.templatetags.game_labels import format_ms


@require_GET
def variant_page(request: HttpRequest, variant: str) -> HttpResponse:
    """Resume today's unfinished attempt, or offer to start one (ranked if still possible)."""
    info = known_variant(variant)
    now = timezone.now()
    today = utc_day(now)
    player = current_player(request, create=False)
    mine = attempts_today(player, today).get(variant, {})
    latest = mine.get("latest")
    if latest is not None and not latest.game.is_over:
        return redirect("daily:play", public_id=latest.game.public_id)
    ranked = mine.get("ranked")
    today_deal = DailyChallenge.objects.filter(variant=variant, day=today)
    context = {
        "variant": info,
        "today": today,
        "next_reset": iso(next_reset(now)),
        "is_guest": player is None or player.is_guest,
        "ranked": ranked,
        "ranked_time": format_ms(ranked.elapsed_ms) if ranked else None,
        "can_rank": player is not None and not player.is_guest and latest is None,
        "seen_as_guest": player is not None
        and not player.is_guest
        and ranked is None
        and latest is not None,
        "board_url": reverse("records:board", args=[variant, today.isoformat()]),
        "proof": one_or_none(today_deal.values_list("proof", flat=True)),
    }
    return render(request, "daily/start.html", context)


@require_POST
def start(request: HttpRequest, variant: str) -> HttpResponse:
    """Start (or resume) today's attempt: the server's clock starts now."""
    known_variant(variant)
    player = current_player(request)
    challenge = get_challenge(variant, utc_day(timezone.now()))
    attempt, _ = start_attempt(player, challenge)
    return redirect("daily:play", public_id=attempt.game.public_id)


def _own_game(request: HttpRequest, public_id: str) -> Game:
    """One of the player's daily attempts or ghost races; 404 for anything else."""
    player = current_player(request, create=False)
    found = Game.objects.filter(public_id=public_id)
    game = one_or_none(
        found.select_related("daily_attempt__challenge", "ghost_race__ghost__player")
    )
    if game is None or player is None or game.player_id != player.pk:
        raise Http404("There is no game of yours with this id.")
    if not hasattr(game, "daily_attempt") and not hasattr(game, "ghost_race"):
        raise Http404("There is no daily game or ghost race of yours with this id.")
    return game


def _ghost_config(ghost: Game) -> dict:
    """What the page needs to play a recorded run back: its progress, never its cards."""
    replayed = cached_replay(ghost)
    return {
        "game": ghost.public_id,
        "nickname": ghost.player.nickname,
        "status": ghost.status,
        "progress": replayed.progress,
        "end_ms": replayed.end_ms,
        "replay": reverse("records:replay", args=[ghost.public_id]),
    }


@require_GET
def play(request: HttpRequest, public_id: str) -> HttpResponse:
    """The board of one of your daily attempts or ghost races (a daily deal's seed is never on
    this page)."""
    game = _own_game(request, public_id)
    attempt = getattr(game, "daily_attempt", None)
    ghost_race = getattr(game, "ghost_race", None)
    info = known_variant(game.variant)
    config = {
        "game": game.public_id,
        "variant": game.variant,
        "variant_name": info["name"],
        "kind": game.kind,
        "ws_path": "/ws/daily/" if attempt else "/ws/game/",
        "layout": info,
        "ranked": bool(attempt and attempt.ranked),
        "day": attempt.challenge.day.isoformat() if attempt else None,
        "next_reset": iso(next_reset(timezone.now())),
        "board_url": None,
        "board_api": None,
        "replay_url": reverse("records:replay", args=[game.public_id]),
        "resign_url": reverse("daily:resign", args=[game.public_id]),
        "player": game.player_id,
        "ghost": _ghost_config(ghost_race.ghost) if ghost_race else None,
    }
    if attempt:
        day = attempt.challenge.day.isoformat()
        config["board_url"] = reverse("records:board", args=[game.variant, day])
        config["board_api"] = reverse("records:api_board", args=[game.variant, day])
    context = {"game": game, "attempt": attempt, "ghost_race": ghost_race, "variant": info}
    return render(request, "daily/play.html", context | {"config": config})


@require_POST
def resign(request: HttpRequest, public_id: str) -> HttpResponse:
    """Give up an attempt where it stands: it ends (and ranks by the cards home)."""
    game = _own_game(request, public_id)
    try:
        do_resign(game)
    except AttemptRefused as exc:
        messages.error(request, str(exc))
    return redirect("daily:play", public_id=public_id)
