"""Racers an arena resigned, in a real browser (the server's side: test_arena_racers_who_left.py
and test_arena_idle_racer.py). Each of Ann and Bob's races closes with Ann done and paused,
so that Bob, alone, stays on its page afterwards.

- Bob closes his race's page while Ann waits for the race to end; once no page of his has been
  seen for `RACER_GONE_AFTER_S` (3 s on this module's server) he is resigned. When he opens the
  race again, its page says why: "Left" beside his name, and a status line that says he had
  left. The results say "Left the race" for him, "Resigned" for Ann.
- Bob keeps his page open after Ann is done: the page tells him to move at least every
  `RACE_IDLE_AFTER_S` (15 s here), counts it down, and warns in its last 10 s; a move starts
  the count again. When he stops moving he is resigned as idle, and the page says that too, and
  that he sits out the arena's next races until he resumes."""

from __future__ import annotations

import pytest

from tests.arenas.test_arena_browser import racing_together
from tests.browser_support import live_server_env
from tests.live import live_server_process
from tests.races.test_race_browser import people_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GONE_S = 3
IDLE_S = 15
LOOKS_EVERY_S = 5
"""How often an arena's room looks for racers who left (`arenas.rooms.PRESENCE_EVERY_S`)."""


@pytest.fixture(scope="module")
def gone_url():
    """A server of this module's own, on which a racer counts as gone after `GONE_S`."""
    env = {
        **live_server_env("left"),
        "RACER_GONE_AFTER_S": str(GONE_S),
        "RACE_IDLE_AFTER_S": str(IDLE_S),  # after the page closed: gone first
    }
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


def test_a_last_racer_is_told_to_move_and_resigned_as_idle_if_they_do_not(people, gone_url):
    ann, bob = people(), people()
    arena_url = racing_together(ann, bob, gone_url)
    ann.page.click("#resign-button")
    ann.wait("#next-race:not([hidden])")
    ann.page.click("#next-race #pause-button")  # sits out: Bob stays on his page after it
    ann.page.wait_for_url(arena_url)

    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent === 'Everyone else is done: make a"
        f" move at least every {IDLE_S} s, or you resign.'"
    )
    to_move = bob.page.inner_text("#race-remaining")
    assert to_move.endswith(" to move") and to_move <= f"0:{IDLE_S}", to_move
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent"
        " === 'Make a move within 10 s, or you resign.'",
        timeout=IDLE_S * 1000,
    )
    bob.click_move(bob.board()["legal"][0])  # a move: the count starts again
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent.startsWith('Everyone else is done')"
    )
    bob.page.wait_for_selector(
        '#race[data-phase="finished"]', timeout=(IDLE_S + 2 * LOOKS_EVERY_S + 10) * 1000
    )
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent.startsWith('The race is over. You"
        " made no move for a while, nor did anyone else still racing')"
    )
    assert bob.page.inner_text("#standings li.you .status") == "Idle"
    # ... and he sits out the arena's next races until he resumes.
    bob.page.wait_for_function(
        "document.getElementById('next-race-status').textContent"
        ".startsWith('You are sitting out the arena')"
    )
