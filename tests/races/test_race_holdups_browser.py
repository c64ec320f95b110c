"""Races among friends, with no time limit, in a real browser. Its last racer, the other done,
is told to move at least every `RACE_IDLE_AFTER_S` (12 s on this module's server), and his
friend, done, that the race waits for him that long at most between his moves; when he does
not move, he is resigned as idle. His page says why; his friend's page has the race over and
its rematch at once, not after the two-hour cap, which he joins once back. Two still racing while a third is done are
told that a move of either keeps the race going: one's move starts the other's clock again,
and once neither moves both are resigned (the server's side: test_race_holdups.py)."""

from __future__ import annotations

import pytest

from tests.browser_support import live_server_env
from tests.live import live_server_process, named
from tests.races.test_race_browser import people_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IDLE_S = 12
LOOKS_EVERY_S = 5
"""How often a server looks for holdups in the races its pages show (`holdups.LOOK_EVERY_S`)."""


@pytest.fixture(scope="module")
def idle_url():
    """A server of this module's own, on which racers idle after `IDLE_S`."""
    with live_server_process(
        env={**live_server_env("idle"), "RACE_IDLE_AFTER_S": str(IDLE_S)}
    ) as url:
        yield url


@pytest.fixture
def people(make_page, idle_url):
    yield from people_on(make_page, idle_url)


def status_is(player, text: str) -> None:
    player.page.wait_for_function(
        "text => document.getElementById('race-status').textContent === text", arg=text
    )


def to_move_s(player) -> int:
    """The seconds the page gives its racer to move (beside the clock)."""
    to_move = player.page.inner_text("#race-remaining")
    assert to_move.endswith(" to move"), to_move
    minutes, seconds = to_move.removesuffix(" to move").split(":")
    return 60 * int(minutes) + int(seconds)


def race_of(people, idle_url, *names: str) -> list:
    """A race among friends with no time limit (the form's default), hosted by the first; every
    racer ready, the race running."""
    host, *guests = players = [people() for _ in names]
    host.page.goto(f"{idle_url}/races/new/")
    host.page.fill("#id_name", names[0])
    host.page.click("button[type=submit]")
    host.wait('#race[data-socket="open"][data-role="racer"]')
    for guest, name in zip(guests, names[1:], strict=True):
        guest.page.goto(host.page.input_value("#invite-link"))
        guest.page.fill("#id_name", name)
        guest.page.click("#join-button")
        guest.wait('#race[data-socket="open"][data-role="racer"]')
        guest.page.click("#ready-button")
    host.page.wait_for_function(
        f"document.querySelectorAll('#lobby-racers li.ready').length === {len(guests)}"
    )
    host.page.click("#ready-button")
    for player in players:
        player.wait('#race[data-phase="running"][data-seq="0"]', 30_000)
    return players


def test_a_friend_idle_as_the_last_racer_is_resigned_and_the_other_can_rematch(people, idle_url):
    ann_name, bob_name = named("Ann"), named("Bob")  # a chosen name is one player's
    ann, bob = race_of(people, idle_url, ann_name, bob_name)

    ann.page.click("#resign-button")
    ann.page.wait_for_function(  # whom she waits for, and how long at most between his moves
        f"document.getElementById('race-status').textContent === 'You resigned. {bob_name} is the"
        f" last one racing: the race ends when they are done, or after {IDLE_S} s without a move.'"
    )
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent === 'Everyone else is done: make a"
        f" move at least every {IDLE_S} s, or you resign.'"
    )
    to_move = bob.page.inner_text("#race-remaining")
    assert to_move.endswith(" to move") and to_move <= f"0:{IDLE_S}", to_move
    waits = ann.page.inner_text("#race-remaining")  # Ann sees the count Bob sees
    assert waits.startswith(f"{bob_name}: 0:") and waits.endswith(" to move"), waits

    timeout = (IDLE_S + 2 * LOOKS_EVERY_S + 10) * 1000
    for player in (ann, bob):
        player.wait('#race[data-phase="finished"]', timeout)
    bob.page.wait_for_function(
        "document.getElementById('race-status').textContent === 'The race is over. You made no"
        " move for a while, nor did anyone else still racing, while others waited for its end:"
        " it counted as a resignation.'"
    )
    assert bob.page.inner_text("#standings li.you .status") == "Idle"
    assert ann.page.inner_text("#standings li:not(.you) .status") == "Idle"
    ann.wait("#race-over:not([hidden])")
    ann.page.click("#results-link")
    ann.wait("#results-chart")
    results = ann.page.locator("#results tbody tr td:nth-child(3)").all_inner_texts()
    assert sorted(results) == ["Resigned", "Resigned: idle"]
    ann.page.click("#rematch")  # the rematch at once, without Bob, who was not playing
    ann.wait('#race[data-phase="lobby"][data-socket="open"]')
    # Her lobby, once drawn, holds her alone (Bob taken along would be there from its first draw).
    ann.page.wait_for_function("document.querySelectorAll('#lobby-racers li').length === 1")
    bob.page.wait_for_url(ann.page.url, timeout=10_000)  # his page follows, with the join form
    bob.page.fill("#id_name", bob_name)
    bob.page.click("#join-button")  # back: he asks, and is in
    bob.wait('#race[data-socket="open"][data-role="racer"]')
    ann.page.wait_for_function("document.querySelectorAll('#lobby-racers li').length === 2")


def test_two_friends_still_racing_keep_the_race_going_until_neither_moves(people, idle_url):
    ann_name, bob_name, cat_name = named("Ann"), named("Bob"), named("Cat")
    ann, bob, cat = race_of(people, idle_url, ann_name, bob_name, cat_name)
    ann.page.click("#resign-button")
    status_is(
        ann,
        f"You resigned. {bob_name} and {cat_name} still race: the race ends when they are done, or once none"
        f" of them has made a move for {IDLE_S} s.",
    )
    for player in (bob, cat):
        status_is(
            player,
            f"{ann_name} is done and waits: if nobody still racing makes a move for {IDLE_S} s, you all"
            " resign.",
        )
    cat.page.wait_for_function(  # Cat's clock runs down from Ann's end
        f"parseInt(document.getElementById('race-remaining').textContent.split(':')[1]) < {IDLE_S - 3}"
    )
    before = to_move_s(cat)
    bob.click_move(bob.board()["legal"][0])
    bob.wait('#race[data-seq="1"]')
    for player in (cat, ann):  # Bob's move, seen on Cat's page and Ann's, starts the count again
        player.page.wait_for_function(
            "before => parseInt(document.getElementById('race-remaining').textContent"
            ".split(':').at(-1)) > before",
            arg=before,
        )
    assert ann.page.inner_text("#race-remaining").startswith(f"{bob_name} and {cat_name}: 0:")

    timeout = (IDLE_S + 2 * LOOKS_EVERY_S + 10) * 1000
    for player in (ann, bob, cat):
        player.wait('#race[data-phase="finished"]', timeout)
    for player in (bob, cat):
        assert player.page.inner_text("#standings li.you .status") == "Idle"
    statuses = ann.page.locator("#standings li:not(.you) .status").all_inner_texts()
    assert statuses == ["Idle", "Idle"]
