"""A player's page in a browser whose time zone is not UTC: its moments (since when they play,
when each game started, when each arena starts) read in the reader's own time, as the arenas'
list does, with the UTC the server wrote (what a page without scripts shows) kept as each one's
title."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.browser.test_practice import CLICK_MOVE, SPIDERWEB_SEED, open_game, wait_moves
from tests.races.test_race_browser import click_move

pytestmark = pytest.mark.browser

KOLKATA = timedelta(hours=5, minutes=30)  # ahead of UTC all year


def test_a_player_s_page_shows_its_moments_in_the_reader_s_own_time(browser, live_url):
    """A guest in India plays a move (a game begins) and sets up an arena, joining it; their
    page says when the game started and, out of sight in the arena's link, when the arena
    starts, both in India's time, and that the Started column is in their time."""
    context = browser.new_context(timezone_id="Asia/Kolkata")
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
        click_move(page, CLICK_MOVE)
        wait_moves(page, 1)
        page.goto(f"{live_url}/arenas/new/")
        page.wait_for_selector("#arena-form[data-local-time]")
        page.fill("#id_name", "Arena in India's time")
        page.check("input[name=visibility][value=public]")
        page.click("form button[type=submit]")  # joined too: the form's box is ticked
        page.wait_for_url(re.compile(r"/arenas/(?!new/)[\w-]+/$"))

        page.click(".site-header .who")
        page.wait_for_url(re.compile(r"/players/\d+/$"))
        player_id = page.url.rstrip("/").rsplit("/", 1)[1]
        document = page.request.get(f"{live_url}/api/players/{player_id}/").json()
        started = datetime.fromisoformat(document["recent_games"][0]["started_at"])
        starts = datetime.fromisoformat(document["arenas"][0]["starts_at"])

        game = page.locator("table.games tbody tr").first.locator("td").first
        assert game.inner_text() == f"{started + KOLKATA:%Y-%m-%d %H:%M}"
        assert game.locator("time").get_attribute("title") == f"{started:%Y-%m-%d %H:%M} UTC"
        assert page.inner_text("table.games thead th >> nth=0") == "Started (your time)"
        arena = page.locator("h2:text-is('Arenas') + table tbody tr").first.locator("a span")
        assert arena.text_content() == f" from {starts + KOLKATA:%Y-%m-%d %H:%M}"
        assert arena.locator("time").get_attribute("title") == f"{starts:%Y-%m-%d %H:%M} UTC"
    finally:
        context.close()
    assert not errors


def far_zone() -> str:
    """A zone whose date is not UTC's now: Kiritimati (UTC+14) from 10:00 UTC, Pago Pago
    (UTC-11) before."""
    return "Pacific/Kiritimati" if datetime.now(UTC).hour >= 10 else "Pacific/Pago_Pago"


def test_player_since_is_the_reader_s_own_date(browser, live_url):
    """A player's page says since when they play ("Guest since …") in the reader's own zone, as
    its other moments do, in a zone whose date is not UTC's; the UTC date the server wrote
    (what a page without scripts shows) is kept as its title."""
    zone = far_zone()
    context = browser.new_context(timezone_id=zone)
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
        click_move(page, CLICK_MOVE)  # the guest is made
        wait_moves(page, 1)
        page.goto(live_url)  # a page's header names the guest once they are made
        page.click(".site-header .who")
        page.wait_for_url(re.compile(r"/players/\d+/$"))
        since = page.locator("main p.muted >> nth=0").locator("time")
        assert since.count() == 1
        came = datetime.fromisoformat(since.get_attribute("datetime"))
        assert since.inner_text() == f"{came.astimezone(ZoneInfo(zone)):%Y-%m-%d}"
        assert since.get_attribute("title") == f"{came.astimezone(UTC):%Y-%m-%d} UTC"
        assert page.inner_text("main p.muted >> nth=0").startswith(
            f"Guest since {came.astimezone(ZoneInfo(zone)):%Y-%m-%d}"
        )
    finally:
        context.close()
    assert not errors
