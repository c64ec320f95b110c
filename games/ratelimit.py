"""A per-connection frame budget: a sliding window of arrival times.

Past `limit` frames in `window` seconds each further frame is refused (`rate_limited`); past
`flood` frames in the window the connection is to be closed. Refused frames count too, so a
client that keeps hammering reaches the flood line.

PlayerBudget is the same window kept per player, shared by all of a player's sockets and pages
in the process, so opening more sockets buys no bigger budget.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from enum import Enum


class Verdict(Enum):
    OK = "ok"
    LIMITED = "limited"
    FLOOD = "flood"


class FrameBudget:
    def __init__(
        self,
        limit: int = 30,
        flood: int = 120,
        window: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 < limit <= flood:
            raise ValueError("need 0 < limit <= flood")
        self.limit = limit
        self.flood = flood
        self.window = window
        self.clock = clock
        self._arrivals: deque[float] = deque(maxlen=flood + 1)

    def charge(self) -> Verdict:
        """Count one frame arriving now and say what to do with it."""
        now = self.clock()
        arrivals = self._arrivals
        while arrivals and arrivals[0] <= now - self.window:
            arrivals.popleft()
        arrivals.append(now)
        count = len(arrivals)
        if count > self.flood:
            return Verdict.FLOOD
        if count > self.limit:
            return Verdict.LIMITED
        return Verdict.OK


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
        return allowed

    def refusal(self, player_id, what: str) -> str | None:
        """Count one of the player's `what` (moves, race actions) now: None when allowed, else
        the reason it is refused, for the client."""
        if self.allow(player_id):
            return None
        return f"more than {self.limit} {what} in {self.window:g} s, over all your sockets"

    def clear(self) -> None:
        with self._lock:
            self._windows.clear()
