"""What a screen reader reads on the seeded site's pages: every table column named, every label
on an element whose role takes one, a chart's labels readable (docs/frontend.md,
"Accessibility")."""

from __future__ import annotations

import pytest

from tests.contrast import over, parse_colour, ratio
from tests.seeded_site import own_daily, wait_for_boards

pytestmark = pytest.mark.browser


def test_every_table_header_names_its_column(seeded_site, page):
    """The races list, a daily board and a player's page name every column, the links' too
    (for a screen reader; out of sight on the screen)."""
    samples = seeded_site.samples
    pages = [
        "/races/",
        f"/daily/{samples['variant']}/{samples['day']}/",
        f"/players/{samples['player_id']}/",
    ]
    empty = {}
    for path in pages:
        page.goto(seeded_site.url + path)
        assert page.locator("table th").count() > 0, path
        unnamed = page.evaluate(
            "() => [...document.querySelectorAll('th')].filter((th) => !th.textContent.trim())"
            ".map((th) => th.closest('table').className + ' column ' + (th.cellIndex + 1))"
        )
        if unnamed:
            empty[path] = unnamed
    assert not empty, f"table headers with no text: {empty}"


# Elements whose role takes no name (div, span, …) that carry an aria-label anyway.
UNREAD_LABELS = """() => {
    const generic = new Set(["DIV", "SPAN", "P", "B", "I", "EM", "STRONG", "SMALL", "TIME"]);
    return [...document.querySelectorAll('[aria-label]')]
        .filter((el) => generic.has(el.tagName) && !el.hasAttribute('role'))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className} "${el.getAttribute('aria-label')}"`);
}"""


def test_labels_sit_on_roles_that_take_them(seeded_site, page):
    """On a Penguin game, a replay, a daily game and a race watched, no aria-label sits on an
    element without a role (a screen reader may skip it): a card is an image named by its
    label, the stats a group, a clock a timer, the beak line a note."""
    samples = seeded_site.samples
    pages = [
        f"/play/penguin/{samples['seed']}/",
        f"/replay/{samples['public_id']}/",
        f"/daily/play/{own_daily(page, seeded_site)}/",
        f"/races/{samples['code']}/",
    ]
    unread = {}
    for path in pages:
        page.goto(seeded_site.url + path)
        wait_for_boards(page)
        assert page.locator("[data-card]").count() > 0, path
        found = page.evaluate(UNREAD_LABELS)
        if found:
            unread[path] = f"{len(found)}: {found[:5]}"
    assert not unread, f"labels on elements without a role: {unread}"


def test_chart_labels_are_readable(seeded_site, page):
    """A race's chart is an image (axe leaves its text to review): its axis labels reach 4.5:1
    on the chart's own background."""
    page.goto(f"{seeded_site.url}/races/{seeded_site.samples['code']}/results/")
    labels = page.evaluate(
        """() => [...document.querySelectorAll('svg[role=img] text')].map((t) => [
            t.textContent, getComputedStyle(t).fill,
            getComputedStyle(t.closest('svg')).backgroundColor])"""
    )
    assert labels
    for text, fill, background in labels:
        fg, bg = parse_colour(fill), parse_colour(background)
        assert bg[3] == 1, f"the chart's background is not opaque: {background}"
        assert ratio(over(fg, bg[:3]), bg[:3]) >= 4.5, (text, fill, background)
