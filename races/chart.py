"""The results chart: every racer's cards on foundations over time, as SVG coordinates.

Pure geometry from plain data; the template draws the `<svg>` so nothing is downloaded and the
page needs no script. Counts change at moments, so each racer's line is a staircase: it stays
level until the move that changed the count, then steps.
"""

from dataclasses import dataclass

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 12, 32


@dataclass(frozen=True)
class Line:
    label: str
    color: str
    points: str
    """The `points` attribute of a `<polyline>`."""
    end_x: float
    end_y: float


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: float
    top: int
    bottom: float
    lines: list[Line]
    x_ticks: list[Tick]
    y_ticks: list[Tick]


def _nice_step(span: float, target: int) -> float:
    raw = span / max(target, 1)
    for step in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600):
        if step >= raw:
            return step
    return 3600 * (int(raw // 3600) + 1)


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def build_chart(
    series: list[tuple[str, list[tuple[int, int]]]], total_cards: int, end_ms: int
) -> Chart:
    """`series` is (label, [(ms from start, cards), ...] in time order) per racer, best first."""
    end_ms = max(end_ms, 1000)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x(ms: int) -> float:
        return round(LEFT + plot_w * min(max(ms, 0), end_ms) / end_ms, 1)

    def y(cards: int) -> float:
        return round(TOP + plot_h * (1 - cards / max(total_cards, 1)), 1)

    lines = []
    for i, (label, points) in enumerate(series):
        coords = [(x(0), y(0))]
        cards = 0
        for ms, count in points:
            coords.append((x(ms), y(cards)))
            cards = count
            coords.append((x(ms), y(cards)))
        last_ms = points[-1][0] if points and cards == total_cards else end_ms
        coords.append((x(last_ms), y(cards)))
        text = " ".join(f"{cx:g},{cy:g}" for cx, cy in coords)
        lines.append(Line(label, PALETTE[i % len(PALETTE)], text, coords[-1][0], coords[-1][1]))

    step_s = _nice_step(end_ms / 1000, 6)
    x_ticks = []
    t = 0.0
    while t * 1000 <= end_ms:
        x_ticks.append(Tick(x(int(t * 1000)), _clock(t)))
        t += step_s
    card_step = max(1, int(_nice_step(total_cards, 4)))
    y_ticks = [Tick(y(c), str(c)) for c in range(0, total_cards + 1, card_step)]
    if y_ticks[-1].label != str(total_cards):
        y_ticks.append(Tick(y(total_cards), str(total_cards)))
    return Chart(WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM, lines, x_ticks, y_ticks)
