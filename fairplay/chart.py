"""The review's think-time chart: one bar a move, its height the time since the move before on
a log scale (50 ms to 60 s), the fast line (rules.FAST_MS) dashed. Plain Python: SVG text from
numbers only."""

from __future__ import annotations

import math

from django.template.defaultfilters import pluralize

from fairplay.rules import FAST_MS

WIDTH = 600
HEIGHT = 160
LOW_MS = 50
HIGH_MS = 60_000
TICKS_MS = (100, FAST_MS, 1000, 10_000, 60_000)


def y_of(ms: float) -> float:
    """The height on the chart of a think time (log scale, clamped to LOW_MS..HIGH_MS)."""
    ms = min(max(ms, LOW_MS), HIGH_MS)
    share = math.log(ms / LOW_MS) / math.log(HIGH_MS / LOW_MS)
    return round(HEIGHT - share * HEIGHT, 1)


def tick_label(ms: int) -> str:
    return f"{ms // 1000} s" if ms >= 1000 else f"{ms} ms"


def think_time_svg(think_ms: list[int]) -> str:
    """The chart as an inline SVG element."""
    left = 48
    inner = WIDTH - left - 4
    moves = len(think_ms)
    step = inner / max(1, moves)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT + 20}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT + 20}" role="img" '
        f'aria-label="Think time of {moves} move{pluralize(moves)}, one bar each, log scale">'
    ]
    for ms in TICKS_MS:
        y = y_of(ms)
        dash = ' stroke-dasharray="4 3"' if ms == FAST_MS else ""
        colour = "#c0392b" if ms == FAST_MS else "#ccc"
        parts.append(
            f'<line x1="{left}" x2="{WIDTH}" y1="{y}" y2="{y}" stroke="{colour}"{dash}/>'
            f'<text x="{left - 4}" y="{y + 4}" font-size="10" text-anchor="end">'
            f"{tick_label(ms)}</text>"
        )
    for i, ms in enumerate(think_ms):
        x = round(left + i * step, 1)
        y = y_of(ms)
        colour = "#c0392b" if ms < FAST_MS else "#2c7fb8"
        parts.append(
            f'<rect x="{x}" y="{y}" width="{max(1.0, round(step - 1, 1))}" '
            f'height="{round(HEIGHT - y, 1)}" fill="{colour}"><title>move {i + 2}: {ms} ms'
            "</title></rect>"
        )
    parts.append(
        f'<text x="{left}" y="{HEIGHT + 15}" font-size="10">moves in order, '
        "red: under the fast line</text></svg>"
    )
    return "".join(parts)
