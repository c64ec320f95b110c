"""Two browsers press Quick race and race each other, from the button to the rated results
(issue 17): Ann (signed in) presses it on the home page and waits alone; Bob (signed in)
presses it on /races/ and lands in the same race, whose lobby clock starts; it starts by itself
(nobody presses start or ready), both resign, and the results show each racer's rating change
with the provisional mark of a first rated race.
"""

from __future__ import annotations

import re

import pytest

from tests.races.test_race_browser import Player

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VARIANT = "penguin"


@pytest.fixture
def people(make_page, live_url):  # noqa: F811
    made: list[Player] = []

    def make(username: str) -> Player:
        player = Player(make_page(), live_url)
        made.append(player)
        page = player.page
        page.goto(f"{live_url}/accounts/signup/")
        page.fill("#id_username", username)
        page.fill("#id_password1", "a-long-test-password-1")
        page.fill("#id_password2", "a-long-test-password-1")
        page.click("form button[type=submit]")
        page.wait_for_load_state()
        return player

    yield make
    for player in made:
        player.close()


def press_quick_race(player: Player, path: str) -> None:
    player.page.goto(f"{player.base}{path}")
    player.page.select_option("#quick-variant", VARIANT)
    player.page.click("#quick-race-button")
    player.wait('#race[data-socket="open"][data-role="racer"]')


def test_two_browsers_quick_race_from_the_button_to_the_rated_results(people, live_url):  # noqa: F811
    ann, bob = people("ann_quick"), people("bob_quick")

    press_quick_race(ann, "/")
    assert re.search(r"/races/[A-Z0-9]{6}/$", ann.page.url)
    ann.page.wait_for_function(
        "document.querySelector('#race-status').textContent.includes('waiting for a second')",
        polling=100,
    )
    assert ann.page.is_hidden("#start-button") and ann.page.is_hidden("#ready-button")
    code_url = ann.page.url
    seated = next(f for f in ann.frames if f.get("type") == "snapshot")["you"]["racer"]
    ann.page.reload()  # her old socket's close takes her out; the reloaded page takes her seat back
    ann.wait('#race[data-socket="open"]')
    # Out (event 2, `left`) and back (event 3, `joined`): the page names her a racer again once
    # the snapshot it asks for after its `join` came (it may stand for the `joined` frame, and
    # for the `left` when the page loaded after it).
    ann.page.wait_for_function(
        "document.querySelectorAll('#lobby-racers li').length === 1"
        " && Number(document.querySelector('#race').dataset.event) >= 3"
        " && document.querySelector('#race').dataset.role === 'racer'",
        polling=100,
    )
    assert ann.page.url == code_url
    back = [f for f in ann.frames if f.get("type") == "snapshot"][-1]
    assert back["you"]["racer"] not in (None, seated), "out on close, back on load"
    assert [(r["id"], r["name"]) for r in back["racers"]] == [(back["you"]["racer"], "ann_quick")]
    assert {f["racer"] for f in ann.frames if f.get("type") == "left"} <= {seated}
    rejoined = [f["racer"]["id"] for f in ann.frames if f.get("type") == "joined"]
    assert set(rejoined) <= {back["you"]["racer"]}

    press_quick_race(bob, "/races/")
    assert bob.page.url == ann.page.url, "the next open quick race of the game"
    for player in (ann, bob):
        player.page.wait_for_function(
            "document.querySelector('#race-status').textContent.includes('starts in')",
            polling=100,
        )
    autostart = next(f for f in ann.frames if f.get("type") == "autostart")
    assert autostart["at"] is not None

    for player in (ann, bob):  # by itself: the lobby's 15 s, then the countdown
        player.wait('#race[data-phase="running"][data-seq="0"]', timeout=40_000)
    assert ann.board()["view"] == bob.board()["view"], "one deal for both"

    home = [m for m in ann.board()["legal"] if "-f" in m]
    if home:  # a card home puts Ann ahead, so the ratings move apart
        ann.click_move(home[0])
        ann.wait('#race[data-seq="1"]')
    ann.page.click("#resign-button")
    bob.wait('#standings li[data-status="resigned"]')
    bob.page.click("#resign-button")
    for player in (ann, bob):
        player.wait('#race[data-phase="finished"]')
        player.page.wait_for_function(
            "document.querySelector('#over-text').textContent.includes('Your rating:')",
            polling=100,
        )
        player.page.click("#results-link")
        player.wait("#results")

    cells = ann.page.locator("#results td.rating")
    assert cells.count() == 2
    texts = [cells.nth(i).inner_text() for i in range(2)]
    assert all(re.search(r"\d{3,4}\?\s*([+-]\d+|±0)", t) for t in texts), texts
    if home:
        assert re.search(r"\+\d+", texts[0]) and re.search(r"-\d+", texts[1]), texts
    finished = next(f for f in ann.frames if f.get("type") == "finished")
    assert len(finished["ratings"]) == 2
