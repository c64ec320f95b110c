"""A replay in a real browser: the page gets the deal and the steps, and every position it
draws, stepped by keys, buttons, the slider or a shared `?at=N`, is the engine's."""

from __future__ import annotations

import pytest

from games.engine import new_game
from tests.browser.test_practice import READ_BOARD as READ_PRACTICE_BOARD

pytestmark = pytest.mark.browser

# Spiderweb deal 4 played at random to a standstill: face-down cards turned up, four deals from
# the stock, an undo; stuck after 30 log rows (a stuck practice game may be replayed).
VARIANT, SEED = "spiderweb", 4
LOG = [
    "t4-f3",
    "t3-f2",
    "t2-t6",
    "t3-f1",
    "t2-f0",
    "undo",
    "f2-t5",
    "t2-f2",
    "deal",
    "t1-f0",
    "deal",
    "t4-t2",
    "f0-t0",
    "t4-f0",
    "t4-t5",
    "f0-t3",
    "t4-t3",
    "deal",
    "t3-f0",
    "deal",
    "t4-t2",
    "f3-t0",
    "t3-f3",
    "t5-t2",
    "t2-t5",
    "t1-t3",
    "deal",
    "t4-t0",
    "t6-t2",
    "t1-t6",
]
READ_BOARD = READ_PRACTICE_BOARD.replace("#board ", "#replay-board ")
FRAMES_PER_SOCKET = 20  # under the server's 30 frames per 5 s on one socket


def positions() -> list[dict]:
    engine = new_game(VARIANT, SEED)
    out = [engine.to_dict()]
    for move in LOG:
        engine.undo() if move == "undo" else engine.play(move)
        out.append(engine.to_dict())
    assert engine.is_stuck()
    return out


def play_to_a_standstill(page, live_url: str) -> str:
    """The log played on the practice page; the game's id."""
    page.goto(f"{live_url}/play/{VARIANT}/{SEED}/")
    page.wait_for_selector('body[data-ws-ready="1"]')
    for seq, move in enumerate(LOG, start=1):
        if seq % FRAMES_PER_SOCKET == 0:
            page.evaluate("window.practice.socket.reconnect()")
            page.wait_for_selector('body[data-ws-ready="1"]')
        action = {"type": "undo"} if move == "undo" else {"type": "move", "move": move}
        page.evaluate("(action) => window.practice.act(action)", action)
        page.wait_for_selector(f'#play[data-seq="{seq}"]')
    page.wait_for_selector('#play[data-status="stuck"]')
    return page.evaluate("window.practice.config.game")


def assert_shows(page, at: int, position: dict) -> None:
    """The board at position `at` is the engine's, every card face up (the game is over)."""
    page.wait_for_selector(f'#replay-board[data-at="{at}"]')
    board = page.evaluate(READ_BOARD)
    for i, cards in enumerate(position["tableau"]):
        assert board[f"t{i}"] == cards, f"position {at}, pile t{i}"
    for i, cards in enumerate(position["foundations"]):
        assert board[f"f{i}"] == cards[-2:], f"position {at}, foundation f{i}"


SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_text(code: str) -> str:
    return ("10" if code[0] == "T" else code[0]) + SUITS[code[1]]


def move_text(move: str, before: dict) -> str:
    """How the position line names a move of this Spiderweb log: by its cards, never "t4-f3"."""
    if move in ("undo", "deal"):
        return {"undo": "a move taken back", "deal": "a deal from the stock"}[move]
    piles, _, count = move.partition(":")
    src, dst = piles.split("-")
    pile = {"t": "tableau", "f": "foundations"}
    source = before[pile[src[0]]][int(src[1:])]
    card = card_text(source[-int(count or 1)])
    what = f"{count} cards from {card}" if count else card
    if dst[0] == "f":
        return f"{what} to a foundation"
    onto = before["tableau"][int(dst[1:])]
    return f"{what} onto {card_text(onto[-1])}" if onto else f"{what} to an empty pile"


def test_every_position_of_a_replay_is_the_engine_s(page, live_url):
    expected = positions()
    game = play_to_a_standstill(page, live_url)
    page.goto(f"{live_url}/replay/{game}/?at=12")  # a shared link opens at its position
    assert_shows(page, 12, expected[12])
    assert page.get_attribute("#replay-board", "data-frames") == str(len(LOG) + 1)
    assert page.get_attribute(".replay-slider", "max") == str(len(LOG))
    page.keyboard.press("Home")
    assert_shows(page, 0, expected[0])
    for at in range(1, len(expected)):  # every step, the undo and the deals included
        page.keyboard.press("ArrowRight")
        assert_shows(page, at, expected[at])
        assert page.get_attribute("#replay-board", "data-move") == LOG[at - 1]
        said = page.text_content(".replay-where").split(" · ")[1]
        assert said == move_text(LOG[at - 1], expected[at - 1]), f"position {at}"
    assert page.url.endswith(f"?at={len(LOG)}")
    page.fill(".replay-slider", "6")
    assert_shows(page, 6, expected[6])
    page.click('[data-step="back"]')
    assert_shows(page, 5, expected[5])
    page.keyboard.press("End")
    assert_shows(page, len(LOG), expected[-1])
    page.click('[data-step="first"]')
    assert_shows(page, 0, expected[0])
    page.goto(f"{live_url}/replay/{game}/?at=9")
    assert_shows(page, 9, expected[9])
    page.focus('[data-step="forward"]')  # Space presses a focused button, as anywhere else
    page.keyboard.press(" ")
    assert_shows(page, 10, expected[10])
    # Play says what a press does, Play or Pause, and so is no toggle (no aria-pressed, WAI-ARIA
    # APG's button pattern): Enter and Space on it as on any button, Space elsewhere on the page.
    play = page.locator('[data-step="play"]')
    assert [play.text_content(), play.get_attribute("aria-pressed")] == ["Play", None]
    play.focus()
    page.keyboard.press("Enter")
    assert [play.text_content(), play.get_attribute("aria-pressed")] == ["Pause", None]
    assert_shows(page, 11, expected[11])  # one step at the steady speed
    page.keyboard.press(" ")
    assert [play.text_content(), play.get_attribute("aria-pressed")] == ["Play", None]
    assert page.evaluate("document.activeElement.dataset.step") == "play"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    assert play.text_content() == "Pause"
    page.keyboard.press(" ")
    assert play.text_content() == "Play"
