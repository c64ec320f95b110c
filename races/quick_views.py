"""The Quick race button: a POST that places the player (a new guest if need be) in the next
open quick race and opens its page (races/quick.py).

The view is async and places the player on the ORM worker threads (with PostgreSQL): a crowd's
placements then wait on the database's lock, not in the one thread that runs the process's
other views and reads every new socket's session (a queue there outlasts Daphne's handshake
timeout, and sockets were dropped before they opened).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from games.identity import current_player
from games.storage import off_loop
from games.throttles import RACE_FORMS, limit_posts
from races.lifecycle import RaceRuleError
from races.quick import ANY, do_quick_race


@limit_posts(RACE_FORMS)
def place(request: HttpRequest) -> HttpResponse:
    try:
        race = do_quick_race(current_player(request), request.POST.get("variant") or ANY)
    except RaceRuleError as exc:
        messages.error(request, exc.reason)
        return redirect("races:list")
    return redirect(race)


@require_POST
async def quick_race(request: HttpRequest) -> HttpResponse:
    return await off_loop(place)(request)
