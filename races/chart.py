"""The results chart: every racer's cards on foundations over time, as SVG coordinates.

Pure geometry from plain data; the template draws the `<svg>` so nothing is downloaded and the
page needs no script. Counts change at moments, so each racer's line is a staircase: it stays
level until the move that changed the count, then steps.

Lines that run together stay apart: each racer's line has its own dash pattern as well as its
colour (the one drawn later lets the earlier show through its gaps), a line identical to an
earlier one is drawn a few pixels above it, and each line has words for the legend ("blue,
solid: 52 cards home at 1:07") that a screen reader reads in place of the colours.
"""

from dataclasses import dataclass

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
COLOUR_NAMES = ("blue", "red", "green", "orange", "purple", "teal", "pink", "grey")
DASHES = (("", "solid"), ("9 4", "dashed"), ("2 3", "dotted"), ("10 3 2 3", "dash-dot"))
APART_PX = 3
"""How far a line identical to an earlier one is drawn from it."""
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
    dash: str = ""
    """The `stroke-dasharray` ("" for a solid line)."""
    looks: str = ""
    """The line in words: "blue, dashed"."""
    summary: str = ""
    """Where it ends: "52 cards home at 1:07", "14 cards home"."""


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


def _apart(coords: list[tuple[float, float]], drawn: dict[tuple, int]) -> list:
    """The line moved `APART_PX` up for each identical line before it (not above the plot)."""
    shape = tuple(coords)
    k = drawn.get(shape, 0)
    drawn[shape] = k + 1
    return [(cx, max(TOP, round(cy - APART_PX * k, 1))) for cx, cy in coords]


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
    drawn: dict[tuple, int] = {}  # each line's shape: how many are drawn with it already
    for i, (label, points) in enumerate(series):
        coords = [(x(0), y(0))]
        cards = 0
        for ms, count in points:
            coords.append((x(ms), y(cards)))
            cards = count
            coords.append((x(ms), y(cards)))
        won = bool(points) and cards == total_cards
        last_ms = points[-1][0] if won else end_ms
        coords.append((x(last_ms), y(cards)))
        coords = _apart(coords, drawn)
        text = " ".join(f"{cx:g},{cy:g}" for cx, cy in coords)
        dash, dash_name = DASHES[i % len(DASHES)]
        colour = i % len(PALETTE)
        summary = f"{cards} card{'' if cards == 1 else 's'} home"
        summary += f" at {_clock(last_ms / 1000)}" if won else ""
        end_x, end_y = coords[-1]
        looks = f"{COLOUR_NAMES[colour]}, {dash_name}"
        lines.append(Line(label, PALETTE[colour], text, end_x, end_y, dash, looks, summary))

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
