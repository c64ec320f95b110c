"""The live race page for one racer, in a real browser against a live Daphne: on a phone, by
keyboard, with one name everywhere (its own counters: test_race_counters_browser.py; a full
race seen from outside: test_race_full_browser.py).

A race its host starts alone (a solo race) runs the same page as any other and needs one
browser; the deal is the server's, so the tests read the legal moves from its frames.
"""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.engine import VARIANTS
from tests.browser_support import relay_socket
from tests.live import named

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RUNNING = '#race[data-phase="running"][data-seq="0"]'


def frames_of(page) -> list[dict]:
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(json.loads(p))))
    return frames


def last_board(frames: list[dict]) -> dict:
    return [f for f in frames if f["type"] in ("state", "ack")][-1]


def new_race(page, live_url: str, variant: str = "penguin", name: str | None = None) -> str:
    """Create a race as its host (under `name`, else a new "Ann"); returns its code."""
    page.goto(f"{live_url}/races/new/")
    page.select_option("#id_variant", variant)
    page.fill("#id_name", name or named("Ann"))
    page.click("button[type=submit]")
    page.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    return page.text_content("#race-code").strip()


def solo_race(page, live_url: str, variant: str = "penguin") -> str:
    """A race its host starts alone, running, the board drawn."""
    code = new_race(page, live_url, variant)
    page.click("#start-button")
    page.wait_for_selector(RUNNING, timeout=15_000)
    page.wait_for_selector("#countdown", state="hidden")
    return code


FITS = """() => {
  const width = document.documentElement.clientWidth;
  const piles = [...document.querySelectorAll('#board [data-pile]')].map((p) => {
    const r = p.getBoundingClientRect();
    return {pile: p.dataset.pile, left: r.left, right: r.right};
  });
  return {
    width,
    scroll: document.documentElement.scrollWidth,
    outside: piles.filter((p) => p.left < 0 || p.right > width + 0.5).map((p) => p.pile),
    piles: piles.length,
    standings: document.querySelector('#standings li') !== null,
  };
}"""


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_running_race_fits_a_phone(make_page, live_url, variant):
    """On phones 360–430 px wide, upright and on their side, a running race shows every pile
    with no sideways scrolling, the standings below the board."""
    page = make_page(390, 844)
    solo_race(page, live_url, variant)
    for width, height in [(390, 844), (360, 740), (430, 932), (844, 390), (740, 360)]:
        page.set_viewport_size({"width": width, "height": height})
        # The board measures itself again on resize: wait until it has (or the checks below
        # say what is wrong after 5 s).
        settled = (
            f"() => {{ const f = ({FITS})(); return f.scroll <= f.width && !f.outside.length; }}"
        )
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(settled, timeout=5_000)
        fit = page.evaluate(FITS)
        assert fit["piles"] >= 8 and fit["standings"], fit
        assert fit["scroll"] <= fit["width"], f"{width}x{height}: scrolls sideways {fit}"
        assert not fit["outside"], f"{width}x{height}: piles off the screen {fit}"
    board = page.locator("#board").bounding_box()
    standings = page.locator("#standings").bounding_box()
    assert standings["y"] >= board["y"] + board["height"] - 1, "standings below the board"


def pile_key(pile: str) -> str:
    """The key that names a pile (the practice page's keys)."""
    if pile.startswith("t"):
        return str((int(pile[1:]) + 1) % 10)
    return {"f": "f", "c": "c", "w": "w"}[pile[0]]


def single_group_move(legal: list[str]) -> str:
    """A move between piles keys can name, from a pile whose moves all take one group size (so
    the first key press picks exactly the cards the move takes)."""
    sizes: dict[str, set[str]] = {}
    for move in legal:
        if move != "deal":
            sizes.setdefault(move.split("-")[0], set()).add(move.partition(":")[2] or "1")
    for move in legal:
        src, _, rest = move.partition("-")
        dst = rest.split(":")[0]
        if src.startswith("t") and dst[0] in "tc" and len(sizes[src]) == 1:
            return move
    raise AssertionError(f"no move for keys in {legal}")


def test_a_race_plays_by_keyboard(make_page, live_url):
    """Pile keys pick up and put down, U and Ctrl+Z undo, and H asks for no hint."""
    page = make_page()
    frames = frames_of(page)
    solo_race(page, live_url)
    start = last_board(frames)
    move = single_group_move(start["legal"])
    src, _, rest = move.partition("-")
    page.keyboard.press(pile_key(src))
    page.keyboard.press(pile_key(rest.split(":")[0]))
    page.wait_for_function(
        "document.querySelector('#race').dataset.seq === '1' || /cannot|illegal/i.test("
        "document.querySelector('#race-status').textContent)"
    )
    assert not [f for f in frames if f["type"] == "error"], (move, start)
    assert last_board(frames)["played"] == [move]
    page.keyboard.press("u")
    page.wait_for_selector('#race[data-seq="2"]')
    assert last_board(frames)["view"] == start["view"]
    page.keyboard.press(pile_key(src))
    page.keyboard.press(pile_key(rest.split(":")[0]))
    page.wait_for_selector('#race[data-seq="3"]')
    page.keyboard.press("Control+z")
    page.wait_for_selector('#race[data-seq="4"]')
    page.keyboard.press("h")
    page.wait_for_timeout(300)
    assert not [f for f in frames if f["type"] == "hint"]


def test_a_racer_whose_clock_runs_behind_plays_when_their_countdown_ends(make_page, live_url):
    """The server sends a racer's board at its start. A page whose clock runs behind the
    server's (a slow line, a busy phone) gets it while its own countdown still runs, and draws
    it without moves; when its countdown ends, the board takes the keys. The test sets the
    page's clock 2 s behind by rewriting the server's times in the frames it gets."""
    page = make_page()
    lag_ms = 2_000
    frames: list[dict] = []

    def from_server(message):
        frame = json.loads(message)
        for stamp in ("now", "server_time_ms"):
            if stamp in frame:
                frame[stamp] -= lag_ms
        frames.append({**frame, "heard_at": time.monotonic()})
        return json.dumps(frame)

    relay_socket(page, "**/ws/race/**", from_server=from_server)
    new_race(page, live_url)
    page.click("#start-button")
    page.wait_for_selector(RUNNING, timeout=15_000)
    running_at = time.monotonic()
    dealt = [f for f in frames if f["type"] == "state" and f["legal"]]
    assert dealt and running_at - dealt[0]["heard_at"] > 1, "the board came after the countdown"
    move = single_group_move(dealt[0]["legal"])
    src, _, rest = move.partition("-")
    page.keyboard.press(pile_key(src))
    page.keyboard.press(pile_key(rest.split(":")[0]))
    page.wait_for_selector('#race[data-seq="1"]')
    assert last_board(frames)["played"] == [move]


def test_a_racer_has_one_name_and_winner_means_a_finisher(make_page, live_url):
    """A guest races as "Zed" in a public race and resigns: the recent races board says
    nobody finished (no "winner"), and the replay of the run is by Zed, the name of the race,
    not the guest's nickname."""
    page = make_page()
    page.goto(f"{live_url}/races/new/")
    page.check('input[name=visibility][value="public"]')
    page.fill("#id_name", "Zed")
    page.click("button[type=submit]")
    page.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    code = page.text_content("#race-code").strip()
    page.click("#start-button")
    page.wait_for_selector(RUNNING, timeout=15_000)
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#resign-button")
    page.wait_for_selector('#race[data-phase="finished"]')

    page.goto(f"{live_url}/leaderboards/races/")
    row = page.locator("tr", has=page.locator(f"a:text-is('{code}')"))
    cells = row.locator("td")
    assert "Zed" in cells.nth(4).inner_text()
    assert cells.nth(3).inner_text() == "nobody finished"

    replay = row.locator("a:text-is('replay')").get_attribute("href")
    page.goto(f"{live_url}{replay}")
    assert page.text_content("h1 .muted").strip() == "by Zed"
    assert "by Zed" in page.title()
