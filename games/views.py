"""Pages: home, practice play, and who you are (sign up, nickname). Thin: check, then an action."""

from __future__ import annotations

import re
import time

from django.contrib import messages
from django.contrib.auth import login
from django.db import IntegrityError, connection, transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from games import actions
from games.deals import random_seed
from games.engine import VARIANT_INFO, VARIANTS, new_game
from games.forms import NicknameForm, SignUpForm
from games.identity import acting_player, attach_user, current_player
from games.models import MAX_SEED, NICKNAME_TAKEN, Game
from games.params import known_variant
from games.sockets import deal_frame
from games.winnable import (
    PRACTICE_SEED_BOUND,
    SEARCH_BUDGET_S,
    Use,
    is_proved,
    offers_winnable,
    proved_mark,
    wait_for_deal,
    winnable_seed,
)

# Random deals get seeds below a billion: short enough to read out and share.
RANDOM_SEED_BOUND = PRACTICE_SEED_BOUND
SEED_PATTERN = re.compile(r"[0-9]{1,19}")
SINCE_PATTERN = re.compile(r"[0-9]{1,15}")

# "New winnable deal" with an empty pool: the waiting page asks for news this often (its script;
# without one, it reloads itself as often).
WINNABLE_POLL_S = 2


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
    known_variant(variant)
    return redirect("play", variant=variant, seed=str(random_seed(variant, RANDOM_SEED_BOUND)))


@require_GET
@never_cache
def new_winnable_deal(request: HttpRequest, variant: str) -> HttpResponse:
    """A random deal the solver proved winnable, from the practice pool: a redirect to it.

    The request never searches. With the pool empty, a page that waits for the background
    search (started or joined here: `games.winnable.wait_for_deal`) and asks `winnable_status`
    for news, coming back here once there is some (`?since=` is when the wait began); or, when
    the search ended with no deal proved, a page that says so with a plain random deal one click
    away. Taking the deal writes no player, session or game: only the pool's row goes.
    """
    known_variant(variant)
    info = VARIANT_INFO[variant]
    context = {"variant": variant, "variant_info": info, "budget_s": SEARCH_BUDGET_S}
    if not offers_winnable(variant):
        return render(request, "games/no_winnable_deal.html", {**context, "never_proved": True})
    seed = winnable_seed(variant, Use.PRACTICE)
    if seed is None:
        since = _since(request)
        wait = wait_for_deal(variant, Use.PRACTICE, since)
        if wait.status == "ready":  # the search has just put one there
            seed = winnable_seed(variant, Use.PRACTICE)
        elif wait.status == "none":
            return render(request, "games/no_winnable_deal.html", {**context, "tried": wait.tried})
    if seed is not None:
        play_url = reverse("play", args=[variant, str(seed)])
        return redirect(f"{play_url}?proved={proved_mark(variant, seed)}")
    again = f"{reverse('new_winnable_deal', args=[variant])}?since={int(since * 1000)}"
    status = f"{reverse('winnable_status', args=[variant])}?since={int(since * 1000)}"
    context.update(again=again, status_url=status, poll_s=WINNABLE_POLL_S)
    return render(request, "games/finding_winnable_deal.html", context)


@require_GET
@never_cache
def winnable_status(request: HttpRequest, variant: str) -> JsonResponse:
    """For the waiting page: `{"status": "searching" | "ready" | "none"}` for a wait that began
    at `?since=` (ms); starts or joins the background search as the page does, never searches."""
    known_variant(variant)
    if not offers_winnable(variant):
        return JsonResponse({"status": "none"})
    wait = wait_for_deal(variant, Use.PRACTICE, _since(request))
    return JsonResponse({"status": wait.status})


def _since(request: HttpRequest) -> float:
    """When the player began waiting (`?since=`, ms since the epoch); now when it is missing,
    not a number, or in the future."""
    now = time.time()
    raw = request.GET.get("since", "")
    if not SINCE_PATTERN.fullmatch(raw):
        return now
    return min(int(raw) / 1000, now)


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
    known_variant(variant)
    info = VARIANT_INFO[variant]
    number = check_seed(seed)
    if str(number) != seed:  # "007" is deal 7: one address per deal
        return redirect("play", variant=variant, seed=str(number))
    proved = is_proved(variant, number, request.GET.get("proved"))
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
        "proved": proved,
    }
    return render(request, "games/play.html", context)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account; the guest's Player (and every game it played) becomes the account's."""
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None, player=current_player(request, create=False))
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
    """Pick the name others see (guests too); only a POST that names someone makes a guest."""
    form = NicknameForm(request.POST or None, instance=current_player(request, create=False))
    if request.method == "POST" and form.is_valid():
        try:
            with acting_player(request) as player, transaction.atomic():
                player.nickname = form.cleaned_data["nickname"]
                player.save(update_fields=["nickname"])
        except IntegrityError:  # taken since the form's check, by another's click
            form.add_error("nickname", NICKNAME_TAKEN)
        else:
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
