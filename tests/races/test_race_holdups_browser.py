"""A race among friends, with no time limit, in a real browser: its last racer, the other done,
is told to move at least every `RACE_IDLE_AFTER_S` (12 s on this module's server), and his
friend, done, that the race waits for him that long at most between his moves; when he does
not move, he is resigned as idle. His page says why; his friend's page has the race over and
its rematch at once, not after the two-hour cap (the server's side: test_race_holdups.py)."""

from __future__ import annotations

import pytest

from tests.browser_support import live_server_env
from tests.live import live_server_process
from tests.races.test_race_browser import people_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IDLE_S = 12
LOOKS_EVERY_S = 5
"""How often a server looks for holdups in the races its pages show (`holdups.LOOK_EVERY_S`)."""


@pytest.fixture(scope="module")
def idle_url():
    """A server of this module's own, on which a last racer idles after `IDLE_S`."""
    with live_server_process(
        env={**live_server_env("idle"), "RACE_IDLE_AFTER_S": str(IDLE_S)}
    ) as url:
        yield url


@pytest.fixture
def people(make_page, idle_url):
    yield from people_on(make_page, idle_url)


def test_a_friend_idle_as_the_last_racer_is_resigned_and_the_other_can_rematch(people, idle_url):
    ann, bob = people(), people()
    ann.page.goto(f"{idle_url}/races/new/")
    ann.page.fill("#id_name", "Ann")  # no time limit: the form's default
    ann.page.click("button[type=submit]")
    ann.wait('#race[data-socket="open"][data-role="racer"]')
    bob.page.goto(ann.page.input_value("#invite-link"))
    bob.page.fill("#id_name", "Bob")
    bob.page.click("#join-button")
    bob.wait('#race[data-socket="open"][data-role="racer"]')
    bob.page.click("#ready-button")
    ann.wait("#lobby-racers li.ready")
    ann.page.click("#ready-button")
    for player in (ann, bob):
        player.wait('#race[data-phase="running"]', 30_000)

    ann.page.click("#resign-button")
    ann.page.wait_for_function(  # whom she waits for, and how long at most between his moves
        "document.getElementById('race-status').textContent === 'You resigned. Bob is the last"
        f" one racing: the race ends when they are done, or after {IDLE_S} s without a move.'"
    )
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent === 'Everyone else is done: make a"
        f" move at least every {IDLE_S} s, or you resign.'"
    )
    to_move = bob.page.inner_text("#race-remaining")
    assert to_move.endswith(" to move") and to_move <= f"0:{IDLE_S}", to_move

    timeout = (IDLE_S + 2 * LOOKS_EVERY_S + 10) * 1000
    for player in (ann, bob):
        player.wait('#race[data-phase="finished"]', timeout)
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent === 'The race is over. You made no"
        " move for a while as its last racer, the others waiting: it counted as a resignation.'"
    )
    assert bob.page.inner_text("#standings li.you .status") == "Idle"
    assert ann.page.inner_text("#standings li:not(.you) .status") == "Idle"
    ann.wait("#race-over:not([hidden])")
    ann.page.click("#results-link")
    ann.wait("#results-chart")
    results = ann.page.locator("#results tbody tr td:nth-child(3)").all_inner_texts()
    assert sorted(results) == ["Resigned", "Resigned: idle"]
    ann.page.click("#rematch")  # the rematch at once: both in its lobby
    ann.wait('#race[data-phase="lobby"][data-socket="open"]')
    bob.page.wait_for_url(ann.page.url, timeout=10_000)
