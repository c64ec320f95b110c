"""Which leaderboards exist: a daily board per variant and day, and three all-time boards."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

DAILY = "daily"
FASTEST = "fastest"
WINS = "wins"
STREAK = "streak"
ALL_TIME = (FASTEST, WINS, STREAK)
KINDS = (DAILY, *ALL_TIME)

TITLES = {
    DAILY: "Daily challenge",
    FASTEST: "Fastest wins",
    WINS: "Most wins",
    STREAK: "Longest daily streak",
}


@dataclass(frozen=True)
class Board:
    """One leaderboard: its kind, its variant and, for a daily board, its UTC day."""

    kind: str
    variant: str
    day: dt.date | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown board {self.kind!r}")
        if (self.kind == DAILY) != (self.day is not None):
            raise ValueError("a daily board has a day, and only a daily board")

    @property
    def title(self) -> str:
        return TITLES[self.kind]

    @property
    def name(self) -> str:
        """The board's name in keys and URLs: ``daily:penguin:2026-11-22``, ``wins:queenie``."""
        parts = [self.kind, self.variant] + ([self.day.isoformat()] if self.day else [])
        return ":".join(parts)
