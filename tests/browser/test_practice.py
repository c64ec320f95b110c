"""The practice page in a real browser against a live Daphne.

The page is checked against the engine itself: after every move the board's cards (their
data-card attributes, pile by pile) must be the engine's player view of the same position, and
no card the player may not see may reach the page, in the DOM or in a websocket frame.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from games.engine import VARIANT_INFO, VARIANTS, new_game
from games.engine.cards import pretty

pytestmark = pytest.mark.browser

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshot.png"

# Spiderweb deal 1 opens with t0-t2 and t1-t3 both legal, on four different piles, and has
# face-down cards (one of which the first move turns up) and a stock.
FRAMES_PER_SOCKET = 25  # under the server's 30 frames per 5 s on one socket
SPIDERWEB_SEED = 1
DRAG_MOVE = "t0-t2"
CLICK_MOVE = "t1-t3"

READ_BOARD = """() => Object.fromEntries(
  [...document.querySelectorAll('#board [data-pile]')].map((pile) => [
    pile.dataset.pile,
    [...pile.querySelectorAll('[data-card]')].map((card) => card.dataset.card),
  ]))"""

READ_FACE_DOWN = """() => [...document.querySelectorAll('#board .card.face-down')].map(
  (card) => ({card: card.dataset.card, text: card.textContent, label: card.ariaLabel}))"""


def open_game(page, live_url: str, variant: str, seed: int, frames: list[str] | None = None):
    if frames is not None:
        page.on(
            "websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload))
        )
    page.goto(f"{live_url}/play/{variant}/{seed}/")
    page.wait_for_selector('body[data-ws-ready="1"]')


def wait_moves(page, count: int) -> None:
    page.wait_for_selector(f'body[data-moves="{count}"]')


def front_card(page, pile: str):
    return page.locator(f'#board [data-pile="{pile}"] > .card').last


def hidden_cards(game) -> set[str]:
    """The cards the player may not see in the game's position: face-down and stock cards."""
    full = game.to_dict()
    hidden = set(full["stock"])
    for cards, down in zip(full["tableau"], full["down"], strict=True):
        hidden.update(cards[:down])
    return hidden


def assert_board_shows(page, game) -> None:
    """The page draws the engine's player view: every tableau card in order, "??" where the
    view hides one, the stock as backs only, the top of every foundation."""
    view = game.to_dict(view="player")
    board = page.evaluate(READ_BOARD)
    for i, cards in enumerate(view["tableau"]):
        assert board[f"t{i}"] == cards, f"pile t{i}"
    for i, cards in enumerate(view["foundations"]):
        assert board[f"f{i}"] == cards[-2:], f"foundation f{i}"
    for i, card in enumerate(view["cells"]):
        assert board[f"c{i}"] == ([card] if card else []), f"cell c{i}"
    if "stock" in board:
        assert set(board["stock"]) <= {"??"}
        count = page.locator('#board [data-pile="stock"] .stock-count').inner_text()
        assert int(count) == len(view["stock"])
    for card in page.evaluate(READ_FACE_DOWN):
        assert card == {"card": "??", "text": "", "label": "face-down card"}


class LeakCheck:
    """No face-down or stock card's name is in the page, or in a frame the page received while
    the card was hidden (an undo may hide a card seen before: it was no secret then)."""

    def __init__(self, page, frames: list[str]) -> None:
        self.page = page
        self.frames = frames
        self.checked = 0

    def check(self, game) -> None:
        html = self.page.content()
        new = self.frames[self.checked :]
        self.checked = len(self.frames)
        for card in hidden_cards(game):
            assert f'data-card="{card}"' not in html
            for frame in new:
                assert f'"{card}"' not in frame, f"{card} was sent to the browser"


def drag(page, source, target) -> None:
    """Press on `source`, move in steps (as a hand does) and release over `target`."""
    a = source.bounding_box()
    b = target.bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=12)
    page.mouse.up()


def test_moves_by_drag_and_click_undo_and_reload_keep_the_position(page, live_url):
    """A drag and a click each play their move, undo takes the last back, and a reload shows
    the same position; hidden cards never reach the page."""
    game = new_game("spiderweb", seed=SPIDERWEB_SEED)
    assert {DRAG_MOVE, CLICK_MOVE} <= set(game.legal_moves())
    frames: list[str] = []
    leaks = LeakCheck(page, frames)
    open_game(page, live_url, "spiderweb", SPIDERWEB_SEED, frames)
    wait_moves(page, 0)
    assert_board_shows(page, game)
    leaks.check(game)

    drag(page, front_card(page, "t0"), front_card(page, "t2"))
    wait_moves(page, 1)
    game.play(DRAG_MOVE)
    assert_board_shows(page, game)
    leaks.check(game)

    front_card(page, "t1").click()
    assert page.locator('#board [data-pile="t1"] > .card.selected').count() == 1
    front_card(page, "t3").click()
    wait_moves(page, 2)
    game.play(CLICK_MOVE)
    assert_board_shows(page, game)
    leaks.check(game)

    page.click("#btn-undo")
    wait_moves(page, 1)
    game.undo()
    assert_board_shows(page, game)
    leaks.check(game)
    before = page.evaluate(READ_BOARD)

    page.reload()
    page.wait_for_selector('body[data-ws-ready="1"]')
    wait_moves(page, 1)
    assert page.evaluate(READ_BOARD) == before
    assert_board_shows(page, game)
    leaks.check(game)
    assert [json.loads(f)["type"] for f in frames].count("ack") == 3


def test_illegal_drop_is_explained_and_the_card_goes_back(page, live_url):
    """A card dropped where it may not go comes back, and the server's reason is shown."""
    game = new_game("spiderweb", seed=SPIDERWEB_SEED)
    legal = set(game.legal_moves())
    assert "t0-t1" not in legal
    open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
    before = page.evaluate(READ_BOARD)
    drag(page, front_card(page, "t0"), front_card(page, "t1"))
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert toast.inner_text().strip()
    assert toast.get_attribute("data-kind") == "error"
    page.wait_for_selector('#board[data-pending=""]')
    assert page.evaluate(READ_BOARD) == before
    assert page.evaluate("document.body.dataset.moves") == "0"


def test_keys_pick_a_pile_and_put_it_down(page, live_url):
    """Number keys pick a pile's movable card and put it on another pile; U undoes."""
    open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
    page.keyboard.press("1")
    assert page.locator('#board [data-pile="t0"] > .card.selected').count() == 1
    assert page.locator('#board [data-pile="t2"].target').count() == 1
    page.keyboard.press("3")
    wait_moves(page, 1)
    page.keyboard.press("u")
    wait_moves(page, 0)
    game = new_game("spiderweb", seed=SPIDERWEB_SEED)
    assert_board_shows(page, game)


def test_screenshot_of_a_game_in_progress(page, live_url, tmp_path):
    """A Penguin game a few moves in, drawn for the README.

    ``UPDATE_SCREENSHOT=1`` writes it to docs/screenshot.png; otherwise it goes to a temporary
    folder, so a test run leaves the working tree as it found it.
    """
    shot = SCREENSHOT if os.environ.get("UPDATE_SCREENSHOT") else tmp_path / "screenshot.png"
    seed = 12
    game = new_game("penguin", seed=seed)
    open_game(page, live_url, "penguin", seed)
    for played in range(1, 4):
        legal = game.legal_moves()
        move = next((m for m in legal if m.split("-")[1][0] in "tf"), legal[0])
        src, dst = move.split(":")[0].split("-")
        count = int(move.split(":")[1]) if ":" in move else 1
        page.locator(f'#board [data-pile="{src}"] > .card').nth(-count).click()
        target = page.locator(f'#board [data-pile="{dst}"]')
        target.click(position={"x": 10, "y": 10})
        wait_moves(page, played)
        game.play(move)
    assert_board_shows(page, game)
    # show where the front card of the first pile may go
    front_card(page, "t0").click()
    page.mouse.move(0, 0)
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished))")
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000


# Break the line at the first move: "lost" drops the frame before it leaves, "cut" lets it go
# and closes the socket before the answer can arrive.
# Breaks the socket as the first move is sent (after sending it, if `cut`), and keeps every value
# body[data-ws-ready] takes: the page may be back ("1") before a wait for "0" would look.
BREAK_AT_FIRST_MOVE = """(mode) => {
  window.wsReadySeen = [];
  new MutationObserver(() => window.wsReadySeen.push(document.body.dataset.wsReady))
    .observe(document.body, {attributes: true, attributeFilter: ["data-ws-ready"]});
  const send = WebSocket.prototype.send;
  let broken = false;
  WebSocket.prototype.send = function (data) {
    if (!broken && JSON.parse(data).type === "move") {
      broken = true;
      if (mode === "cut") send.call(this, data);
      this.close();
      return;
    }
    return send.call(this, data);
  };
}"""


@pytest.mark.parametrize("mode", ["lost", "cut"])
def test_a_move_caught_in_a_dropped_connection_is_played_once(page, live_url, mode):
    """The page reconnects by itself and the move is played exactly once: resent with its seq
    if the server never had it, not played twice if it had."""
    open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
    page.evaluate(BREAK_AT_FIRST_MOVE, mode)
    front_card(page, "t0").click()
    front_card(page, "t2").click()
    page.wait_for_function("window.wsReadySeen.includes('0')")  # the page saw the line drop
    page.wait_for_selector('body[data-ws-ready="1"]')
    wait_moves(page, 1)
    page.wait_for_selector('#conn[data-state="open"]')
    game = new_game("spiderweb", seed=SPIDERWEB_SEED)
    game.play(DRAG_MOVE)
    assert_board_shows(page, game)
    page.reload()
    page.wait_for_selector('body[data-ws-ready="1"]')
    wait_moves(page, 1)
    assert_board_shows(page, game)


def test_a_deal_without_moves_says_so(page, live_url):
    """Penelope's Web deal 10 has no legal move: the page says so and offers a new deal."""
    assert new_game("penelopes-web", seed=10).is_stuck()
    open_game(page, live_url, "penelopes-web", 10)
    page.wait_for_selector('#play[data-status="stuck"]')
    overlay = page.locator("#overlay")
    assert overlay.is_visible()
    assert page.locator("#overlay-title").inner_text() == "No moves left"
    assert page.locator("#overlay-new").get_attribute("href") == "/play/penelopes-web/"
    assert not page.locator("#overlay-undo").is_visible()
    assert page.locator("#btn-autoplay").is_disabled()
    page.click("#overlay-close")
    assert not overlay.is_visible()


def test_a_pile_of_one_card_is_read_as_one_card(page, live_url):
    """A screen reader hears a pile of one card as '1 card', never '1 cards': Queenie's first
    pile as dealt, and Eighty Thieves' waste after one deal from the stock."""
    queenie = new_game("queenie", seed=1)
    (front,) = queenie.to_dict(view="player")["tableau"][0]
    open_game(page, live_url, "queenie", 1)
    label = page.get_attribute('#board [data-pile="t0"]', "aria-label")
    assert label == f"Pile 1, 1 card, front {pretty(front)}"

    thieves = new_game("eighty-thieves", seed=1)
    thieves.play("deal")
    (top,) = thieves.to_dict(view="player")["waste"]
    open_game(page, live_url, "eighty-thieves", 1)
    page.click('#board [data-pile="stock"]')
    wait_moves(page, 1)
    label = page.get_attribute('#board [data-pile="w"]', "aria-label")
    assert label == f"Waste, 1 card, top {pretty(top)}"


@pytest.mark.slow
def test_autoplay_finishes_a_won_game(page, live_url):
    """Played to where only foundation moves are left, A sends every card home and the page
    shows the win; the won board takes no more moves."""
    from games.solver.solve import solve

    seed = 1
    line = solve(new_game("penguin", seed=seed), max_nodes=200_000).moves
    assert line
    tail = 0
    while "-f" in line[-1 - tail]:
        tail += 1
    open_game(page, live_url, "penguin", seed)
    for count, move in enumerate(line[: len(line) - tail], start=1):
        if count % FRAMES_PER_SOCKET == 0:
            # the server allows a socket 30 frames in 5 s: a test plays faster than a hand, so
            # it takes a fresh socket (and waits for it) instead of waiting on the clock
            page.evaluate("window.practice.socket.reconnect()")
            page.wait_for_selector('body[data-ws-ready="1"]')
        page.evaluate("(move) => window.practice.act({type: 'move', move})", move)
        wait_moves(page, count)
    page.keyboard.press("a")
    page.wait_for_selector('#play[data-status="won"]')
    assert page.locator("#overlay-title").inner_text() == "You won!"
    assert page.locator("#btn-undo").is_disabled()
    assert page.locator("#board .card.movable").count() == 0
    board = page.evaluate(READ_BOARD)
    assert all(not board[f"t{i}"] for i in range(7))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("width", [360, 1280])
def test_every_variant_lays_out_its_piles_and_fits_the_width(make_page, live_url, variant, width):
    """Each variant shows its piles (tableau, foundations, cells, stock, waste as its rules
    have them) and fits a phone's width without sideways scrolling."""
    info = VARIANT_INFO[variant]
    page = make_page(width, 740)
    open_game(page, live_url, variant, 3)
    piles = set(page.evaluate(READ_BOARD))
    expected = {f"t{i}" for i in range(info["tableau"])}
    expected |= {f"f{i}" for i in range(info["foundations"])}
    expected |= {f"c{i}" for i in range(info["cells"])}
    expected |= {"stock"} if info["has_stock"] else set()
    expected |= {"w"} if info["has_waste"] else set()
    assert piles == expected
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    board = page.locator("#board").bounding_box()
    for pile in page.locator("#board [data-pile]").all():
        box = pile.bounding_box()
        assert board["x"] <= box["x"] and box["x"] + box["width"] <= board["x"] + board["width"]
    assert_board_shows(page, new_game(variant, seed=3))
