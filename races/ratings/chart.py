"""A player's rating over their rated races, as SVG coordinates (the player page draws it
inline, like the results chart: nothing to download, no script)."""

from __future__ import annotations

from races.chart import HEIGHT, PALETTE, WIDTH, Chart, Line, Tick

LEFT, RIGHT, TOP, BOTTOM = 58, 16, 12, 32  # room for a four-digit rating drawn large on a phone
STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


def step_for(span: float, target: int) -> int:
    """The first round step that cuts `span` into at most about `target` parts."""
    return next((s for s in STEPS if s * target >= span), STEPS[-1])


def build_rating_chart(label: str, ratings: list[int], start: int) -> Chart:
    """`ratings` after each race, oldest first; `start` the rating before the first."""
    values = [start, *ratings]
    low, high = min(values), max(values)
    step = max(10, step_for(high - low, 4))
    low, high = (low // step) * step, (high // step + 1) * step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return round(LEFT + plot_w * index / max(len(values) - 1, 1), 1)

    def y(rating: int) -> float:
        return round(TOP + plot_h * (1 - (rating - low) / (high - low)), 1)

    points = " ".join(f"{x(i):g},{y(v):g}" for i, v in enumerate(values))
    line = Line(label, PALETTE[0], points, x(len(values) - 1), y(values[-1]))
    race_step = step_for(len(values) - 1, 6)
    x_ticks = [Tick(x(i), str(i)) for i in range(0, len(values), race_step)]
    y_ticks = [Tick(y(v), str(v)) for v in range(low, high + 1, step)]
    return Chart(WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM, [line], x_ticks, y_ticks)
