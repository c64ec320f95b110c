"""Figures for a solvability run: counts with Wilson 95% intervals, time percentiles."""

import math
from dataclasses import dataclass, field

from games.percentiles import percentile

from .result import Verdict

__all__ = ["Tally", "percentile", "wilson"]

Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (sound near 0 and 1, unlike p ± z·se)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class Tally:
    """Verdicts of many deals, and the seconds each decided deal took."""

    counts: dict[str, int] = field(default_factory=lambda: {str(v): 0 for v in Verdict})
    verdict_seconds: list[float] = field(default_factory=list)

    def add(self, verdict: Verdict, seconds: float) -> None:
        self.counts[str(verdict)] += 1
        if verdict != Verdict.UNKNOWN:
            self.verdict_seconds.append(seconds)

    @property
    def deals(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> dict:
        """Counts, shares with 95% intervals, and median / p95 seconds to a verdict."""
        n = self.deals
        return {
            "deals": n,
            "counts": dict(self.counts),
            "ci95": {v: list(wilson(c, n)) for v, c in self.counts.items()},
            "median_seconds": percentile(self.verdict_seconds, 50),
            "p95_seconds": percentile(self.verdict_seconds, 95),
        }
