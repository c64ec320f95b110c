"""Race pages: the public list, setting a race up, the live page, joining, results, rematch.

Thin: parse and check, then one action; everything live happens over /ws/race/<code>/.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.engine import VARIANT_INFO
from games.identity import acting_player, current_player
from games.models import Player
from games.models import default_guest_nickname as guest_nickname
from games.rows import one_or_none
from games.throttles import RACE_FORMS, limit_posts
from games.winnable import NEVER_PROVED
from races import actions, results
from races.clock import phase_of
from races.codes import normalize_code
from races.forms import DealChoice, JoinForm, RaceForm
from races.lifecycle import Phase, RaceRuleError
from races.models import Race, Racer

LIST_SIZE = 30


def get_race(code: str, viewer: Player | None = None) -> Race:
    """The race with this code (typed any way); 404 otherwise. Closes it if its time is up.
    With `viewer`, read with whether that player races in it (`race.viewer_races`), in the same
    statement."""
    rows = Race.objects.filter(code=normalize_code(code) or "")
    if viewer is not None:
        racing = Racer.objects.filter(race=OuterRef("pk"), player=viewer)
        rows = rows.annotate(viewer_races=Exists(racing))
    race = one_or_none(rows)
    if race is None:
        raise Http404("There is no race with this code.")
    if phase_of(race) == Phase.OVERTIME:
        actions.do_close_if_due(race)
        race.refresh_from_db()
    elif race.autostart_at is not None and actions.do_start_if_due(race):
        race.refresh_from_db()  # a quick race whose lobby time was up: started now
    return race


@require_GET
def race_list(request: HttpRequest) -> HttpResponse:
    """Public races to join or watch, and recent results."""
    public = Race.objects.filter(visibility=Race.Visibility.PUBLIC)
    context = {
        "open_races": list(public.filter(status=Race.Status.LOBBY)[:LIST_SIZE]),
        "running_races": list(public.filter(status=Race.Status.STARTED)[:LIST_SIZE]),
        "finished_races": list(
            public.filter(status=Race.Status.FINISHED).order_by("-finished_at")[:LIST_SIZE]
        ),
    }
    # What the list shows of the racers, their names, in one query as plain values: a prefetch
    # tied each race and its racers into reference cycles that only the garbage collector frees,
    # 1,500 objects a page, and its pauses were this page's slowest requests (docs/performance.md).
    races = [race for listed in context.values() for race in listed]
    names: dict[int, list[tuple[str, int]]] = {race.pk: [] for race in races}
    racers = Racer.objects.filter(race_id__in=names).values_list("race_id", "name", "player_id")
    for race_id, name, player_id in racers:
        names[race_id].append((name, player_id))
    for race in races:
        race.names = names[race.pk]
    return render(request, "races/list.html", context)


@require_http_methods(["GET", "POST"])
@limit_posts(RACE_FORMS)
def race_new(request: HttpRequest) -> HttpResponse:
    """The set-up form; only a POST that makes a race makes a guest (a GET, or a refused form,
    writes nothing)."""
    player = current_player(request, create=False)
    form = RaceForm(
        request.POST or None, initial={"name": player.nickname if player else guest_nickname()}
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with acting_player(request) as player:
                race = actions.do_create_race(
                    player,
                    variant=data["variant"],
                    seed=data["seed"] if data["deal"] == DealChoice.SEED else None,
                    winnable=data["deal"] == DealChoice.WINNABLE,
                    max_players=data["max_players"],
                    time_limit_s=data["time_limit"],
                    visibility=data["visibility"],
                    name=data["name"] or None,
                    rated=data["rated"],
                )
        except RaceRuleError as exc:
            form.add_error(None, exc.reason)
        else:
            actions.adopt_name(player, data["name"])
            return redirect(race)
    context = {"form": form, "never_proved": sorted(NEVER_PROVED)}
    return render(request, "races/new.html", context)


@require_GET
def join_by_code(request: HttpRequest) -> HttpResponse:
    """The short code typed in: off to that race's page."""
    code = normalize_code(request.GET.get("code", ""))
    race = one_or_none(Race.objects.filter(code=code)) if code else None
    if race is None:
        messages.error(request, "No race has that code; check it and try again.")
        return redirect("races:list")
    return redirect(race)


@require_GET
def race_page(request: HttpRequest, code: str) -> HttpResponse:
    """The live page: lobby, countdown, race, for racers and spectators alike."""
    player = current_player(request, create=False)  # a look writes nothing: joining makes a guest
    race = get_race(code, viewer=player)
    if code != race.code:
        return redirect(race)
    is_racer = player is not None and race.viewer_races
    owner = actions.owner_of(race)  # an arena's race: no rematch, a link back to the arena
    info = VARIANT_INFO[race.variant]
    config = {
        "code": race.code,
        "ws_path": f"/ws/race/{race.code}/",
        "variant": race.variant,
        "variant_name": info["name"],
        "layout": info,
        "results_url": f"{race.get_absolute_url()}results/",
        "player_url": reverse("records:player", args=[0]),
        "rematch": owner is None,
        # A racer's page waits there for the next race of its arena once the race is over, also
        # when it was opened (or its socket came back with a snapshot) after the `arena` event.
        "next_race": owner.next_race if owner and is_racer else None,
        # The racers still racing, someone else done, are resigned once none of them has moved
        # for this long (races/holdups.py): their pages count it down.
        "idle_after_s": settings.RACE_IDLE_AFTER_S if is_racer else None,
    }
    context = {
        "race": race,
        "is_racer": is_racer,
        "owner": owner,
        "config": config,
        "join_form": JoinForm(initial={"name": player.nickname if player else guest_nickname()}),
        "can_join": not is_racer and race.status == Race.Status.LOBBY,
        # Full: offer to watch, not a join that would be refused (the page follows it live).
        "full": not is_racer and race.racers.count() >= race.max_players,
    }
    return render(request, "races/race.html", context)


@require_POST
@limit_posts(RACE_FORMS)
def race_join(request: HttpRequest, code: str) -> HttpResponse:
    race = get_race(code)
    form = JoinForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors.get("name", ["Check your nickname."])))
        return redirect(race)
    try:  # a visitor's join that goes through makes them a guest; a refused one, nobody
        with acting_player(request) as player:
            actions.do_join_race(race, player, form.cleaned_data["name"])
    except RaceRuleError as exc:
        messages.error(request, exc.reason)
    else:
        actions.adopt_name(player, form.cleaned_data["name"])
    return redirect(race)


@require_GET
def race_results(request: HttpRequest, code: str) -> HttpResponse:
    race = get_race(code)
    if not race.is_over:
        return redirect(race)
    player = current_player(request, create=False)
    context = {
        "race": race,
        "rows": results.rows(race),
        "chart": results.chart(race),
        "is_racer": actions.is_racer(race, player),
        "owner": actions.owner_of(race),
        "socket_config": {"ws_path": f"/ws/race/{race.code}/"},
    }
    return render(request, "races/results.html", context)


@require_POST
@limit_posts(RACE_FORMS)
def race_rematch(request: HttpRequest, code: str) -> HttpResponse:
    race = get_race(code)
    try:
        new = actions.do_rematch(race, current_player(request, create=False))
    except RaceRuleError as exc:
        messages.error(request, exc.reason)
        return redirect("races:results", code=race.code)
    return redirect(new)
