"""Leaderboard order as one number per entry, lowest first, so a sorted set can keep it.

Daily board: the same order as a race's (races/standings.py, whose packing is reused here):
every winner ranks above everyone who has not won; winners by time (less is better); the rest
by cards on the foundations (more is better), then by how soon they got that many. Entries with
the same score share a rank (1, 2, 2, 4).

All scores are whole numbers below 2**53, so a float (a Redis score) holds them exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from races.standings import CARDS_FACTOR, decode_score, encode_score

MS_LIMIT = CARDS_FACTOR  # times are clamped below it (115 days of milliseconds)


@dataclass(frozen=True)
class DailyResult:
    """What a daily board shows for one attempt: won with a time, or cards on foundations."""

    won: bool
    ms: int  # won: the time to win; otherwise when the foundation count was reached
    foundations: int


def _clamp_ms(ms: int) -> int:
    return min(max(int(ms), 0), MS_LIMIT - 1)


def daily_score(result: DailyResult) -> float:
    """The sorted-set score of a daily result (lower ranks higher)."""
    ms = _clamp_ms(result.ms)
    if result.won:
        return float(encode_score(cards=0, reached_ms=0, won_ms=ms))
    return float(encode_score(cards=result.foundations, reached_ms=ms))


def decode_daily_score(score: float) -> DailyResult:
    """The result a daily score was made from (the inverse of ``daily_score``)."""
    won, cards, ms = decode_score(score)
    return DailyResult(won=won, ms=ms, foundations=0 if won else cards)


def fastest_score(ms: int) -> float:
    """All-time fastest wins: the best time, less is better."""
    return float(_clamp_ms(ms))


def count_score(count: int) -> float:
    """Boards where more is better (wins, streak days): negated so the most ranks first."""
    return -float(count)


def decode_count_score(score: float) -> int:
    return -int(score)


def shared_ranks(scores: list[float], start: int, first_rank: int) -> list[int]:
    """1-based ranks for a slice of a board that begins at 0-based position ``start``.

    Equal scores share a rank; the next different score takes its own position (1, 2, 2, 4).
    ``first_rank`` is the shared rank of the slice's first entry, which may tie with entries
    before the slice.
    """
    ranks: list[int] = []
    for i, score in enumerate(scores):
        if i == 0:
            ranks.append(first_rank)
        elif score == scores[i - 1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(start + i + 1)
    return ranks
