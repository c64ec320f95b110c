"""One percentile rule for every figure the project prints (benchmarks, load runs, solvability)."""

import math


def percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank percentile ``q`` (0–100) of ``values``; None when there are none.

    Nearest rank always names a value that was measured, so a p99 of few samples is the
    slowest of them rather than a blend.
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]
