"""axe-core on every page of the site at a desktop and a phone width: the pages listed from the
URL configuration, their parameters filled from seeded data (docs/frontend.md, "Accessibility")."""

from __future__ import annotations

import pytest

from tests.axe_support import route_path, run_axe, site_routes
from tests.browser_support import WIDTHS
from tests.seeded_site import Site, own_daily, own_lobby, wait_for_boards

pytestmark = pytest.mark.browser

# The header's background and its brand's two colours: the same on every page.
HEADER_COLOURS = """() => {
    const header = document.querySelector('.site-header');
    if (!header) return null;
    const brand = header.querySelector('.brand span');
    return [getComputedStyle(header).backgroundColor, getComputedStyle(brand).color].join(' ');
}"""


def site_paths(page, site: Site) -> list[tuple[str, str]]:
    """(route name, address) of every route, its parameters filled from the seeded data; the
    visitor's own daily game and race lobby where a route shows them."""
    own = {
        "daily:play": [{"public_id": own_daily(page, site)}],
        "races:race": [{"code": site.samples["code"]}, {"code": own_lobby(page, site)}],
    }
    paths = []
    for route in site_routes():
        for values in own.get(route.name, [{}]):
            paths.append((route.name, route_path(route, {**site.samples, **values})))
    # Not a route: what any other address answers.
    paths.append(("not found", "/no-such-page/"))
    return paths


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_has_no_axe_findings(axe, seeded_site, make_page, width):
    """axe-core finds no violation, and no serious or critical result to review, on any page the
    URL configuration serves (a GET answered with HTML), at 1280 and 390 px."""
    page = make_page(*WIDTHS[width])
    checked: list[str] = []
    not_pages: list[str] = []
    broken: list[str] = []
    findings: dict[str, list[str]] = {}
    headers: dict[str, list[str]] = {}
    for name, path in site_paths(page, seeded_site):
        answer = page.request.get(seeded_site.url + path, max_redirects=5)
        kind = answer.headers.get("content-type", "")
        if answer.status == 405 or (answer.ok and not kind.startswith("text/html")):
            not_pages.append(f"{name} {path}: {answer.status} {kind}")
            continue
        if answer.status >= 500 or (answer.status == 404 and name != "not found"):
            broken.append(f"{name} {path}: {answer.status}")
            continue
        page.goto(seeded_site.url + path)
        try:
            wait_for_boards(page)
        except Exception as error:
            raise AssertionError(f"{name} {path}: the board was never drawn") from error
        checked.append(f"{name} {path}")
        header = page.evaluate(HEADER_COLOURS)
        if header:
            headers.setdefault(header, []).append(path)
        found = run_axe(page)
        if found:
            findings[f"{name} {path} -> {page.url}"] = [str(f) for f in found]
    print(f"\n{width}: {len(checked)} pages checked; not pages: {len(not_pages)} {not_pages}")
    report = "\n".join(f"{where}\n  " + "\n  ".join(lines) for where, lines in findings.items())
    assert not broken, f"routes whose sample parameters found nothing: {broken}"
    assert len(checked) >= 20, f"only {len(checked)} pages checked: {checked}"
    assert not findings, f"{len(findings)} of {len(checked)} pages:\n{report}"
    assert len(headers) == 1, f"the header changes colour from page to page: {headers}"


@pytest.mark.parametrize("width", WIDTHS)
def test_states_behind_a_click_have_no_axe_findings(axe, make_page, live_url, width):
    """What the walk's first look does not show: the practice page's help open, and a race
    running with your own board to play."""
    page = make_page(*WIDTHS[width])
    page.goto(f"{live_url}/play/penguin/1/")
    page.wait_for_selector('body[data-ws-ready="1"]')
    page.click("#btn-help")
    page.wait_for_selector("#help:popover-open")
    findings = {"help open": run_axe(page)}
    page.goto(f"{live_url}/races/new/")
    page.select_option("#id_variant", "queenie")
    page.click("button[type=submit]")
    page.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    page.click("#start-button")
    page.wait_for_selector('#race[data-phase="running"]', timeout=15_000)
    page.wait_for_selector("#countdown", state="hidden")
    page.wait_for_selector("#board [data-pile]")
    findings["race running"] = run_axe(page)
    found = {state: [str(f) for f in found] for state, found in findings.items() if found}
    assert not found, found
