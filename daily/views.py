"""Pages: the daily challenge (start, play, resign), boards, player pages, replays, ghost races.

Thin: check the parameters, call one action or read, render. The JSON twins are in daily/api.py.
"""

from __future__ import annotations

import datetime as dt

import orjson
from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from daily import analysis, leaderboard, page_cache, replay, stats, warmup
from daily import races as races_list
from daily.actions import (
    AttemptRefused,
    do_resign,
    get_challenge,
    start_attempt,
    start_ghost_race,
)
from daily.boards import ALL_TIME, DAILY, TITLES, Board
from daily.dealpick import next_reset, utc_day
from daily.models import DailyAttempt, DailyChallenge
from daily.races import newest_listed, recent_races
from daily.tables import board_dict, board_dicts, format_ms
from games import params
from games.engine import VARIANT_INFO, VARIANTS
from games.identity import current_player
from games.models import Game, Player
from games.params import bad_request
from games.sockets import iso

PREVIEW_ROWS = 5


_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def json_script_compact(value, element_id: str) -> str:
    """Django's json_script element, written by orjson without spaces: a long replay's steps
    are most of its page, and json_script's encoder took half of its render."""
    text = orjson.dumps(value).decode()
    if "<" in text or ">" in text or "&" in text:
        text = text.translate(_SCRIPT_ESCAPES)
    return format_html(
        '<script id="{}" type="application/json">{}</script>', element_id, mark_safe(text)
    )


_ONE_DAY = dt.timedelta(days=1)


def check_variant(variant: str) -> dict:
    if variant not in VARIANTS:
        raise Http404(f"There is no variant called “{variant}”.")
    return {"id": variant, **VARIANT_INFO[variant]}


def _attempts_today(player, today):
    """The player's attempts at today's challenges, per variant: the ranked one and any other."""
    if player is None:
        return {}
    found: dict[str, dict] = {}
    attempts = DailyAttempt.objects.filter(
        player=player, challenge__day=today, game__ghost_race__isnull=True
    ).select_related("game", "challenge")
    for attempt in attempts.order_by("created_at"):
        slot = found.setdefault(attempt.challenge.variant, {"ranked": None, "latest": None})
        if attempt.ranked:
            slot["ranked"] = attempt
        slot["latest"] = attempt
    return found


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Today's five challenges, the countdown to tomorrow's, and the top of each board."""
    now = timezone.now()
    today = utc_day(now)
    if settings.DAILY_WARMUP:
        warmup.ensure_picked(today)
    player = current_player(request, create=False)
    mine = _attempts_today(player, today)
    proofs = dict(DailyChallenge.objects.filter(day=today).values_list("variant", "proof"))
    focus = player.pk if player else None
    pages = [
        leaderboard.read_page(Board(DAILY, variant, today), 1, PREVIEW_ROWS, focus)
        for variant in VARIANTS
    ]
    cards = [
        {
            "variant": check_variant(variant),
            "board": board,
            "mine": mine.get(variant, {}),
            "proof": proofs.get(variant),
        }
        for variant, board in zip(VARIANTS, board_dicts(pages, player), strict=True)
    ]
    context = {"today": today, "next_reset": iso(next_reset(now)), "cards": cards}
    return render(request, "daily/home.html", context)


@require_GET
def variant_page(request: HttpRequest, variant: str) -> HttpResponse:
    """Resume today's unfinished attempt, or offer to start one (ranked if still possible)."""
    info = check_variant(variant)
    now = timezone.now()
    today = utc_day(now)
    player = current_player(request, create=False)
    mine = _attempts_today(player, today).get(variant, {})
    latest = mine.get("latest")
    if latest is not None and not latest.game.is_over:
        return redirect("daily:play", public_id=latest.game.public_id)
    ranked = mine.get("ranked")
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
        "board_url": reverse("daily:board", args=[variant, today.isoformat()]),
        "proof": DailyChallenge.objects.filter(variant=variant, day=today)
        .values_list("proof", flat=True)
        .first(),
    }
    return render(request, "daily/start.html", context)


@require_POST
def start(request: HttpRequest, variant: str) -> HttpResponse:
    """Start (or resume) today's attempt: the server's clock starts now."""
    check_variant(variant)
    player = current_player(request)
    challenge = get_challenge(variant, utc_day(timezone.now()))
    attempt, _ = start_attempt(player, challenge)
    return redirect("daily:play", public_id=attempt.game.public_id)


def _own_game(request: HttpRequest, public_id: str) -> Game:
    """One of the player's daily attempts or ghost races; 404 for anything else."""
    player = current_player(request, create=False)
    game = (
        Game.objects.filter(public_id=public_id)
        .select_related("daily_attempt__challenge", "ghost_race__ghost__player")
        .first()
    )
    if game is None or player is None or game.player_id != player.pk:
        raise Http404("There is no game of yours with this id.")
    if not hasattr(game, "daily_attempt") and not hasattr(game, "ghost_race"):
        raise Http404("There is no daily game or ghost race of yours with this id.")
    return game


def _ghost_config(ghost: Game) -> dict:
    """What the page needs to play a recorded run back: its progress, never its cards."""
    replayed = replay.cached_replay(ghost)
    return {
        "game": ghost.public_id,
        "nickname": ghost.player.nickname,
        "status": ghost.status,
        "progress": replayed.progress,
        "end_ms": replayed.end_ms,
        "replay": reverse("daily:replay", args=[ghost.public_id]),
    }


@require_GET
def play(request: HttpRequest, public_id: str) -> HttpResponse:
    """The board of one of your daily attempts or ghost races (a daily deal's seed is never on
    this page)."""
    game = _own_game(request, public_id)
    attempt = getattr(game, "daily_attempt", None)
    ghost_race = getattr(game, "ghost_race", None)
    info = check_variant(game.variant)
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
        "replay_url": reverse("daily:replay", args=[game.public_id]),
        "resign_url": reverse("daily:resign", args=[game.public_id]),
        "player": game.player_id,
        "ghost": _ghost_config(ghost_race.ghost) if ghost_race else None,
    }
    if attempt:
        day = attempt.challenge.day.isoformat()
        config["board_url"] = reverse("daily:board", args=[game.variant, day])
        config["board_api"] = reverse("daily:api_board", args=[game.variant, day])
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


@require_http_methods(["GET", "POST"])
def ghost(request: HttpRequest, public_id: str) -> HttpResponse:
    """Race a recorded run (a daily or race game) on its deal, with the run beside you."""
    if request.method == "GET":
        # An address typed or shared: a ghost race starts from the run's replay page.
        messages.info(
            request, "A ghost race starts from the replay: press “Race against this run”."
        )
        return redirect("daily:replay", public_id=public_id)
    recorded = (
        Game.objects.filter(public_id=public_id, kind__in=[Game.Kind.DAILY, Game.Kind.RACE])
        .select_related("daily_attempt__challenge", "player")
        .first()
    )
    if recorded is None:
        raise Http404("There is no daily or race run with this id.")
    player = current_player(request)
    try:
        replay.check_replay(recorded, player, timezone.now())
        game = start_ghost_race(player, recorded)
    except (replay.ReplayRefused, AttemptRefused) as exc:
        messages.error(request, f"You cannot race this run yet. {exc}")
        return redirect("daily:replay", public_id=public_id)
    return redirect("daily:play", public_id=game.public_id)


def _board_page(request: HttpRequest, board: Board, template_extra: dict) -> HttpResponse:
    try:
        params.allowed(request.GET, {"page", "per_page", "player"})
        page, per_page = params.page(request.GET)
        asked = params.player(request.GET.get("player"))
    except params.BadParameter as exc:
        return bad_request(request, f"{exc.name}: {exc.reason}")
    viewer = current_player(request, create=False)
    focus = asked or viewer
    result = leaderboard.read_page(board, page, per_page, focus.pk if focus else None)
    now = timezone.now()
    opened = board.kind == DAILY and now >= replay.replays_open(board.day)
    # A visitor who brings nothing of their own gets the whole page from the cache.
    page_key = page_cache.page_key(request, result.stamp, opened, utc_day(now))
    cached = page_cache.cached_page(request, page_key)
    if cached is not None:
        return cached
    # Else the rows' table from the cache when it is there: then the rows need nothing else.
    table_key = _shared_table_key(result, focus, viewer, opened)
    table = cache.get(table_key) if table_key else None
    data = board_dict(result, viewer, rows=table is None)
    if table is None:
        table = _render_rows_table(data, None if table_key else focus)
        if table_key:
            cache.set(table_key, table, ROWS_HTML_SECONDS)
    off_page = data["player"] is not None and data["player"]["page"] != data["page"]
    context = {
        "board": board,
        "data": data,
        "rows_table": mark_safe(table),  # its CSRF slot is filled with the page's
        "variant": check_variant(board.variant),
        "focus": focus,
        "viewer": viewer,
        "pages": _page_links(result.page, result.pages),
        "my_rows": [data["player"]] if off_page else [],
        "is_daily": board.kind == DAILY,
        "variants": [check_variant(v) for v in VARIANTS],
        **template_extra,
    }
    return page_cache.render_page(request, page_key, "daily/board.html", context)


# A board page's table of rows is the same HTML for every viewer whose own row (or the focused
# player's) is not on the page: it is kept in the cache under the page's stamp and, on a daily
# board, whether that day's replays are open yet, with a slot for the CSRF token of its ghost
# forms (each request's own, filled in as the page is served).
ROWS_HTML_SECONDS = 600


def _shared_table_key(result, focus, viewer, opened: bool) -> str | None:
    """The cache key of a page's shared table, or None if this viewer's table is their own."""
    own = {player.pk for player in (focus, viewer) if player is not None}
    if result.stamp is None or any(row.player_id in own for row in result.rows):
        return None
    key = f"board-html:{result.board.name}:{result.stamp}:{result.page}:{result.per_page}"
    return f"{key}:{opened:d}"


def _render_rows_table(data: dict, focus) -> str:
    context = {
        "data": data,
        "rows": data["rows"],
        "ghosts": data["board"]["kind"] == DAILY,
        "focus": focus,
        "csrf_token": page_cache.CSRF_SLOT,
    }
    return render_to_string("daily/_board_table.html", context)


def _page_links(page: int, pages: int) -> list[int | None]:
    """Page numbers to link: the first, the last, and two either side of this one (None: a gap)."""
    wanted = sorted({1, pages, *range(max(1, page - 2), min(pages, page + 2) + 1)})
    links: list[int | None] = []
    for number in wanted:
        if links and number - links[-1] > 1:
            links.append(None)
        links.append(number)
    return links


@require_GET
def daily_board(request: HttpRequest, variant: str, day: str) -> HttpResponse:
    """One day's board for one variant; past days stay browsable, with ghost races."""
    check_variant(variant)
    try:
        the_day = params.day(day)
    except params.BadParameter as exc:
        return bad_request(request, exc.reason)
    today = utc_day(timezone.now())
    extra = {
        "day": the_day,
        "is_today": the_day == today,
        "next_reset": iso(next_reset(timezone.now())),
        "previous_day": (the_day - _ONE_DAY).isoformat(),
        "next_day": (the_day + _ONE_DAY).isoformat() if the_day < today else None,
    }
    return _board_page(request, Board(DAILY, variant, the_day), extra)


@require_GET
def all_time_board(request: HttpRequest, kind: str, variant: str) -> HttpResponse:
    if kind not in ALL_TIME:
        raise Http404(f"There is no board called “{kind}”.")
    check_variant(variant)
    return _board_page(request, Board(kind, variant), {})


@require_GET
def leaderboards(request: HttpRequest) -> HttpResponse:
    """Every board: today's daily boards, the all-time boards, recent races."""
    today = utc_day(timezone.now())
    rows = [
        {
            "variant": check_variant(variant),
            "daily": reverse("daily:board", args=[variant, today.isoformat()]),
            "all_time": [
                (TITLES[kind], reverse("daily:all_time", args=[kind, variant])) for kind in ALL_TIME
            ],
        }
        for variant in VARIANTS
    ]
    newest = newest_listed()
    page_key = page_cache.page_key(request, newest, today)
    cached = page_cache.cached_page(request, page_key)
    if cached is not None:
        return cached
    races, table = recent_races(1, 10, table=_races_table, newest=newest)
    context = {"rows": rows, "today": today, "races": races, "races_table": mark_safe(table)}
    return page_cache.render_page(
        request, page_key, "daily/leaderboards.html", context, races_list.CACHE_SECONDS
    )


def _races_table(data: dict) -> str:
    """The races list's table: the same HTML for every viewer (no forms, nothing of theirs)."""
    return render_to_string("daily/_races_table.html", {"data": data})


@require_GET
def races_board(request: HttpRequest) -> HttpResponse:
    """Recent finished public races, paginated."""
    try:
        params.allowed(request.GET, {"page", "per_page"})
        page, per_page = params.page(request.GET)
    except params.BadParameter as exc:
        return bad_request(request, f"{exc.name}: {exc.reason}")
    newest = newest_listed()
    page_key = page_cache.page_key(request, newest)
    cached = page_cache.cached_page(request, page_key)
    if cached is not None:
        return cached
    data, table = recent_races(page, per_page, table=_races_table, newest=newest)
    context = {"data": data, "table": mark_safe(table), "pages": _page_links(page, data["pages"])}
    return page_cache.render_page(
        request, page_key, "daily/races.html", context, races_list.CACHE_SECONDS
    )


@require_GET
def player_page(request: HttpRequest, player_id: int) -> HttpResponse:

    found = Player.objects.filter(pk=player_id).first()
    if found is None:
        raise Http404("There is no such player.")
    data = stats.player_dict(found, current_player(request, create=False))
    return render(request, "daily/player.html", {"profile": found, "data": data})


@require_GET
def replay_page(request: HttpRequest, public_id: str) -> HttpResponse:
    """Step through a finished game, move by move; the address is shareable. The losing-move
    mark is the one stored off the request (daily/analysis.py); until it is, the page says the
    game is being analysed and asks the analysis thread to look (the request never searches)."""
    game = Game.objects.filter(public_id=public_id).select_related("player").first()
    if game is None:
        raise Http404("There is no game with this id.")
    try:
        replay.check_replay(game, current_player(request, create=False), timezone.now())
    except replay.ReplayRefused as exc:
        return render(
            request, "daily/replay_refused.html", {"game": game, "reason": str(exc)}, status=403
        )
    data = replay.replay_dict(game, timezone.now())
    analysed, data["losing_frame"] = analysis.stored(game)
    if not analysed:
        analysis.request([game.pk])
    info = check_variant(game.variant)
    config = {"variant": game.variant, "layout": info, "replay": data}
    attempt = getattr(game, "daily_attempt", None)
    context = {
        "game": game,
        "variant": info,
        "config": config,
        "data": data,
        "attempt": attempt,
        "can_race": game.kind in (Game.Kind.DAILY, Game.Kind.RACE),
        "analysing": not analysed and game.status != Game.Status.WON,
        "frames": game.seq + 1,
        "config_script": json_script_compact(config, "replay-config"),
    }
    return render(request, "daily/replay.html", context)
