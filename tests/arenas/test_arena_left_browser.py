"""A racer who left an arena's race and comes back to it, in a real browser: Bob closes his
race's page while Ann, done, waits for the race to end; once no page of his has been seen for
`RACER_GONE_AFTER_S` (3 s on this module's server) the arena resigns him and the race closes.
When he opens the race again, its page tells him why he resigned: "Left" beside his name, and a
status line that says he had left. The results say "Left the race" for him, "Resigned" for Ann
(the server's side: test_arena_racers_who_left.py)."""

from __future__ import annotations

import pytest

from tests.arenas.test_arena_browser import racing_together
from tests.browser_support import live_server_env
from tests.live import live_server_process
from tests.races.test_race_browser import people_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GONE_S = 3
LOOKS_EVERY_S = 5
"""How often an arena's room looks for racers who left (`arenas.rooms.PRESENCE_EVERY_S`)."""


@pytest.fixture(scope="module")
def gone_url():
    """A server of this module's own, on which a racer counts as gone after `GONE_S`."""
    env = {**live_server_env("left"), "RACER_GONE_AFTER_S": str(GONE_S)}
    with live_server_process(env=env) as url:
        yield url


@pytest.fixture
def people(make_page, gone_url):
    yield from people_on(make_page, gone_url)


def test_a_racer_resigned_for_leaving_is_told_so_when_back(people, gone_url):
    ann, bob = people(), people()
    arena_url = racing_together(ann, bob, gone_url)
    race_url = bob.page.url
    assert ann.page.url == race_url

    ann.page.click("#resign-button")  # done: she waits on the race's page for its end
    ann.wait("#next-race:not([hidden])")
    bob.page.goto("about:blank")  # Bob's page is gone, his race not done
    ann.page.wait_for_selector(
        '#race[data-phase="finished"]', timeout=(GONE_S + 2 * LOOKS_EVERY_S + 10) * 1000
    )
    # Ann sits out what comes next, so that Bob, back, is not placed with her at once.
    ann.page.click("#next-race #pause-button")
    ann.page.wait_for_url(arena_url)

    bob.page.goto(race_url)
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent === 'The race is over. You had"
        " left it while the others were done, so it counted as a resignation.'"
    )
    assert bob.page.inner_text("#standings li.you .status") == "Left"
    assert bob.page.inner_text("#standings li:not(.you) .status") == "Resigned"

    bob.page.goto(f"{race_url}results/")
    results = bob.page.locator("#results tbody tr td:nth-child(3)").all_inner_texts()
    assert sorted(results) == ["Left the race", "Resigned"]
