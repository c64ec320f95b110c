"""Per-player limits on game and race writes (`PlayerBudget`, a sliding window of each player's
actions, shared by all of that player's sockets and pages in the process), and the view decorator
that applies one to form posts.

Budgets are per process: with N server processes a player who spreads sockets over all of them
gets at most N times the budget (still bounded; a shared counter in Redis would make it exact at
the cost of a round trip per action). Each socket also keeps its own FrameBudget.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from games.identity import current_player


class PlayerBudget:
    """`limit` actions per player in any `window` seconds, shared by that player's connections.

    Refused actions are not counted (a player who keeps trying is refused until the window
    slides, not locked out). Memory is bounded: past `players` entries the player seen least
    recently is forgotten. Thread-safe: pages run in worker threads.
    """

    def __init__(
        self,
        limit: int,
        window: float,
        players: int = 50_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit <= 0 or window <= 0 or players <= 0:
            raise ValueError("need a positive limit, window and player count")
        self.limit = limit
        self.window = window
        self.players = players
        self.clock = clock
        self._windows: OrderedDict[object, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, player_id) -> bool:
        """Count one action of this player now; False (and not counted) past the limit."""
        return self.refusal(player_id, "actions") is None

    def refusal(self, player_id, what: str) -> str | None:
        """Count one of the player's `what` (moves, race actions) now: None when allowed, else
        the reason it is refused, for the client (and not counted)."""
        now = self.clock()
        with self._lock:
            arrivals = self._windows.pop(player_id, None) or deque()
            while arrivals and arrivals[0] <= now - self.window:
                arrivals.popleft()
            allowed = len(arrivals) < self.limit
            if allowed:
                arrivals.append(now)
            self._windows[player_id] = arrivals
            while len(self._windows) > self.players:
                self._windows.popitem(last=False)
        if allowed:
            return None
        return f"more than {self.limit} {what} in {self.window:g} s, over all your sockets"

    def clear(self) -> None:
        with self._lock:
            self._windows.clear()


RACE_WRITES = PlayerBudget(limit=settings.PLAYER_WRITE_LIMIT, window=5.0)
"""Race actions over /ws/race/ (join, leave, ready, start, move, undo, resign, rematch) per
player, all sockets together: a fast human makes a few a second."""

GAME_WRITES = PlayerBudget(limit=settings.PLAYER_WRITE_LIMIT, window=5.0)
"""Moves, undos and autoplays over /ws/game/ (practice and daily games: a daily move also writes
the daily board) per player, all sockets together."""

RACE_FORMS = PlayerBudget(limit=10, window=60.0)
"""Race pages' POSTs (new race, join, rematch) per player."""


def limit_posts(budget: PlayerBudget):
    """Refuse a player's POSTs past `budget` with 429 (GETs pass, so the page still shows). A
    visitor's POSTs are not counted: counting would make the guest it counts, and only a POST
    that does something may make one (`acting_player`); the guest it makes is counted from then
    on. A visitor without cookies was a new guest at every POST, never held by the budget anyway."""

    def decorate(view):
        @functools.wraps(view)
        def limited(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            player = current_player(request, create=False) if request.method == "POST" else None
            if player is not None and not budget.allow(player.pk):
                return HttpResponse(
                    f"Too many requests: at most {budget.limit} in {budget.window:g} seconds. "
                    "Wait a moment and try again.",
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
            return view(request, *args, **kwargs)

        return limited

    return decorate
