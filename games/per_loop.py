"""One object for each running event loop.

What the sockets of a process share (the games held in play, a race's relay) holds asyncio
locks, futures and timers, which belong to the loop that made them. A server process has one
loop; a test run makes a loop a test, and each gets its own, those of closed loops being
dropped as new ones come.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class PerLoop(Generic[T]):
    """`get()`: the running loop's `make()`, made at its first call."""

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make
        self.found: dict[asyncio.AbstractEventLoop, T] = {}

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        found = self.found.get(loop)
        if found is None:
            for old in [lp for lp in self.found if lp.is_closed()]:
                del self.found[old]
            found = self.found[loop] = self.make()
        return found

    def values(self):
        return self.found.values()
