"""What a screen reader reads on the seeded site's pages: every table column named, every label
on an element whose role takes one, a chart's labels readable, links of one name leading to one
page (docs/frontend.md, "Accessibility")."""

from __future__ import annotations

import re
from collections import defaultdict
from urllib.parse import urljoin, urlsplit

import pytest

from tests.contrast import over, parse_colour, ratio
from tests.seeded_site import own_daily, site_paths, wait_for_boards

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


def addresses(node: dict, form: str | None, found: dict[int, str]) -> None:
    """Where each link (its href) and each form's submit button (its form's action) of a
    DOM.getDocument tree leads, by the node's backend id."""
    attributes = node.get("attributes", [])
    attrs = dict(zip(attributes[::2], attributes[1::2], strict=True))
    tag = node.get("nodeName", "").lower()
    if tag == "form":
        form = attrs.get("action", "")
    if tag == "a" and "href" in attrs:
        found[node["backendNodeId"]] = attrs["href"]
    elif tag == "button" and form is not None and attrs.get("type", "submit") == "submit":
        found[node["backendNodeId"]] = attrs.get("formaction", form)
    for child in node.get("children", []):
        addresses(child, form, found)


def accessible_names(page) -> list[tuple[str, str, str]]:
    """(role, name, address) of each link and each submit button of a form on the page, its name
    as Chromium's accessibility tree gives it (what a screen reader reads), its address as the
    page writes it (`addresses`)."""
    cdp = page.context.new_cdp_session(page)
    try:
        where: dict[int, str] = {}
        addresses(cdp.send("DOM.getDocument", {"depth": -1})["root"], None, where)
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    named = []
    for node in nodes:
        role = node.get("role", {}).get("value")
        if node.get("ignored") or role not in ("link", "button"):
            continue
        if (address := where.get(node.get("backendDOMNodeId"))) is not None:
            named.append((role, node.get("name", {}).get("value", ""), address))
    return named


def names_leading_apart(page) -> dict[str, list[str]]:
    """Each name Chromium's accessibility tree gives to more than one link (or submit button)
    of the page leading to different pages (their paths; a query or a fragment is the same
    page), with those paths."""
    paths = defaultdict(set)
    for role, name, address in accessible_names(page):
        paths[f"{role} {name!r}"].add(urlsplit(urljoin(page.url, address)).path)
    return {name: sorted(found) for name, found in paths.items() if len(found) > 1}


def test_links_of_one_name_lead_to_one_page(seeded_site, page):
    """On every page of the site, two links (or buttons sending a form) with the same name lead
    to the same page: a screen reader's list of links names each row's "Results", "Replay",
    "Report" or "board" with its race, game, player or variant (out of sight), not "Results,
    Results, Results"; an arena of a schedule's series with its start."""
    repeated = {}
    for name, path in site_paths(page, seeded_site):
        answer = page.request.get(seeded_site.url + path, max_redirects=5)
        if not answer.ok or not answer.headers.get("content-type", "").startswith("text/html"):
            continue
        page.goto(seeded_site.url + path)
        wait_for_boards(page)
        found = names_leading_apart(page)
        if found:
            repeated[f"{name} {path}"] = {
                label: f"{len(to)}: {to[:3]}" for label, to in found.items()
            }
    assert not repeated, f"one name, several pages: {repeated}"


# A space before a stop: Chromium reads a space before a `.visually-hidden` span's words (it
# stands apart, absolutely placed), so hidden words that start with a stop read "in the race :".
SPACE_BEFORE_STOP = re.compile(r"\s[,.:;!?]")


def test_a_links_hidden_words_read_on_from_its_text(seeded_site, page):
    """A race's results say whose board each "in the race" link shows, out of sight, in words
    that go on from the link's text ("in the race replay: Ann's board beside the others"), not
    from a stop that Chromium reads after a space ("in the race : Ann's board"); no link or
    button of the page has a space before a stop."""
    page.goto(f"{seeded_site.url}/races/{seeded_site.samples['code']}/results/")
    names = [name for _, name, _ in accessible_names(page)]
    assert any(name.startswith("in the race") for name in names), names
    assert not [name for name in names if SPACE_BEFORE_STOP.search(name)]


def names_of_twins(page, links: list[tuple[str, str]]) -> list[list[str]]:
    """The accessible names of links that look alike on the screen: for each text shown (of
    `links`, (that text, the link's href)) that more than one link has, their names."""
    named = {address: name for role, name, address in accessible_names(page) if role == "link"}
    shown = defaultdict(list)
    for text, address in links:
        shown[text].append(named[address])
    return [names for names in shown.values() if len(names) > 1]


def test_two_games_started_in_one_minute_have_two_names(seeded_site, page):
    """A player's games of one game started within one minute (the seeded site has three, two in
    one second) show one start to the minute; their Replay links say which of them each is
    ("1 of 3")."""
    page.goto(f"{seeded_site.url}/players/{seeded_site.samples['player_id']}/")
    rows = page.eval_on_selector_all(
        "table.games tbody tr",
        """(rows) => rows.filter((tr) => tr.querySelector('td.links a')).map((tr) => [
            `${tr.cells[0].textContent} ${tr.cells[1].textContent}`,
            tr.querySelector('td.links a').getAttribute('href')])""",
    )
    twins = names_of_twins(page, rows)
    assert twins, "no two games of one game started in one minute"
    assert all(len(set(names)) == len(names) for names in twins), twins


def test_the_home_pages_arenas_of_one_name_have_two_names(seeded_site, page):
    """The home page's Arenas card names a schedule's arena running now and its next, which
    share their name (the seeded site has them), each with its start out of sight, as the
    arenas' list does."""
    page.goto(f"{seeded_site.url}/")
    links = page.eval_on_selector_all(
        ".arenas-now-list a",
        "(links) => links.map((a) => [a.firstChild.textContent, a.getAttribute('href')])",
    )
    twins = names_of_twins(page, links)
    assert twins, "no two arenas of one name on the home page"
    assert all(len(set(names)) == len(names) for names in twins), twins
