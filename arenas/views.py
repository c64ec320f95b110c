"""Arena pages: the list (coming, running, ended), setting one up, the arena page (countdown,
join, pause, the live board; the podium once it has ended), and one player's races in it.

Thin: parse and check, then one action; the live board and the placements come over
/ws/arena/<id>/.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template, render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from arenas import actions, standings
from arenas.actions import ArenaRuleError
from arenas.forms import ArenaForm
from arenas.models import Arena, ArenaPlayer
from games import params
from games.identity import acting_player, current_player, socket_ticket
from games.rows import one_or_none
from games.throttles import RACE_FORMS, limit_posts


def no_arena() -> Http404:
    """The page of an arena that is not (or no longer) there."""
    return Http404(f"{actions.NO_ARENA.capitalize()}.")


def get_arena(arena_id: str) -> Arena:
    arena = one_or_none(Arena.objects.filter(public_id=arena_id))
    if arena is None:
        raise no_arena()
    return arena


@require_GET
def arena_list(request: HttpRequest) -> HttpResponse:
    return render(request, "arenas/list.html", Arena.objects.listed().by_phase(timezone.now()))


@require_http_methods(["GET", "POST"])
@limit_posts(RACE_FORMS)
def arena_new(request: HttpRequest) -> HttpResponse:
    """The set-up form for friends. Only a POST whose every setting the form takes makes a
    guest (the form checks the arena's rules at the `now` the action is given), who joins the
    arena unless they unticked "Join it myself"."""
    now = timezone.now()
    start = (now + timedelta(minutes=10)).replace(second=0, microsecond=0)
    form = ArenaForm(request.POST or None, initial={"starts_at": start}, now=now)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with acting_player(request) as organiser:
            arena = actions.do_create_arena(
                organiser,
                variant=data["variant"],
                starts_at=data["starts_at"],
                minutes=data["minutes"],
                visibility=data["visibility"],
                name=data["name"],
                race_time_limit_s=data["race_time_limit_s"],
                now=now,
            )
            if data["join"]:  # the organiser plays it, unless they unticked the box
                actions.do_join(arena, organiser)
        return redirect(arena)
    return render(request, "arenas/new.html", {"form": form})


def board_row(arena: Arena, row: dict, you: bool = False, pinned: bool = False) -> str:
    """One row of the board as HTML (`you`: the viewer's own, highlighted; `pinned`: their own
    row under the board's top, where they rank below it)."""
    context = {"arena": arena, "row": row, "you": you, "pinned": pinned}
    return get_template("arenas/_board_row.html").render(context)


_rendered: dict[str, tuple[dict, list[str]]] = {}
"""This process's board rows as HTML, by arena, with the board frame they were rendered from."""


def board_rows(arena: Arena, frame: dict, viewer: int | None) -> list[str]:
    """The board's rows as HTML, rendered once for each board frame this process reads (a crowd
    loads the arena's page many times a second, each with the same board: its fifty rows with
    their links had been most of the page's template), with the viewer's own row rendered for
    them."""
    kept = _rendered.get(arena.public_id)
    if kept is None or kept[0] is not frame:
        if len(_rendered) > standings.KEPT_BOARDS:
            _rendered.clear()
        kept = frame, [board_row(arena, row) for row in frame["rows"]]
        _rendered[arena.public_id] = kept
    rows = kept[1]
    for index, row in enumerate(frame["rows"]):
        if row["player"] == viewer:
            return [*rows[:index], board_row(arena, row, you=True), *rows[index + 1 :]]
    return rows


def controls_context(arena: Arena, player, joined: ArenaPlayer | None = None) -> dict:
    """What `arenas/_controls.html` shows (the player's status and buttons), for the page and
    for a button's answer. `joined`: the entry a first join has just made, not read again (its
    player is in no race of the arena yet)."""
    entry = joined if joined is not None else actions.entry_of(arena, player)
    return {
        "arena": arena,
        "phase": arena.phase(),
        "entry": entry,
        "race": actions.current_race(arena, player) if entry and joined is None else None,
    }


def standings_rows(
    arena: Arena, frame: dict, page: int, viewer: int | None
) -> tuple[list[str], set[int], int]:
    """One page of the board (`standings.TOP` rows) as HTML, with the viewer's own row
    highlighted; the players on it; and how many pages there are. The first page is the board
    frame every page and socket of the second shares (`board_rows`); the others are read from
    the board as the API reads its pages (from the players' totals once the store keeps it no
    more, or once they are final, as the frame's are: the record is never counted again)."""
    if page == 1:
        shown, count = frame["rows"], frame["count"]
        rows = board_rows(arena, frame, viewer)
    else:
        found = standings.standings_page(arena, page, standings.TOP, standings.is_final(frame))
        shown, count = found["rows"], found["total"]
        rows = [board_row(arena, row, you=row["player"] == viewer) for row in shown]
    pages = params.page_count(count, standings.TOP)
    if page > pages:
        raise Http404(f"This arena's standings have {pages} page{'s' if pages > 1 else ''}.")
    return rows, {row["player"] for row in shown}, pages


@require_GET
def arena_page(request: HttpRequest, arena_id: str) -> HttpResponse:
    """The arena's page; `?page=` a page of its standings past the first (which alone is
    live). Once the arena has ended, its standings are final, with the podium, when the last of
    its races under way at the end has closed; until then they say how many are finishing and
    stay live."""
    arena = get_arena(arena_id)
    try:
        page = params.whole("page", request.GET.get("page"), 1, 1, params.MAX_PAGE)
    except params.BadParameter as exc:
        return params.bad_request(request, f"{exc.name}: {exc.reason}")
    player = current_player(request, create=False)
    context = controls_context(arena, player)
    entry = context["entry"]
    frame = standings.current_board(arena)
    final = standings.is_final(frame)  # a frame read once the arena had ended, none on
    rows, shown, pages = standings_rows(arena, frame, page, entry.player_id if entry else None)
    if entry and entry.player_id not in shown:  # their own row, pinned under the page's
        own = standings.own_row(arena, entry, player.nickname, final)
        rows = [*rows, board_row(arena, own, you=True, pinned=True)]
    context.update(
        board=frame,
        board_rows=rows,
        page=page,
        pages=pages,
        finishing=frame.get("finishing", 0),
        final=final,
        podium=standings.podium(arena, frame) if final else None,
    )
    return render(request, "arenas/arena.html", context)


def wants_json(request: HttpRequest) -> bool:
    """A button pressed on the arena's page, by its script (which asks for JSON), rather than a
    form sent by a browser without scripts (which gets the page again)."""
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def answered(
    request: HttpRequest,
    arena: Arena,
    player,
    note: str = "",
    refusal: ArenaRuleError | None = None,
    joined: ArenaPlayer | None = None,
) -> HttpResponse:
    """What a button's POST answers: for the page's script, JSON with the player's status and
    buttons as they now are (`arenas/_controls.html`, which the page swaps in, with no reload),
    the note to show, and for a refusal its protocol code (409); for a form, the arena's page
    again, the note or refusal as a message. `joined`: as for `controls_context`. The JSON
    holds a `ticket` for the player who pressed: the page sends it over the arena's socket it
    has open, which is then theirs (present, if they are in the arena), rather than opening
    another. An arena removed under the press (`ArenaGone`) is answered as one that never was:
    the 404 page `get_arena` gives, or for the script 404 with the refusal's code and reason
    alone (no buttons: there is nothing left to press)."""
    if isinstance(refusal, actions.ArenaGone):
        if not wants_json(request):
            raise no_arena()
        return JsonResponse({"error": refusal.code, "note": refusal.reason}, status=404)
    if not wants_json(request):
        if refusal is not None:
            messages.error(request, refusal.reason)
        elif note:
            messages.info(request, note)
        return redirect(arena)
    context = controls_context(arena, player, joined)
    entry = context["entry"]
    body = {
        "player": entry.player_id if entry else None,
        # a visitor's first press makes them a guest: the page's header names them from then on
        "who": {"name": player.nickname, "url": reverse("records:player", args=[player.pk])}
        if player is not None
        else None,
        "note": refusal.reason if refusal is not None else note,
        "controls": render_to_string("arenas/_controls.html", context, request=request).strip(),
    }
    if player is not None:
        body["ticket"] = socket_ticket(player, arena.socket_path)
    if refusal is not None:
        body["error"] = refusal.code
    return JsonResponse(body, status=409 if refusal is not None else 200)


@require_POST
@limit_posts(RACE_FORMS)
def arena_join(request: HttpRequest, arena_id: str) -> HttpResponse:
    """Join (or resume). A visitor is made a guest by a join that goes through: a refused one
    (an arena ended, or removed under the press) makes none."""
    arena = get_arena(arena_id)
    try:
        with acting_player(request) as player:
            entry, created = actions.do_join(arena, player)
    except ArenaRuleError as exc:
        return answered(request, arena, current_player(request, create=False), refusal=exc)
    if created:
        return answered(request, arena, player, joined=entry)
    if request.POST.get("resume"):  # the Resume button of a player sitting out: nothing to add
        return answered(request, arena, player)
    return answered(request, arena, player, "You are already in this arena.")


@require_POST
@limit_posts(RACE_FORMS)
def arena_pause(request: HttpRequest, arena_id: str) -> HttpResponse:
    arena = get_arena(arena_id)
    player = current_player(request, create=False)
    try:
        actions.do_pause(arena, player, request.POST.get("paused") != "0")
    except ArenaRuleError as exc:
        return answered(request, arena, player, refusal=exc)
    return answered(request, arena, player)


@require_POST
@limit_posts(RACE_FORMS)
def arena_leave(request: HttpRequest, arena_id: str) -> HttpResponse:
    arena = get_arena(arena_id)
    player = current_player(request, create=False)
    try:
        actions.do_leave(arena, player)
    except ArenaRuleError as exc:
        return answered(request, arena, player, refusal=exc)
    return answered(
        request, arena, player, "You left the arena: your points stay, and joining again resumes."
    )


@require_GET
def arena_player(request: HttpRequest, arena_id: str, player_id: int) -> HttpResponse:
    arena = get_arena(arena_id)
    entry = one_or_none(
        ArenaPlayer.objects.filter(arena=arena, player_id=player_id).select_related("player")
    )
    if entry is None:
        raise Http404("This player was not in this arena.")
    return render(
        request,
        "arenas/player.html",
        {"arena": arena, "entry": entry, "results": standings.results_of(arena, player_id)},
    )
