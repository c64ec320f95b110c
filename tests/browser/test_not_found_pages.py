"""Pages a newcomer may land on by a wrong or shared address, in a real browser against the live
server (DEBUG off, as in production; tests/browser/test_screens.py has them with DEBUG on, as
under `make run`): the product's own page with a plain reason, never the framework's debug page
or a blank answer."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

NOT_FOUND = [
    ("/races/ZZZZZZ/", "There is no race with this code."),
    ("/races/ZZZZZZ/results/", "There is no race with this code."),
    ("/play/nosuchgame/", "There is no variant called"),
    ("/play/penguin/9223372036854775808/", "deals are numbered 0 to 9223372036854775807"),
    ("/play/penguin/-1/", "deals are numbered 0 to"),
    ("/play/penguin/seven/", "deals are numbered 0 to"),
    ("/replay/nosuchrun/", ""),
]


@pytest.mark.parametrize(("path", "reason"), NOT_FOUND, ids=[p for p, _ in NOT_FOUND])
def test_a_missing_thing_gets_the_products_own_page(page, live_url, path, reason):
    response = page.goto(f"{live_url}{path}")
    assert response.status == 404
    assert page.text_content("h1") == "This page is not in the deck"
    text = page.text_content("main")
    assert reason in text
    assert "Django" not in page.content() and "URLconf" not in page.content()
    assert page.is_visible("text=Back to the games")


def test_a_ghost_address_opened_directly_says_what_to_do(page, live_url):
    """/ghost/<id>/ starts a race by POST from the replay page; a GET goes there and says so."""
    response = page.goto(f"{live_url}/ghost/nosuchrun/")
    assert response.status != 405
    assert page.url.endswith("/replay/nosuchrun/")
    assert "A ghost race starts from the replay" in page.text_content("main")


def test_every_page_has_an_icon(page, live_url):
    response = page.goto(f"{live_url}/favicon.ico")
    assert response.status == 200
    assert "svg" in response.headers["content-type"]
    page.goto(f"{live_url}/")
    href = page.get_attribute('link[rel="icon"]', "href")
    assert page.request.get(f"{live_url}{href}").status == 200


@pytest.mark.parametrize(
    ("seed", "text"), [(5, "Empty piles take an 8."), (21, "Empty piles take an A.")]
)
def test_penguins_info_line_says_a_or_an(page, live_url, seed, text):
    """Deal 5's beak is a 9 (empty piles take an 8), deal 21's a 2 (an ace)."""
    page.goto(f"{live_url}/play/penguin/{seed}/")
    page.wait_for_selector('body[data-ws-ready="1"]')
    assert text in page.text_content("#board .beak-text.long")


LONG_WORD = "a" * 60
LONG_ADDRESSES = [
    (f"/play/penguin/{LONG_WORD}/", 404),  # a deal number mistyped, quoted in the reason
    (f"/{LONG_WORD}/", 404),  # an address matching nothing, quoted whole
    (f"/leaderboards/fastest/penguin/?page={LONG_WORD}", 400),  # a parameter, quoted
    (f"/daily/penguin/{LONG_WORD}/", 400),  # a day, quoted
]


@pytest.mark.parametrize(("path", "status"), LONG_ADDRESSES, ids=[p for p, _ in LONG_ADDRESSES])
def test_an_error_page_quoting_a_long_address_fits_a_phone(make_page, live_url, path, status):
    """The reason quotes what was asked for, one long word: it breaks, not the page."""
    page = make_page(375, 740)
    response = page.goto(f"{live_url}{path}")
    assert response.status == status
    assert LONG_WORD in page.text_content("main")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
