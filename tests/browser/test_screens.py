"""Every screen, as a new player meets it on a phone and a desktop (issue 25): the site's own
error pages under DEBUG, no sideways scroll at 360 and 390 px, names that lead to players, the
wording of races, the results chart, an empty board's columns, the race replay's Play button.
Against a live Daphne of their own with DEBUG on (as under `make run`) and a database holding
races of long-named players (tests/browser/screens_data.py).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from scripts.servers import ROOT, server_env
from tests.live import live_server_process

pytestmark = pytest.mark.browser

PHONES = [360, 390]


@pytest.fixture(scope="module")
def screens(tmp_path_factory):
    """(base URL, what screens_data.seed made) of a DEBUG server on its own SQLite file."""
    database_url = f"sqlite:///{tmp_path_factory.mktemp('screens') / 'db.sqlite3'}"
    env = {"DEBUG": "1", "PLAYER_WRITE_LIMIT": "100000"}
    with live_server_process(env={**env, "DATABASE_URL": database_url}) as url:
        seeded = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SEED],
            cwd=ROOT,
            env=server_env(database_url=database_url, **env),
            capture_output=True,
            text=True,
        )
        assert seeded.returncode == 0, seeded.stderr
        yield url, json.loads(seeded.stdout.strip().splitlines()[-1])


SEED = "from tests.browser.screens_data import seed; seed()"


# ------------------------------------------------------------------ 1. the site's own error pages


@pytest.mark.parametrize("path", ["/nope/", "/play/penguin/12/winnable/", "/races/ABC234/x/"])
def test_an_address_that_matches_nothing_is_the_sites_own_page_under_debug(
    make_page, screens, path
):
    url, _ = screens
    page = make_page(390, 844)
    response = page.goto(f"{url}{path}")
    assert response.status == 404
    assert page.text_content("h1") == "This page is not in the deck"
    assert path in page.text_content("main")
    html = page.content()
    assert "DEBUG" not in html and "URLconf" not in html and "Django" not in html
    page.click("text=Back to the games")
    assert page.url == f"{url}/"


def test_an_expired_form_is_the_sites_own_page_under_debug(make_page, screens):
    """A form posted without its CSRF cookie (a reload after cookies were cleared)."""
    url, _ = screens
    page = make_page()
    page.goto(f"{url}/races/new/")
    page.context.clear_cookies()
    page.click("form.race-form button[type=submit]")
    assert "That form has expired" in page.text_content("h1")
    assert "DEBUG" not in page.content() and "CSRF" not in page.content()


# ------------------------------------------------------------------ 2. no sideways scroll on a phone


def wide_pages(made: dict) -> list[str]:
    return [
        f"/races/{made['rated']}/results/",
        f"/races/{made['unrated']}/results/",
        "/races/",
        "/leaderboards/",
        "/leaderboards/races/",
        f"/players/{made['player']}/",
        "/leaderboards/rating/penguin/",
        "/leaderboards/fastest/penguin/",
        f"/races/{made['rated']}/",
        f"/replay/{made['replay']}/",
        f"/replay/race/{made['rated']}/",
        "/",
        "/races/new/",
        "/daily/",
        "/daily/queenie/",
        f"/daily/penguin/{made['daily_day']}/",
        "/accounts/login/",
        "/accounts/signup/",
        "/nope/",
    ]


def drawn_by_socket(made: dict) -> dict[str, str]:
    """Pages whose socket or script draws part of them after the load: what shows it has."""
    return {
        f"/races/{made['rated']}/": "#standings li",
        f"/replay/race/{made['rated']}/": '#race-replay[data-ready="1"]',
    }


@pytest.mark.parametrize("width", PHONES)
def test_every_page_fits_a_phone_without_sideways_scroll(make_page, screens, width):
    url, made = screens
    page = make_page(width, 800)
    too_wide = {}
    drawn = drawn_by_socket(made)
    for path in wide_pages(made):
        response = page.goto(f"{url}{path}")
        assert response.status == (404 if path == "/nope/" else 200), path
        if path in drawn:  # measured as the player sees it, not before the socket's snapshot
            page.wait_for_selector(drawn[path])
        scroll = page.evaluate("document.documentElement.scrollWidth")
        if scroll > width:
            too_wide[path] = scroll
    assert not too_wide, f"wider than {width} px: {too_wide}"


# ------------------------------------------------------------------ 3. keys


def open_practice(page, url: str, path: str) -> None:
    page.goto(f"{url}{path}")
    page.wait_for_selector('body[data-ws-ready="1"]')


def toast_after(page, key: str) -> str:
    page.evaluate("document.getElementById('toast').textContent = ''")
    page.keyboard.press(key)
    page.wait_for_function("document.getElementById('toast').textContent !== ''", timeout=3000)
    return page.text_content("#toast")


def test_f_sends_the_top_card_of_a_picked_group_home(page, live_url):
    """Queenie deal 777: `5` picks up pile 5's five-card run, `t4-f0` is legal: F plays it."""
    open_practice(page, live_url, "/play/queenie/777/")
    legal = page.evaluate("window.practice.board.legal.list")
    assert "t4-f0" in legal and "t4-t1:5" in legal
    top = page.get_attribute('#board [data-pile="t4"] > .card:last-child', "data-card")
    page.keyboard.press("5")
    assert page.evaluate("window.practice.board.selection.count") == 5
    page.keyboard.press("f")
    page.wait_for_selector('body[data-moves="1"]')
    assert page.get_attribute('#board [data-pile="f0"] > .card:last-child', "data-card") == top


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("c", "This game has no free cells."),
        ("w", "This game has no waste pile."),
        ("9", "This game has 7 piles: keys 1 to 7."),
        ("f", "Pick a card up first"),
    ],
)
def test_a_key_that_does_nothing_says_why(page, live_url, key, says):
    open_practice(page, live_url, "/play/queenie/777/")
    assert says in toast_after(page, key)
    assert page.get_attribute("body", "data-moves") == "0"


def test_a_group_that_cannot_go_home_says_which_card(page, live_url):
    open_practice(page, live_url, "/play/queenie/777/")
    page.keyboard.press("2")  # t1's two-card run: its top card has no foundation to go to
    assert page.evaluate("window.practice.board.selection.count") == 2
    assert page.evaluate("window.practice.board.legal.from('t1', 1).length") == 0
    top = page.evaluate("window.practice.board._describe('t1')")
    assert toast_after(page, "f") == f"{top} cannot go to a foundation now."


def set_up_race(page, base: str, variant: str = "penguin", name: str = "") -> None:
    """Set a race up with the form, as a new guest does, and wait in its lobby."""
    page.goto(f"{base}/races/new/")
    page.select_option("#id_variant", variant)
    if name:
        page.fill("#id_name", name)
    page.click("form.race-form button[type=submit]")
    page.wait_for_selector('#race[data-role="racer"]')


def board_keys(page, selector: str) -> dict[str, str]:
    return page.evaluate(
        """(sel) => Object.fromEntries([...document.querySelectorAll(sel + ' dt')]
             .map((dt) => [dt.textContent.trim(), dt.nextElementSibling.textContent.trim()]))""",
        selector,
    )


def test_the_race_pages_keys_are_the_practice_pages_without_practice_only_keys(page, live_url):
    open_practice(page, live_url, "/play/queenie/777/")
    practice = board_keys(page, "#help")
    set_up_race(page, live_url, variant="queenie")
    race = board_keys(page, ".race-keys")
    assert race == {key: text for key, text in practice.items() if key not in "AHN?"}
    assert "No autoplay and no hints in a race" in page.text_content(".race-keys")


# ------------------------------------------------------------------ 5. names lead to players


def test_every_name_in_results_and_race_lists_links_to_its_player(make_page, screens):
    url, made = screens
    page = make_page(390, 844)
    for path, names in [
        (f"/races/{made['rated']}/results/", "#results tbody tr td.lead"),
        (f"/races/{made['unrated']}/results/", "#results tbody tr td.lead"),
        ("/races/", ".race-table td[data-label=Players]"),
        ("/leaderboards/races/", ".races td[data-label=Racers]"),
    ]:
        page.goto(f"{url}{path}")
        cells = page.locator(names)
        assert cells.count(), path
        for i in range(cells.count()):
            links = cells.nth(i).locator("a[href^='/players/']")
            assert links.count(), f"{path}: {cells.nth(i).inner_text()!r} names nobody's page"
    page.goto(f"{url}/races/{made['rated']}/results/")
    page.click("#results tbody tr:first-child td.lead a")
    assert page.text_content("h1") == "Bartholomew Longfellow"


def test_the_name_given_to_race_under_is_the_name_in_the_header(make_page, screens):
    """A new guest sets a race up as "Hosty", a second joins as "Joiner": each header shows that
    name and leads to its own player page, which offers the nickname form."""
    url, _ = screens
    host = make_page(390, 844)
    set_up_race(host, url, name="Hosty")
    race_url = host.url
    assert host.text_content(".site-header .who") == "Hosty"
    host.click(".site-header .who")
    assert host.text_content("h1") == "Hosty"
    assert host.is_visible("#change-nickname")

    joiner = make_page(390, 844)
    joiner.goto(race_url)
    joiner.fill("#id_name", "Joiner")
    joiner.click("#join-button")
    joiner.wait_for_selector('#race[data-role="racer"]')
    assert joiner.text_content(".site-header .who") == "Joiner"


def test_names_on_the_live_race_page_link_to_their_players_in_a_new_tab(make_page, screens):
    """In a race's lobby (and its standings once it runs) each racer's name links to their
    player page, in a new tab, so following it takes nobody out of the race."""
    url, _ = screens
    host = make_page(1280, 800)
    set_up_race(host, url, name="Linky")
    joiner = make_page(1280, 800)
    joiner.goto(host.url)
    joiner.fill("#id_name", "Linked")
    joiner.click("#join-button")
    joiner.wait_for_selector('#race[data-role="racer"]')
    host.wait_for_selector("#lobby-racers li:nth-child(2) a")
    links = host.locator("#lobby-racers a")
    names = [links.nth(i).inner_text() for i in range(links.count())]
    assert names == ["Linky (you)", "Linked"]
    for i in range(links.count()):
        assert links.nth(i).get_attribute("href").startswith("/players/")
        assert links.nth(i).get_attribute("target") == "_blank"
    host.goto(url + links.nth(1).get_attribute("href"))
    assert host.text_content("h1") == "Linked"


# ------------------------------------------------------------------ 6. a winnable deal says so


def test_a_winnable_deal_says_proved_winnable_once_it_opens(make_page, live_url):
    """Eighty Thieves' winnable deals are built deals: dealt at once, with no search."""
    page = make_page(390, 844)
    page.goto(f"{live_url}/play/eighty-thieves/winnable/")
    page.wait_for_selector('body[data-ws-ready="1"]')
    assert page.is_visible("#deal-proved")
    assert page.text_content("#deal-proved") == "proved winnable"
    page.goto(f"{live_url}/play/eighty-thieves/12/")  # a random deal claims nothing
    page.wait_for_selector('body[data-ws-ready="1"]')
    assert page.locator("#deal-proved").count() == 0


# ------------------------------------------------------------------ 7. quick race, at hand


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_quick_race_is_in_the_header_and_above_the_fold(make_page, screens, width, height):
    url, made = screens
    page = make_page(width, height)
    for path in ["/", "/races/", "/daily/", "/leaderboards/", f"/players/{made['player']}/"]:
        page.goto(f"{url}{path}")
        button = page.locator(".site-header #header-quick-race")
        assert button.is_visible(), path
        assert button.bounding_box()["y"] + button.bounding_box()["height"] <= height, path
    page.goto(f"{url}/")
    box = page.locator("#quick-race-button").bounding_box()
    assert box["y"] + box["height"] <= height, f"the home page's Quick race at {box}"
    page.click("#header-quick-race")
    page.wait_for_selector('#race[data-role="racer"]')
    assert "quick race" in page.text_content(".race-title")
    page.click("#leave-button")


# ------------------------------------------------------------------ 8. one word for one idea


def test_a_quick_race_is_rated_not_also_ranked(make_page, screens):
    url, made = screens
    page = make_page()
    page.goto(f"{url}/races/{made['rated']}/")
    badges = page.locator(".race-title .race-badge").all_inner_texts()
    assert "rated" in badges and "quick race" in badges
    assert not [badge for badge in badges if "ranked" in badge], badges


def test_only_a_winner_has_a_time(make_page, screens):
    """The page's own note: times run from the start to the winning move."""
    url, made = screens
    page = make_page()
    page.goto(f"{url}/races/{made['rated']}/results/")
    assert "from the start to the winning move" in page.text_content("main")
    for row in page.locator("#results tbody tr").all():
        result, time = row.locator("td").nth(2).inner_text(), row.locator("td").nth(3).inner_text()
        assert (time != "–") == (result == "Finished"), (result, time)


def test_an_empty_quick_race_does_not_wait_for_a_second_player(make_page, screens):
    url, _ = screens
    page = make_page(390, 844)
    page.goto(f"{url}/races/")
    page.select_option("#quick-variant", "spiderweb")
    page.click("#quick-race-button")
    page.wait_for_selector('#race[data-role="racer"]')
    page.wait_for_function(
        "document.getElementById('race-status').textContent.includes('second player (1 of 8)')"
    )
    page.click("#leave-button")
    page.wait_for_selector('#race[data-role="spectator"]')
    page.wait_for_function("!document.getElementById('race-status').textContent.includes('(1 of')")
    status = page.text_content("#race-status")
    assert "second player" not in status and "0 of" not in status, status


# ------------------------------------------------------------------ 9. the results chart


def test_equal_lines_on_the_results_chart_stay_apart_and_the_legend_reads(make_page, screens):
    """Six of the eight racers resigned with the same curve (tests/browser/screens_data.py)."""
    url, made = screens
    page = make_page()
    page.goto(f"{url}/races/{made['rated']}/results/")
    lines = page.eval_on_selector_all(
        "#results-chart polyline",
        "(ps) => ps.map((p) => [p.getAttribute('points'), p.getAttribute('stroke-dasharray'),"
        " p.getAttribute('stroke')])",
    )
    assert len(lines) == 8
    assert len({(points, dash) for points, dash, _ in lines}) == 8, "a line hides another"
    legend_id = page.get_attribute("#results-chart", "aria-describedby")
    items = [item.strip() for item in page.locator(f"#{legend_id} li").all_inner_texts()]
    assert len(items) == 8
    assert items[0].startswith("Bartholomew Longfellow (blue, solid line): 52 cards home at ")
    assert items[2].startswith("Theodora Featherstonehau (green, dotted line): 14 cards home")


# ------------------------------------------------------------------ 10. one look for one thing


def test_the_records_nav_looks_the_same_on_every_page_that_has_it(make_page, screens):
    """Daily challenge, Leaderboards, Recent races: a row of plain links above each of the
    record's pages, whichever style sheets the page links (a race's replay links race.css)."""
    url, made = screens
    page = make_page()
    looks = {}
    for path in [
        "/leaderboards/",
        f"/players/{made['player']}/",
        f"/replay/race/{made['rated']}/",
        "/leaderboards/rating/penguin/",
    ]:
        page.goto(f"{url}{path}")
        looks[path] = page.eval_on_selector(
            ".daily-nav",
            """(nav) => [getComputedStyle(nav).display, getComputedStyle(nav).columnGap,
                getComputedStyle(nav.querySelector('a')).textDecorationLine]""",
        )
    assert len({tuple(look) for look in looks.values()}) == 1, looks


def test_the_report_forms_fields_look_like_the_sites_other_fields(make_page, screens):
    """The reason and the note are a form's fields as the log-in page's are: the page's type,
    the form's width; a refusal reads as an error."""
    url, made = screens
    page = make_page()
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", "racer0")
    page.fill("#id_password", "a-long-test-pass-42")
    page.click("form.card-form button[type=submit]")
    page.wait_for_url(f"{url}/")
    page.goto(f"{url}/accounts/nickname/")
    login_field = page.eval_on_selector(
        "#id_nickname", "(f) => [getComputedStyle(f).fontSize, f.getBoundingClientRect().width]"
    )
    page.goto(f"{url}/races/{made['rated']}/results/")
    page.click("#results .report-link >> nth=0")
    for field in ("#report-reason", "#report-note"):
        look = page.eval_on_selector(
            field, "(f) => [getComputedStyle(f).fontSize, f.getBoundingClientRect().width]"
        )
        assert look == login_field, field
    page.select_option("#report-reason", index=0)
    page.evaluate("document.querySelector('#report-reason option').value = 'nonsense'")
    page.click("form.card-form button[type=submit]")
    error = page.eval_on_selector(".card-form .errorlist", "(e) => getComputedStyle(e).color")
    body = page.eval_on_selector("body", "(e) => getComputedStyle(e).color")
    assert error != body, "the refusal is in the ink of any other line"


@pytest.mark.parametrize("width", PHONES)
def test_a_charts_labels_stay_readable_on_a_phone(make_page, screens, width):
    """A chart shrinks with the page: its axis labels are drawn larger on a phone, so that
    shrunk they still read at about 10 px (the results chart, a player's rating chart)."""
    url, made = screens
    page = make_page(width, 800)
    for path, chart in [
        (f"/races/{made['rated']}/results/", "#results-chart"),
        (f"/players/{made['player']}/", ".rating-chart svg"),
    ]:
        page.goto(f"{url}{path}")
        sizes = page.eval_on_selector(
            chart,
            """(svg) => [...svg.querySelectorAll('text')].map((t) =>
                parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a)""",
        )
        assert sizes and min(sizes) >= 9.5, (path, min(sizes))
        # ... and stay inside the chart, apart from each other
        boxes = page.eval_on_selector(
            chart,
            """(svg) => [svg.getBoundingClientRect(),
                ...[...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect())]
                .map((r) => [r.left, r.top, r.right, r.bottom])""",
        )
        (left, top, right, bottom), labels = boxes[0], boxes[1:]
        for x0, y0, x1, y1 in labels:
            assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom + 0.5, path
        for a, b in itertools.combinations(labels, 2):
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (path, a, b)


# ------------------------------------------------------------------ 6. empty boards

HEADER_BOXES = """(table) => {
    const box = table.getBoundingClientRect();
    return [...table.tHead.rows[0].cells].map((th) => {
        const r = th.getBoundingClientRect();
        return [th.textContent.trim(), Math.round(r.left - box.left), Math.round(r.width)];
    });
}"""


def test_an_empty_boards_headers_sit_where_a_full_boards_do(make_page, screens):
    """A board with no rows keeps its columns: each header (Result, Best time, a player's games'
    Result) has the box it has over a full board's column, not a share of the page that put
    Result near the middle, over the centred "Nobody on this board" (1280 px)."""
    url, made = screens
    page = make_page()
    day = made["daily_day"]
    pairs = [  # (a full board, an empty one of the same kind, its table)
        (f"/daily/penguin/{day}/", f"/daily/queenie/{day}/", ".board-rows > table"),
        ("/leaderboards/fastest/penguin/", "/leaderboards/fastest/queenie/", ".board-rows > table"),
        (f"/players/{made['player']}/", f"/players/{made['idle']}/", "table.games"),
    ]
    for full, empty, table in pairs:
        boxes = {}
        for path in (full, empty):
            page.goto(f"{url}{path}")
            empty_line = page.locator(f"{table} tbody td.empty").count()
            assert empty_line == (path == empty), f"{path}: no board to compare"
            boxes[path] = page.eval_on_selector(table, HEADER_BOXES)
        span = page.eval_on_selector(
            f"{table} td.empty",
            "(td) => [td.colSpan, td.closest('table').tHead.rows[0].cells.length]",
        )
        assert span[0] == span[1], f"{empty}: the empty line spans {span[0]} of {span[1]} columns"
        for (name, left, width), (_, e_left, e_width) in zip(
            boxes[full], boxes[empty], strict=True
        ):
            assert abs(left - e_left) <= 1 and abs(width - e_width) <= 1, (
                f"{empty}: {name!r} at {e_left}+{e_width} px, over a full board at {left}+{width}"
            )


# ------------------------------------------------------------------ 7. the race replay's Play


def test_the_race_replays_play_button_names_what_a_press_does(make_page, screens):
    """Play, and Pause while it plays: a button whose name changes is no toggle, so it carries
    no aria-pressed (WAI-ARIA APG's button pattern; it had both). Enter and Space on it as on
    any button, the focus staying on it; Space elsewhere on the page."""
    url, made = screens
    page = make_page()
    page.goto(f"{url}/replay/race/{made['rated']}/")
    page.wait_for_selector('#race-replay[data-ready="1"]')
    play = page.locator('[data-step="play"]')

    def shown() -> list:
        return [
            play.text_content(),
            play.get_attribute("aria-pressed"),
            page.get_attribute("#race-replay", "data-playing"),
        ]

    assert [play.text_content(), play.get_attribute("aria-pressed")] == ["Play", None]
    play.focus()
    page.keyboard.press("Enter")
    assert shown() == ["Pause", None, "1"]
    page.wait_for_function("Number(document.querySelector('#race-replay').dataset.t) > 0")
    page.keyboard.press(" ")
    assert shown() == ["Play", None, "0"]
    assert page.evaluate("document.activeElement.dataset.step") == "play"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    assert shown() == ["Pause", None, "1"]
    page.keyboard.press(" ")
    assert shown() == ["Play", None, "0"]
