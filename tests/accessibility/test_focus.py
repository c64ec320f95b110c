"""Keyboard focus where a player who cannot see the page or use a mouse expects it: a skip link
to the board, the help that takes the focus and gives it back, the board after a race starts."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

ON_A_PILE = "() => document.activeElement?.closest('#board [data-pile]') !== null"
ACTIVE = """() => {
    const el = document.activeElement;
    return {tag: el.tagName.toLowerCase(), id: el.id, pile: el.dataset?.pile || null,
            text: el.textContent.trim().slice(0, 40), inHelp: Boolean(el.closest('#help'))};
}"""


def practice(page, live_url: str, variant: str = "penguin"):
    page.goto(f"{live_url}/play/{variant}/1/")
    page.wait_for_selector('body[data-ws-ready="1"]')


def test_the_first_tab_offers_to_skip_to_the_board(make_page, live_url):
    """The first Tab of a board page focuses a visible "Skip to the board"; Enter puts the
    focus on a pile, where the game's keys work."""
    page = make_page()
    practice(page, live_url)
    page.keyboard.press("Tab")
    link = page.locator(".skip-link")
    assert page.evaluate(ACTIVE)["text"] == "Skip to the board"
    box = link.bounding_box()
    assert box and box["y"] >= 0 and box["height"] > 0, "the skip link is out of sight"
    page.keyboard.press("Enter")
    assert page.evaluate(ACTIVE)["pile"] == "t0"


def test_the_daily_game_skips_to_its_board_too(make_page, live_url):
    """The daily game's skip link lands on its board."""
    page = make_page()
    page.goto(f"{live_url}/daily/penguin/")
    page.locator("form[action$='/start/'] button[type=submit]").first.click()
    page.wait_for_url("**/daily/play/*/")
    page.wait_for_selector("#board [data-pile]")
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE)["text"] == "Skip to the board"
    page.keyboard.press("Enter")
    page.wait_for_function(ON_A_PILE)


def test_other_pages_skip_to_their_content(make_page, live_url):
    """Elsewhere the first Tab offers "Skip to the content", which lands past the header."""
    page = make_page()
    page.goto(f"{live_url}/races/")
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE)["text"] == "Skip to the content"
    page.keyboard.press("Enter")
    assert page.evaluate(ACTIVE)["tag"] == "main"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('main') !== null")


def test_the_help_takes_the_focus_and_gives_it_back(make_page, live_url):
    """`?` opens the help with the focus in it (read at once; Tab reaches its Close); Esc closes
    it and the focus is back on the pile it left. From the Help button, Close brings it back to
    the button."""
    page = make_page()
    practice(page, live_url)
    page.focus('#board [data-pile="t2"]')
    page.keyboard.press("?")
    page.wait_for_selector("#help:popover-open")
    page.wait_for_function(f"() => ({ACTIVE})().inHelp", timeout=5_000)
    page.keyboard.press("Escape")
    page.wait_for_selector("#help:popover-open", state="detached")
    assert page.evaluate(ACTIVE)["pile"] == "t2"

    page.focus("#btn-help")
    page.keyboard.press("Enter")
    page.wait_for_selector("#help:popover-open")
    # The help moves the focus on its toggle event, which comes after it shows: a CI run at
    # load 8 read the focus in between.
    page.wait_for_function(f"() => ({ACTIVE})().inHelp", timeout=5_000)
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE) == {
        "tag": "button",
        "id": "",
        "pile": None,
        "text": "Close",
        "inHelp": True,
    }
    page.keyboard.press("Enter")
    page.wait_for_selector("#help:popover-open", state="detached")
    assert page.evaluate(ACTIVE)["id"] == "btn-help"


def test_the_board_takes_the_focus_when_the_race_starts(make_page, live_url):
    """The host starts a race from the keyboard: the lobby's buttons go, and the focus goes to
    the board (not to the page's body), where the keys play; the skip link now leads there."""
    page = make_page()
    page.goto(f"{live_url}/races/new/")
    page.select_option("#id_variant", "penguin")
    page.fill("#id_name", "Ann")
    page.click("button[type=submit]")
    page.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    # The page comes with its role; the start button shows once the lobby's snapshot is in
    # (a hidden button takes no focus, and the Enter would start nothing).
    page.wait_for_selector("#start-button", state="visible")
    page.focus("#start-button")
    page.keyboard.press("Enter")
    page.wait_for_selector('#race[data-phase="running"]', timeout=15_000)
    page.wait_for_function(ON_A_PILE, timeout=10_000)
    assert page.text_content(".skip-link") == "Skip to the board"


# The focus's place in a date field: the field itself (one of its parts, day, month…), or the
# calendar button inside it, where the field matches :focus-within but not :focus-visible.
IN_THE_START = """() => {
    const field = document.getElementById('id_starts_at');
    if (document.activeElement !== field) return null;
    return {onButton: !field.matches(':focus-visible'), ring: getComputedStyle(field).outlineStyle};
}"""


def test_the_arena_form_s_start_shows_the_focus_on_its_calendar_button(make_page, live_url):
    """Tab goes through the start's parts, then to its calendar button (the browser's, inside the
    field): the field's ring shows the focus there too, as on each part (a phone, keys only)."""
    page = make_page(375, 740)
    page.goto(f"{live_url}/arenas/new/")
    page.focus("#id_starts_at")
    stops = []
    while (where := page.evaluate(IN_THE_START)) is not None and len(stops) < 12:
        stops.append(where)
        page.keyboard.press("Tab")
    assert stops and stops[-1]["onButton"], f"no calendar button reached: {stops}"
    assert {stop["ring"] for stop in stops} == {"solid"}, stops
