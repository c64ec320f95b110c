"""Pages of the record: today's daily boards, every board, player pages, replays, and the
start of a ghost race from a replay.

Thin: check the parameters, call one action or read, render. The JSON twins are in
records/api.py.
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
from django.views.decorators.http import require_GET, require_http_methods

from daily import warmup
from daily.actions import AttemptRefused, attempts_today, start_ghost_race
from daily.dealpick import next_reset, utc_day
from daily.models import DailyChallenge
from games import params
from games.engine import VARIANTS
from games.identity import acting_player, current_player
from games.models import Game, Player
from games.params import bad_request, known_variant
from games.sockets import iso
from records import analysis, leaderboard, page_cache, race_replays, stats
from records import public_replays as replay
from records import recent_races as races_list
from records.boards import ALL_TIME, DAILY, TITLES, Board
from records.recent_races import newest_listed, recent_races
from records.tables import board_dict, board_dicts

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


@require_GET
def today_page(request: HttpRequest) -> HttpResponse:
    """Today's five challenges, the countdown to tomorrow's, and the top of each board."""
    now = timezone.now()
    today = utc_day(now)
    if settings.DAILY_WARMUP:
        warmup.ensure_picked(today)
    player = current_player(request, create=False)
    mine = attempts_today(player, today)
    proofs = dict(DailyChallenge.objects.filter(day=today).values_list("variant", "proof"))
    focus = player.pk if player else None
    pages = [
        leaderboard.read_page(Board(DAILY, variant, today), 1, PREVIEW_ROWS, focus)
        for variant in VARIANTS
    ]
    cards = [
        {
            "variant": known_variant(variant),
            "board": board,
            "mine": mine.get(variant, {}),
            "proof": proofs.get(variant),
        }
        for variant, board in zip(VARIANTS, board_dicts(pages, player), strict=True)
    ]
    context = {"today": today, "next_reset": iso(next_reset(now)), "cards": cards}
    return render(request, "records/today.html", context)


@require_http_methods(["GET", "POST"])
def ghost(request: HttpRequest, public_id: str) -> HttpResponse:
    """Race a recorded run (a daily or race game) on its deal, with the run beside you."""
    if request.method == "GET":
        # An address typed or shared: a ghost race starts from the run's replay page.
        messages.info(
            request, "A ghost race starts from the replay: press “Race against this run”."
        )
        return redirect("records:replay", public_id=public_id)
    recorded = (
        Game.objects.filter(public_id=public_id, kind__in=[Game.Kind.DAILY, Game.Kind.RACE])
        .select_related("daily_attempt__challenge", "player")
        .first()
    )
    if recorded is None:
        raise Http404("There is no daily or race run with this id.")
    try:  # a visitor's start that goes through makes them a guest; a refused one, nobody
        with acting_player(request) as player:
            replay.check_replay(recorded, player, timezone.now())
            game = start_ghost_race(player, recorded)
    except (replay.ReplayRefused, AttemptRefused) as exc:
        messages.error(request, f"You cannot race this run yet. {exc}")
        return redirect("records:replay", public_id=public_id)
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
        table = _render_rows_table(data, None if table_key else focus, opened)
        if table_key:
            cache.set(table_key, table, ROWS_HTML_SECONDS)
    off_page = data["player"] is not None and data["player"]["page"] != data["page"]
    context = {
        "board": board,
        "data": data,
        "rows_table": mark_safe(table),  # its CSRF slot is filled with the page's
        "variant": known_variant(board.variant),
        "focus": focus,
        "viewer": viewer,
        "pages": _page_links(result.page, result.pages),
        "my_rows": [data["player"]] if off_page else [],
        "is_daily": board.kind == DAILY,
        "variants": [known_variant(v) for v in VARIANTS],
        **template_extra,
    }
    return page_cache.render_page(request, page_key, "records/board.html", context)


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


def _render_rows_table(data: dict, focus, day_over: bool) -> str:
    """The board's rows; `day_over`: a daily board whose day has ended (none joins it now)."""
    context = {
        "data": data,
        "rows": data["rows"],
        "ghosts": data["board"]["kind"] == DAILY,
        "day_over": day_over,
        "focus": focus,
        "csrf_token": page_cache.CSRF_SLOT,
    }
    return render_to_string("records/_board_table.html", context)


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
    known_variant(variant)
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
    known_variant(variant)
    return _board_page(request, Board(kind, variant), {})


@require_GET
def leaderboards(request: HttpRequest) -> HttpResponse:
    """Every board: today's daily boards, the all-time boards, recent races."""
    today = utc_day(timezone.now())
    rows = [
        {
            "variant": known_variant(variant),
            "daily": reverse("records:board", args=[variant, today.isoformat()]),
            "all_time": [
                (TITLES[kind], reverse("records:all_time", args=[kind, variant]))
                for kind in ALL_TIME
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
        request, page_key, "records/leaderboards.html", context, races_list.CACHE_SECONDS
    )


def _races_table(data: dict) -> str:
    """The races list's table: the same HTML for every viewer (no forms, nothing of theirs)."""
    return render_to_string("records/_races_table.html", {"data": data})


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
        request, page_key, "records/races.html", context, races_list.CACHE_SECONDS
    )


@require_GET
def player_page(request: HttpRequest, player_id: int) -> HttpResponse:

    found = Player.objects.filter(pk=player_id).first()
    if found is None:
        raise Http404("There is no such player.")
    data = stats.player_dict(found, current_player(request, create=False))
    parts = [(part.template, data[part.key]) for part in stats.PLAYER_PARTS]
    return render(request, "records/player.html", {"profile": found, "data": data, "parts": parts})


@require_GET
def replay_page(request: HttpRequest, public_id: str) -> HttpResponse:
    """Step through a finished game, move by move; the address is shareable. The losing-move
    mark is the one stored off the request (records/analysis.py); until it is, the page says the
    game is being analysed and asks the analysis thread to look (the request never searches)."""
    game = Game.objects.filter(public_id=public_id).select_related("player").first()
    if game is None:
        raise Http404("There is no game with this id.")
    try:
        replay.check_replay(game, current_player(request, create=False), timezone.now())
    except replay.ReplayRefused as exc:
        return render(
            request, "records/replay_refused.html", {"game": game, "reason": str(exc)}, status=403
        )
    data = replay.replay_dict(game, timezone.now())
    analysed, data["losing_frame"] = analysis.stored(game)
    if not analysed:
        analysis.request([game.pk])
    info = known_variant(game.variant)
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
    return render(request, "records/replay.html", context)


@require_GET
def race_replay_page(request: HttpRequest, code: str) -> HttpResponse:
    """A finished race again: every racer's board side by side on the race's clock, the
    standings as they were, and what the race turned on. The page carries the API's document
    (records/race_replays.py); its script builds every position in the browser."""
    race = race_replays.find(code)
    if race is None:
        raise Http404("There is no race with this code.")
    try:
        race_replays.check_race_replay(race)
    except race_replays.RaceReplayGone as exc:
        raise Http404(str(exc)) from exc
    except replay.ReplayRefused as exc:
        context = {"reason": str(exc), "race": race}
        return render(request, "records/replay_refused.html", context, status=403)
    data = race_replays.race_replay_dict(race)
    info = known_variant(race.variant)
    config = {"variant": race.variant, "layout": info, "replay": data}
    context = {
        "race": race,
        "variant": info,
        "data": data,
        "config_script": json_script_compact(config, "race-replay-config"),
    }
    return render(request, "records/race_replay.html", context)
