"""A per-connection frame budget: a sliding window of arrival times.

Past `limit` frames in `window` seconds each further frame is refused (`rate_limited`); past
`flood` frames in the window the connection is to be closed. Refused frames count too, so a
client that keeps hammering reaches the flood line.
"""

from __future__ import annotations

import time
from collections import deque
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
