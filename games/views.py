"""Pages: home, practice play, and who you are (sign up, nickname). Thin: check, then an action."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import login
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods

from games import actions
from games.deals import random_seed
from games.engine import VARIANT_INFO, VARIANTS, new_game
from games.forms import NicknameForm, SignUpForm
from games.frames import deal_frame
from games.identity import attach_user, current_player
from games.models import MAX_SEED, Game
from games.winnable import PRACTICE_SEED_BOUND, SolverBusy, Use, offers_winnable, winnable_seed

# Random deals get seeds below a billion: short enough to read out and share.
RANDOM_SEED_BOUND = PRACTICE_SEED_BOUND
SEED_PATTERN = re.compile(r"[0-9]{1,19}")

# "New winnable deal": the solver's time for all the deals it tries, and for any one of them.
# Short enough that the page answers while the player still waits for it.
WINNABLE_BUDGET_S = 4.0
WINNABLE_SECONDS_PER_DEAL = 1.5


def check_variant(variant: str) -> dict:
    """The variant's VARIANT_INFO entry; 404 for an unknown variant."""
    if variant not in VARIANTS:
        raise Http404(f"There is no variant called “{variant}”.")
    return VARIANT_INFO[variant]


def check_seed(seed: str) -> int:
    """The seed as a number; 404 unless it is a whole number from 0 to 2**63 - 1."""
    if not SEED_PATTERN.fullmatch(seed) or int(seed) > MAX_SEED:
        raise Http404(f"There is no deal number “{seed}”: deals are numbered 0 to {MAX_SEED}.")
    return int(seed)


def _next_url(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    variants = [
        {"id": variant, "offers_winnable": offers_winnable(variant), **VARIANT_INFO[variant]}
        for variant in VARIANTS
    ]
    return render(request, "home.html", {"variants": variants})


@require_GET
def new_deal(request: HttpRequest, variant: str) -> HttpResponse:
    """A new random deal of the variant: a redirect to its own address, which can be shared."""
    check_variant(variant)
    return redirect("play", variant=variant, seed=str(random_seed(variant, RANDOM_SEED_BOUND)))


@require_GET
def new_winnable_deal(request: HttpRequest, variant: str) -> HttpResponse:
    """A random deal the solver proves winnable: a redirect to it, or a page saying none was
    proved in time (with a plain random deal one click away)."""
    info = check_variant(variant)
    context = {"variant": variant, "variant_info": info, "budget_s": WINNABLE_BUDGET_S}
    if not offers_winnable(variant):
        return render(request, "games/no_winnable_deal.html", {**context, "never_proved": True})
    try:
        seed, tried = winnable_seed(
            variant, Use.PRACTICE, WINNABLE_BUDGET_S, WINNABLE_SECONDS_PER_DEAL
        )
    except SolverBusy:
        response = render(request, "games/no_winnable_deal.html", {**context, "busy": True})
        response.status_code = 503
        response["Retry-After"] = "5"
        return response
    if seed is not None:
        return redirect("play", variant=variant, seed=str(seed))
    return render(request, "games/no_winnable_deal.html", {**context, "tried": tried})


def _deal_as_dealt(variant: str, seed: int) -> dict:
    engine = new_game(variant, seed)
    legal = engine.legal_moves()
    return deal_frame(engine.to_dict(view="player"), legal, actions.status_of(engine, legal))


@require_http_methods(["GET", "POST"])
def play(request: HttpRequest, variant: str, seed: str) -> HttpResponse:
    """A deal's page: the player's unfinished practice game on it, or the deal itself.

    A GET writes nothing (a shared link opened by a crawler or a link preview makes no guest,
    session or game): it shows the game to resume if the visitor already has one, else the
    deal as dealt. The game starts with the first action: the page POSTs here (JSON answer,
    or a redirect back for a plain form) and then opens the game on the socket.
    """
    info = check_variant(variant)
    number = check_seed(seed)
    if str(number) != seed:  # "007" is deal 7: one address per deal
        return redirect("play", variant=variant, seed=str(number))
    if request.method == "POST":
        game, _ = actions.do_open_game(current_player(request), variant, number, Game.Kind.PRACTICE)
        if "application/json" in request.headers.get("Accept", ""):
            return JsonResponse({"game": game.public_id})
        return redirect("play", variant=variant, seed=str(number))
    player = current_player(request, create=False)
    game = actions.unfinished_game(player, variant, number) if player else None
    board_config = {
        "game": game.public_id if game else None,
        "variant": variant,
        "seed": number,
        "kind": Game.Kind.PRACTICE,
        "ws_path": "/ws/game/",
        "variant_name": info["name"],
        "layout": info,
    }
    if game is None:
        board_config["deal"] = _deal_as_dealt(variant, number)
    context = {
        "game": game,
        "variant_info": info,
        "board_config": board_config,
        "offers_winnable": offers_winnable(variant),
    }
    return render(request, "games/play.html", context)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account; the guest's Player (and every game it played) becomes the account's."""
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        attach_user(current_player(request), user)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request, f"Welcome, {user.get_username()}! Your games are in your account."
        )
        return redirect(_next_url(request, reverse("home")))
    return render(
        request, "registration/signup.html", {"form": form, "next": _next_url(request, "")}
    )


@require_http_methods(["GET", "POST"])
def nickname(request: HttpRequest) -> HttpResponse:
    """Pick the name others see (guests too); only the POST makes a guest."""
    player = current_player(request, create=request.method == "POST")
    form = NicknameForm(request.POST or None, instance=player)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"You are now “{player.nickname}”.")
        return redirect(_next_url(request, reverse("home")))
    return render(
        request, "registration/nickname.html", {"form": form, "next": _next_url(request, "")}
    )


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """For load balancers and compose: the process answers and the database does."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})
