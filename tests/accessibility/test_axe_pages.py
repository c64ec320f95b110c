"""axe-core on every page of the site at a desktop and a phone width: the pages listed from the
URL configuration, their parameters filled from seeded data (docs/frontend.md, "Accessibility")."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.arenas.test_arena_browser import set_up as set_up_arena
from tests.axe_support import run_axe
from tests.browser_support import WIDTHS
from tests.seeded_site import Site, site_paths, wait_for_boards

pytestmark = pytest.mark.browser

# The header's background and its brand's two colours: the same on every page.
HEADER_COLOURS = """() => {
    const header = document.querySelector('.site-header');
    if (!header) return null;
    const brand = header.querySelector('.brand span');
    return [getComputedStyle(header).backgroundColor, getComputedStyle(brand).color].join(' ');
}"""


SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Two frames after a resize: the resize event and the resize observers have run (the board lays
its cards out again for the new width)."""


class EveryWidth:
    """A page looked at in every width of WIDTHS in turn, resized where it stands: CSS media
    queries and the board's resize handlers lay it out again. On the seeded site's pages axe-core's
    whole result (its passes too) after a resize was the one of a load at that width, every page
    but a random deal's (docs/testing.md). JavaScript errors are kept by the width they came at."""

    def __init__(self, page) -> None:
        self.page = page
        self.width = next(iter(WIDTHS))
        self.errors: dict[str, list[str]] = {width: [] for width in WIDTHS}
        page.on("pageerror", lambda error: self.errors[self.width].append(str(error)))

    def resize(self, width: str) -> None:
        self.width = width
        self.page.set_viewport_size(dict(zip(("width", "height"), WIDTHS[width], strict=True)))
        self.page.evaluate(SETTLE)

    def each(self):
        """Each width's name, the page resized to it."""
        for width in WIDTHS:
            self.resize(width)
            yield width


@dataclass
class Walk:
    """What the walk of the site's pages found at one width."""

    checked: list[str] = field(default_factory=list)
    not_pages: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    findings: dict[str, list[str]] = field(default_factory=dict)
    headers: dict[str, list[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def walk_every_page(page, site: Site) -> dict[str, Walk]:
    """Each page of the site loaded once, at the first width, and checked at every width."""
    widths = EveryWidth(page)
    walks = {width: Walk(errors=widths.errors[width]) for width in WIDTHS}
    for name, path in site_paths(page, site):
        answer = page.request.get(site.url + path, max_redirects=5)
        kind = answer.headers.get("content-type", "")
        if answer.status == 405 or (answer.ok and not kind.startswith("text/html")):
            for walk in walks.values():
                walk.not_pages.append(f"{name} {path}: {answer.status} {kind}")
            continue
        if answer.status >= 500 or (answer.status == 404 and name != "not found"):
            for walk in walks.values():
                walk.broken.append(f"{name} {path}: {answer.status}")
            continue
        widths.resize(next(iter(WIDTHS)))
        page.goto(site.url + path)
        for width in widths.each():
            walk = walks[width]
            try:
                wait_for_boards(page)
            except Exception as error:
                raise AssertionError(f"{name} {path}: the board was never drawn") from error
            walk.checked.append(f"{name} {path}")
            header = page.evaluate(HEADER_COLOURS)
            if header:
                walk.headers.setdefault(header, []).append(path)
            found = run_axe(page)
            if found:
                walk.findings[f"{name} {path} -> {page.url}"] = [str(f) for f in found]
    return walks


_looked: dict[tuple[str, str], dict] = {}
"""What each look of this module found at every width, by the look and where it looked: made by
the first of its two tests (one a width) and read by the other."""


def looked(look, make_page, where) -> dict:
    """`look(page, where)`'s results by width, from one look for both tests (a page of its own
    at the first width)."""
    key = (look.__name__, repr(where))
    if key not in _looked:
        _looked[key] = look(make_page(*next(iter(WIDTHS.values()))), where)
    return _looked[key]


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_has_no_axe_findings(axe, seeded_site, make_page, width):
    """axe-core finds no violation, and no serious or critical result to review, on any page the
    URL configuration serves (a GET answered with HTML), at 1280 and 390 px."""
    walk = looked(walk_every_page, make_page, seeded_site)[width]
    checked, findings, headers = walk.checked, walk.findings, walk.headers
    print(
        f"\n{width}: {len(checked)} pages checked; not pages: {len(walk.not_pages)} {walk.not_pages}"
    )
    report = "\n".join(f"{where}\n  " + "\n  ".join(lines) for where, lines in findings.items())
    assert not walk.errors, f"JavaScript errors on the pages: {walk.errors}"
    assert not walk.broken, f"routes whose sample parameters found nothing: {walk.broken}"
    assert len(checked) >= 20, f"only {len(checked)} pages checked: {checked}"
    assert not findings, f"{len(findings)} of {len(checked)} pages:\n{report}"
    assert len(headers) == 1, f"the header changes colour from page to page: {headers}"


def states_behind_a_click(page, live_url: str) -> dict[str, dict]:
    """{width: {state: findings, "errors": JavaScript errors}}."""
    widths = EveryWidth(page)
    findings: dict[str, dict] = {width: {"errors": widths.errors[width]} for width in WIDTHS}
    page.goto(f"{live_url}/play/penguin/1/")
    page.wait_for_selector('body[data-ws-ready="1"]')
    page.click("#btn-help")
    page.wait_for_selector("#help:popover-open")
    for width in widths.each():
        findings[width]["help open"] = run_axe(page)
    widths.resize(next(iter(WIDTHS)))
    page.goto(f"{live_url}/races/new/")
    page.select_option("#id_variant", "queenie")
    page.click("button[type=submit]")
    page.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    page.click("#start-button")
    page.wait_for_selector('#race[data-phase="running"]', timeout=15_000)
    page.wait_for_selector("#countdown", state="hidden")
    page.wait_for_selector("#board [data-pile]")
    for width in widths.each():
        findings[width]["race running"] = run_axe(page)
    widths.resize(next(iter(WIDTHS)))
    set_up_arena(page, live_url)
    page.click("#join-button")  # answered in place: the player's status and buttons swapped in
    page.wait_for_selector('#arena[data-pressed="1"][data-socket="open"] #pause-button')
    for width in widths.each():
        findings[width]["arena joined"] = run_axe(page)
    return findings


@pytest.mark.xdist_group("axe_states")  # one worker looks for both widths
@pytest.mark.parametrize("width", WIDTHS)
def test_states_behind_a_click_have_no_axe_findings(axe, make_page, live_url, width):
    """What the walk's first look does not show: the practice page's help open, a race running
    with your own board to play, and an arena joined (its buttons answered in place)."""
    findings = dict(looked(states_behind_a_click, make_page, live_url)[width])
    errors = findings.pop("errors")
    assert not errors, f"JavaScript errors on the pages: {errors}"
    found = {state: [str(f) for f in found] for state, found in findings.items() if found}
    assert not found, found
