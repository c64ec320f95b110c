"""Per-player limits on game and race writes, and the view decorator that applies one to form posts.

Budgets are per process: with N server processes a player who spreads sockets over all of them
gets at most N times the budget (still bounded; a shared counter in Redis would make it exact at
the cost of a round trip per action). Each socket also keeps its own FrameBudget.
"""

from __future__ import annotations

import functools

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from games.identity import current_player
from games.ratelimit import PlayerBudget

RACE_WRITES = PlayerBudget(limit=settings.PLAYER_WRITE_LIMIT, window=5.0)
"""Race actions over /ws/race/ (join, leave, ready, start, move, undo, resign, rematch) per
player, all sockets together: a fast human makes a few a second."""

GAME_WRITES = PlayerBudget(limit=settings.PLAYER_WRITE_LIMIT, window=5.0)
"""Moves, undos and autoplays over /ws/game/ (practice and daily games: a daily move also writes
the daily board) per player, all sockets together."""

RACE_FORMS = PlayerBudget(limit=10, window=60.0)
"""Race pages' POSTs (new race, join, rematch) per player."""


def limit_posts(budget: PlayerBudget):
    """Refuse a player's POSTs past `budget` with 429 (GETs pass, so the page still shows)."""

    def decorate(view):
        @functools.wraps(view)
        def limited(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method == "POST" and not budget.allow(current_player(request).pk):
                return HttpResponse(
                    f"Too many requests: at most {budget.limit} in {budget.window:g} seconds. "
                    "Wait a moment and try again.",
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
            return view(request, *args, **kwargs)

        return limited

    return decorate
