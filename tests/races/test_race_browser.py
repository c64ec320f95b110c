"""Two browsers race each other on a live Daphne, with a third watching.

A real race deals a real deal, and no test can steer it to a win, so the race ends the way an
unfinished race really ends: Ann plays a move by clicking, Bob sees it in the standings, Ann
resigns, Bob plays and resigns, and both land on the finished race with links to the results
(standings, chart, replays), where one click on "Rematch" takes both to a new lobby.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from tests.live import named

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def click_move(page, move: str) -> None:
    """Play a move the way a person does: click its cards, then where they go."""
    src, dst = move.split(":")[0].split("-")
    count = int(move.split(":")[1]) if ":" in move else 1
    page.locator(f'#board [data-pile="{src}"] > .card').nth(-count).click()
    target = page.locator(f'#board [data-pile="{dst}"] > .card')
    if target.count():
        target.last.click()
    else:
        page.locator(f'#board [data-pile="{dst}"]').click(position={"x": 10, "y": 10})


class Player:
    """One guest's page (`make_page`): every frame its sockets got, the sockets it opened (their
    URLs), and its errors."""

    def __init__(self, page, base: str) -> None:
        self.page = page
        self.base = base
        self.frames: list[dict] = []
        self.sockets: list[str] = []
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", lambda dialog: dialog.accept())
        self.page.on("websocket", self._watch)

    def _watch(self, ws) -> None:
        self.sockets.append(ws.url)
        ws.on("framereceived", lambda payload: self.frames.append(json.loads(payload)))

    def wait(self, selector: str, timeout: float = 10_000) -> None:
        self.page.wait_for_selector(selector, timeout=timeout)

    def board(self) -> dict:
        """The last board (`state` or `ack`) the server sent this racer."""
        return [f for f in self.frames if f["type"] in ("state", "ack")][-1]

    def click_move(self, move: str) -> None:
        click_move(self.page, move)

    def close(self) -> None:
        assert not self.errors, f"JavaScript errors: {self.errors}"


def people_on(make_page, base: str) -> Iterator[Callable[[], Player]]:
    """A `people` fixture's body: people() -> a new guest's Player on the server at `base`; at
    the end, a JavaScript error on any of their pages fails the test."""
    made: list[Player] = []

    def make() -> Player:
        made.append(Player(make_page(), base))
        return made[-1]

    yield make
    for player in made:
        player.close()


@pytest.fixture
def people(make_page, live_url):  # noqa: F811
    yield from people_on(make_page, live_url)


def test_two_browsers_race_to_the_finish(people, live_url):  # noqa: F811
    """Create, join by link, ready, the shared countdown, moves seen live (one move reads
    '1 move'), the end, results, rematch."""
    ann, bob, eve = people(), people(), people()

    ann.page.goto(f"{live_url}/races/new/")
    ann.page.fill("#id_name", named("Ann"))
    ann.page.select_option("#id_time_limit", "300")
    ann.page.click("button[type=submit]")
    ann.wait('#race[data-socket="open"][data-role="racer"]')
    link = ann.page.input_value("#invite-link")
    code = ann.page.text_content("#race-code").strip()
    assert link.endswith(f"/races/{code}/")

    bob.page.goto(link)
    bob.page.fill("#id_name", named("Bob"))
    bob.page.click("#join-button")
    bob.wait('#race[data-socket="open"][data-role="racer"]')
    ann.page.wait_for_function(
        "document.querySelectorAll('#lobby-racers li').length === 2", polling=100
    )
    eve.page.goto(link)
    eve.wait('#race[data-socket="open"][data-role="spectator"]')

    bob.page.click("#ready-button")
    ann.wait("#lobby-racers li.ready")
    ann.page.click("#ready-button")  # everyone ready: the race starts by itself
    for player in (ann, bob):
        # The countdown is short: a loaded machine may look only once it is over.
        player.wait('#race[data-phase="countdown"], #race[data-phase="running"]', 30_000)
        if player.page.get_attribute("#race", "data-phase") == "countdown":
            player.wait("#countdown:not([hidden]), #race[data-phase=running]")
    countdowns = [next(f for f in p.frames if f["type"] == "countdown") for p in (ann, bob)]
    assert countdowns[0]["race"]["starts_at"] == countdowns[1]["race"]["starts_at"]

    ann.wait('#race[data-phase="running"][data-seq="0"]')
    bob.wait('#race[data-phase="running"][data-seq="0"]')
    assert ann.board()["view"] == bob.board()["view"], "one deal for both"
    eve.page.wait_for_function(
        "document.querySelectorAll('.spectator-board').length === 2", polling=100
    )

    ann.click_move(ann.board()["legal"][0])
    ann.wait('#race[data-seq="1"]')
    bob.page.wait_for_function(
        """() => [...document.querySelectorAll('#standings li')].some(
             (li) => li.textContent.includes('Ann')
               && li.querySelector('.facts').textContent.endsWith(' · 1 move'))""",
        polling=100,
    )
    assert not [f for f in bob.frames if f["type"] == "board"], "racers never get boards"
    eve.page.wait_for_function(
        "[...document.querySelectorAll('.spectator-board figcaption')].some("
        "(c) => c.textContent.includes('Ann') && c.textContent.includes(', 1 move · '))",
        polling=100,
    )

    ann.page.click("#resign-button")
    bob.wait('#standings li[data-status="resigned"]')
    bob.click_move(bob.board()["legal"][0])
    bob.wait('#race[data-seq="1"]')
    bob.page.click("#resign-button")
    for player in (ann, bob, eve):
        player.wait('#race[data-phase="finished"]')
        player.wait("#race-over:not([hidden])")
    assert eve.page.is_hidden("#rematch-button")

    for player in (ann, bob, eve):
        player.page.click("#results-link")
        player.wait("#results-chart")
    assert ann.page.locator("#results-chart polyline").count() == 2
    assert (
        ann.page.locator("#results a[href^='/replay/']:not([href^='/replay/race/'])").count() == 2
    )
    assert ann.page.locator("#results a[href^='/replay/race/']").count() == 2  # each in the race
    assert eve.page.locator("#rematch").count() == 0, "spectators cannot ask for a rematch"
    bob.page.wait_for_function("document.body.dataset.raceResults === 'open'", polling=100)

    ann.page.click("#rematch")  # one click: both racers land in the new lobby
    ann.wait('#race[data-phase="lobby"][data-socket="open"]')
    bob.page.wait_for_url(ann.page.url, timeout=10_000)
    bob.wait('#race[data-phase="lobby"][data-role="racer"]')
    assert ann.page.url != link
    eve.wait("#rematch-link:not([hidden])")


def test_the_race_form_offers_a_winnable_deal_of_every_variant(page, live_url):  # noqa: F811
    """Eighty Thieves too (its winnable deals are built): choosing it keeps "a winnable deal"
    checked and enabled, as for any other variant."""
    page.goto(f"{live_url}/races/new/")
    winnable = page.locator("input[name=deal][value=winnable]")
    winnable.check()
    page.select_option("#id_variant", "eighty-thieves")
    assert winnable.is_enabled() and winnable.is_checked()
    assert "never proved" not in page.text_content("#deal-help")
    page.select_option("#id_variant", "penguin")
    assert winnable.is_enabled() and winnable.is_checked()
