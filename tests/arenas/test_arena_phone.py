"""The arena's screens on a phone (375 px), with the longest names the site takes: a nickname of
one 24-character word and an arena named with one 64-character word. Nothing scrolls sideways
(nor do the lists of arenas on a desktop)."""

from __future__ import annotations

import re

import pytest

from tests.arenas.test_arena_browser import join, set_up
from tests.races.test_race_browser import Player

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = (375, 740)
NICKNAME = "W" * 24  # the most a nickname may have, in one word
ARENA_NAME = "W" * 64  # the most an arena's name may have


def sideways(page) -> int:
    """How far the page scrolls sideways (0: it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - innerWidth")


def named(player: Player, nickname: str) -> None:
    page = player.page
    page.goto(f"{player.base}/accounts/nickname/")
    page.fill("#id_nickname", nickname)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{player.base}/")


def test_the_longest_names_fit_a_phone(make_page, live_url):
    ann, bob = (Player(make_page(*PHONE), live_url) for _ in range(2))
    named(ann, NICKNAME)
    arena_url = set_up(ann.page, live_url, name=ARENA_NAME)
    join(ann, arena_url, go=False)
    ann.wait(f"#arena-board tr.you a:text-is('{NICKNAME}')")
    wide = {"arena": sideways(ann.page)}  # its heading, and the board's row of the nickname
    ann.page.goto(f"{live_url}/")
    assert ARENA_NAME in ann.page.inner_text(".arenas-now")  # "You're in"
    wide["home"] = sideways(ann.page)
    ann.page.click(".site-header .who")
    wide["player"] = sideways(ann.page)

    ann.page.goto(arena_url)  # back on the arena's page: present, so placed with Bob
    join(bob, arena_url)
    race = re.compile(r"/races/[A-Z0-9]{6}/$")
    for player in (ann, bob):
        player.page.wait_for_url(race, timeout=20_000)
    ann.wait('#race[data-phase="running"] #event-link')
    wide["race"] = sideways(ann.page)  # the header's link to the arena
    race_url = ann.page.url
    ann.page.click("#resign-button")
    ann.wait("#next-race:not([hidden])")
    wide["waiting"] = sideways(ann.page)  # done, waiting for the next race
    bob.page.click("#resign-button")
    results = f"{race_url}results/"  # the race's page until it closes
    ann.page.wait_for_function("async (url) => (await fetch(url)).url === url", arg=results)
    ann.page.goto(results)  # "Back to the arena" and its name
    wide["results"] = sideways(ann.page)
    ann.page.goto(race_url)  # the race's page once it is over: the same
    ann.wait("#race-over:not([hidden]) #owner-link")
    wide["race over"] = sideways(ann.page)
    assert wide == dict.fromkeys(
        ["arena", "home", "player", "race", "waiting", "results", "race over"], 0
    )
    for player in (ann, bob):
        player.close()


def test_a_player_s_page_marks_a_running_arena_as_a_badge(make_page, live_url):
    """The player's page links no race.css: its "live" badge is styled as the race pages' are."""
    ann = Player(make_page(*PHONE), live_url)
    arena_url = set_up(ann.page, live_url, name="Live arena")
    join(ann, arena_url, go=False)
    ann.page.click(".site-header .who")
    badge = ann.page.locator(".board-table td .race-badge", has_text="live")
    assert badge.evaluate("(e) => getComputedStyle(e).backgroundColor") == "rgb(233, 236, 239)"
    assert badge.evaluate("(e) => getComputedStyle(e).borderRadius") == "16px"
    ann.close()


def test_a_long_arena_name_fits_the_lists_on_a_desktop(make_page, live_url):
    """A table sizes its columns to their longest word: an arena's name of one 64-character word
    breaks in its cell rather than widen the list of arenas, or the player's, past the page."""
    ann = Player(make_page(), live_url)
    arena_url = set_up(ann.page, live_url, name=ARENA_NAME)
    join(ann, arena_url, go=False)
    ann.page.goto(f"{live_url}/arenas/")
    assert ann.page.locator(".arena-table a", has_text=ARENA_NAME).count()
    wide = {"list": sideways(ann.page)}
    ann.page.click(".site-header .who")
    assert ann.page.locator(".board-table a", has_text=ARENA_NAME).count()
    wide["player"] = sideways(ann.page)
    assert wide == {"list": 0, "player": 0}
    ann.close()


def test_the_set_up_form_s_start_reads_as_its_other_fields(make_page, live_url):
    """The start (a datetime-local field) in the form's own type, as the selects beside it are,
    not the browser's smaller default (13.33 px on a field 21 px tall)."""
    page = make_page(*PHONE)
    page.goto(f"{live_url}/arenas/new/")

    def looks(selector: str) -> tuple:
        return page.eval_on_selector(
            selector,
            "(e) => [getComputedStyle(e).fontSize, getComputedStyle(e).fontFamily]",
        )

    assert looks("#id_starts_at") == looks("#id_minutes")


def test_the_home_card_s_labels_line_up_on_a_desktop(make_page, live_url):
    """The Arenas card names an arena the reader is in, the busiest running and the next, each
    behind its label ("You're in", "Running", "Next"): the labels are one column, so the three
    arenas' names start at one edge."""
    ann, bob = (Player(make_page(1280, 800), live_url) for _ in range(2))
    join(ann, set_up(ann.page, live_url, name="Mine"), go=False)
    set_up(bob.page, live_url, name="Theirs")
    set_up(bob.page, live_url, name="Later", starts_in_minutes=90)
    ann.page.goto(f"{live_url}/")
    labels = ann.page.locator(".arenas-now-list .arena-when")
    assert labels.all_inner_texts() == ["YOU'RE IN", "RUNNING", "NEXT"]  # as shown: capitals
    names = ann.page.locator(".arenas-now-list li a")  # the live server's other tests' arenas too
    shown = names.first.evaluate("(a) => a.firstChild.textContent")  # its start out of sight
    assert shown == "Mine" and names.count() == 3
    lefts = {round(box["x"]) for box in (name.bounding_box() for name in names.all())}
    assert len(lefts) == 1, lefts
