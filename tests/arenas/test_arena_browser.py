"""Two browsers in one arena (issue 27): Ann sets up a public arena that starts now with the
form, joins it, and waits alone (the page says so); Bob opens its link and joins; the server
places them both in one race of the arena, and each page goes there with no click."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from tests.races.test_race_browser import Player

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def people(browser, live_url):  # noqa: F811
    made: list[Player] = []

    def make() -> Player:
        made.append(Player(browser, live_url))
        return made[-1]

    yield make
    for player in made:
        player.close()


def join(player: Player, url: str) -> None:
    player.page.goto(url)
    player.page.click("#join-button")
    player.wait('#arena[data-socket="open"]')


def test_two_browsers_join_an_arena_and_are_placed_in_one_race(people, live_url):  # noqa: F811
    ann, bob = people(), people()
    page = ann.page
    page.goto(f"{live_url}/arenas/new/")
    page.fill("#id_name", "Browser arena")
    page.select_option("#id_variant", "penguin")
    page.fill("#id_starts_at", dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M"))
    page.check("input[name=visibility][value=public]")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r"/arenas/[\w-]+/$"))
    arena_url = page.url
    assert page.locator("#arena").get_attribute("data-phase") == "running"

    join(ann, arena_url)
    assert "Waiting for another free player" in page.inner_text("#arena-status")
    join(bob, arena_url)

    race = re.compile(r"/races/[A-Z0-9]{6}/$")
    ann.page.wait_for_url(race, timeout=20_000)
    bob.page.wait_for_url(race, timeout=20_000)
    assert ann.page.url == bob.page.url
    placed = [f for f in ann.frames if f.get("type") == "placed"]
    assert placed and ann.page.url.endswith(placed[-1]["url"])
    ann.wait('#race[data-socket="open"][data-role="racer"]')
    bob.wait('#race[data-socket="open"][data-role="racer"]')
