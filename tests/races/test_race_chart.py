"""The results chart's geometry: staircase lines inside the plot, axes labelled."""

from races.chart import build_chart


def parse(points: str) -> list[tuple[float, float]]:
    return [tuple(map(float, p.split(","))) for p in points.split()]


def test_each_line_is_a_staircase_inside_the_plot():
    """Lines only go right or up-and-down at one moment, and stay inside the plot area."""
    chart = build_chart([("ann", [(1000, 1), (5000, 3)]), ("bob", [])], 52, 10_000)
    for line in chart.lines:
        coords = parse(line.points)
        for (x0, y0), (x1, y1) in zip(coords, coords[1:], strict=False):
            assert x1 >= x0
            assert x0 == x1 or y0 == y1
        for x, y in coords:
            assert chart.left <= x <= chart.right and chart.top <= y <= chart.bottom


def test_counts_map_to_heights():
    """Zero cards sits on the bottom axis, the full deck on the top one."""
    chart = build_chart([("ann", [(2000, 52)])], 52, 4000)
    coords = parse(chart.lines[0].points)
    assert coords[0][1] == chart.bottom
    assert coords[-1][1] == chart.top
    assert coords[-1][0] < chart.right, "a winner's line stops at the winning move"


def test_an_unfinished_line_runs_to_the_end():
    """A racer who did not win is drawn to the end of the race."""
    chart = build_chart([("ann", [(2000, 5)])], 52, 4000)
    assert parse(chart.lines[0].points)[-1][0] == chart.right


def test_one_card_home_is_one_card():
    chart = build_chart([("ann", [(2000, 1)]), ("bob", [])], 52, 4000)
    assert [line.summary for line in chart.lines] == ["1 card home", "0 cards home"]


def test_axes_have_ticks_from_zero_to_the_full_deck():
    """The card axis ends on the deck size and the time axis starts at 0:00."""
    chart = build_chart([], 104, 95_000)
    assert chart.y_ticks[0].label == "0" and chart.y_ticks[-1].label == "104"
    assert chart.x_ticks[0].label == "0:00"
    assert all(t.pos <= chart.right for t in chart.x_ticks)


def test_equal_lines_stay_apart():
    """Two racers with the same curve: the second is drawn a little above the first, with
    another dash pattern, and each line says in words how it looks and where it ends."""
    same = [(1000, 4), (3000, 9)]
    chart = build_chart([("ann", same), ("bob", same), ("cy", [(2000, 52)])], 52, 4000)
    ann, bob, cy = chart.lines
    assert ann.points != bob.points and ann.dash != bob.dash
    assert [x for x, _ in parse(ann.points)] == [x for x, _ in parse(bob.points)]
    for line in chart.lines:
        for _, y in parse(line.points):
            assert chart.top <= y <= chart.bottom
    assert (ann.looks, ann.summary) == ("blue, solid", "9 cards home")
    assert (bob.looks, cy.looks) == ("red, dashed", "green, dotted")
    assert cy.summary == "52 cards home at 0:02"
