"""The Quick race button: a POST that places the player (a new guest if need be) in the next
open quick race and opens its page (races/quick.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games.identity import current_player
from games.throttles import RACE_FORMS, limit_posts
from races.lifecycle import RaceRuleError
from races.quick import ANY, do_quick_race


@require_POST
@limit_posts(RACE_FORMS)
def quick_race(request: HttpRequest) -> HttpResponse:
    try:
        race = do_quick_race(current_player(request), request.POST.get("variant") or ANY)
    except RaceRuleError as exc:
        messages.error(request, exc.reason)
        return redirect("races:list")
    return redirect(race)
