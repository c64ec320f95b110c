"""The daily challenge in a real browser against a live Daphne: sign up, play the day's Penguin
deal to the end by clicks, find yourself on the board, then step through the replay.

The test knows the winning line because the day's deal is a pure function of the date: it picks
the deal itself with the same prover the server uses, and gets the server's deal and the
solver's proof of it.
"""

from __future__ import annotations

import time

import pytest

from games.engine import new_game

pytestmark = pytest.mark.browser

VARIANT = "penguin"
# The server allows 30 frames per 5 s on a socket; a test clicks faster than any hand.
MOVE_GAP_S = 0.2
# Starting the first game of a day on a fresh server picks the deal with the solver first.
PICK_TIMEOUT_MS = 180_000


def sign_up(page, live_url, name: str) -> None:
    page.goto(f"{live_url}/accounts/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", "a-long-test-passphrase-42")
    page.fill("input[name=password2]", "a-long-test-passphrase-42")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_url}/")


def click_move(page, move: str) -> None:
    """Play a move as a player does: click the card (the run's back card), then the pile; a
    deal is a click on the stock."""
    if move == "deal":
        page.locator('#board [data-pile="stock"]').click()
        return
    piles, _, count = move.partition(":")
    src, dst = piles.split("-")
    card = page.locator(f'#board [data-pile="{src}"] > .card').nth(-int(count or 1))
    card.click(position={"x": 12, "y": 6})  # the top strip: the part of a fanned card in view
    page.locator(f'#board [data-pile="{dst}"]').click(position={"x": 8, "y": 8})


def test_play_the_daily_to_the_end_and_find_yourself_on_the_board(page, live_url, todays_pick):
    """A ranked daily game won in the browser lands its player on the day's board; no frame
    ever carried the seed; the replay steps through the game."""
    pick = todays_pick(VARIANT)
    assert pick.verdict == "won", "the day's Penguin deal should be proved winnable"
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))

    sign_up(page, live_url, "dailywinner")
    page.goto(f"{live_url}/daily/{VARIANT}/")
    page.click('[data-start="ranked"]', no_wait_after=True)
    page.wait_for_selector('#daily[data-seq="0"]', timeout=PICK_TIMEOUT_MS)
    assert page.locator(".daily-badge.ranked").is_visible()
    page.wait_for_selector('#live-board[data-total="1"]')  # today's board, live beside the game

    for seq, move in enumerate(pick.moves, start=1):
        started = time.monotonic()
        click_move(page, move)
        page.wait_for_selector(f'#daily[data-seq="{seq}"]')
        time.sleep(max(0.0, MOVE_GAP_S - (time.monotonic() - started)))

    page.wait_for_selector('#daily[data-status="won"]')
    page.wait_for_selector("#daily[data-rank]")
    assert page.get_attribute("#daily", "data-rank") == "1"
    # the side panel has the win already, not after its 10 s refresh
    assert page.locator("#live-me").inner_text().startswith("You: #1 in ")
    assert "cards" not in page.locator("#live-rows li.me").inner_text()
    assert page.locator("#result-title").inner_text().startswith("Won in")
    assert frames and not any(str(pick.seed) in str(frame) for frame in frames)

    page.click("#result-board")
    row = page.locator("tr.me")
    assert row.get_attribute("data-rank") == "1"
    assert "dailywinner" in row.inner_text()

    page.goto(f"{live_url}/daily/{VARIANT}/")  # the ranked game is spent: practice only now
    assert page.locator('[data-start="ranked"]').count() == 0
    assert page.locator("text=Play it again (practice)").is_visible()


def test_the_replay_steps_forwards_and_back_and_the_run_can_be_raced(page, live_url, todays_pick):
    """Buttons, slider and keys move through a finished game; the address keeps the position;
    racing the run shows its progress beside a new board at its real pace."""
    pick = todays_pick("queenie")
    sign_up(page, live_url, "replayer")
    page.goto(f"{live_url}/daily/queenie/")
    page.click('[data-start="ranked"]', no_wait_after=True)
    page.wait_for_selector('#daily[data-seq="0"]', timeout=PICK_TIMEOUT_MS)
    for seq, move in enumerate(pick.moves[:6], start=1):
        click_move(page, move)
        page.wait_for_selector(f'#daily[data-seq="{seq}"]')
        said = page.text_content("#announce")  # a screen reader hears each move
        assert said and move not in said, (move, said)
        time.sleep(MOVE_GAP_S)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector('#daily[data-status="resigned"]')
    # the end is where the focus goes: the result, under the board
    page.wait_for_function("document.activeElement.id === 'result-title'")
    assert page.evaluate("document.activeElement.textContent").startswith("Game over: ")
    page.click("text=Watch your replay")
    host = "#replay-board"
    page.wait_for_selector(f'{host}[data-at="0"]')
    last = int(page.get_attribute(host, "data-frames")) - 1
    assert last == 6
    page.keyboard.press("End")
    page.wait_for_selector(f'{host}[data-at="6"]')
    assert page.url.endswith("?at=6")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f'{host}[data-at="5"][data-move="{pick.moves[4]}"]')
    page.click('[data-step="back"]')
    page.wait_for_selector(f'{host}[data-at="4"]')
    page.fill(".replay-slider", "2")
    page.wait_for_selector(f'{host}[data-at="2"]')
    page.click('[data-step="forward"]')
    page.wait_for_selector(f'{host}[data-at="3"]')
    page.reload()  # a shared link opens at its position
    page.wait_for_selector(f'{host}[data-at="3"]')
    page.click('[data-step="first"]')
    page.wait_for_selector(f'{host}[data-at="0"][data-move=""]')

    engine = new_game("queenie", pick.seed)
    for move in pick.moves[:6]:
        engine.play(move)
    page.click("text=Race against this run")
    page.wait_for_selector('#daily[data-seq="0"]')
    assert page.locator(".daily-badge.practice").is_visible()
    page.wait_for_selector(f'#ghost[data-ghost-cards="{engine.foundation_count()}"]')


def test_the_side_panel_follows_your_own_cards_home_at_once(page, live_url, todays_pick):
    """The panel's board is fetched every 10 s; your own row and "You:" line follow each of
    your moves as it is acknowledged (here: within 2.5 s of a card going home)."""
    pick = todays_pick(VARIANT)
    sign_up(page, live_url, "panelwatcher")
    page.goto(f"{live_url}/daily/{VARIANT}/")
    page.click('[data-start="ranked"]', no_wait_after=True)
    page.wait_for_selector('#daily[data-seq="0"]', timeout=PICK_TIMEOUT_MS)
    page.wait_for_selector("#live-board[data-total]")
    start = page.inner_text("#cards")
    assert page.locator("#live-me").inner_text().endswith(f", {start} cards home")
    for seq, move in enumerate(pick.moves, start=1):
        click_move(page, move)
        page.wait_for_selector(f'#daily[data-seq="{seq}"]')
        if seq == 1:
            assert page.inner_text(".daily-facts").startswith("1 move · ")
        if page.inner_text("#cards") != start:
            break
        time.sleep(MOVE_GAP_S)
    cards = page.inner_text("#cards")
    assert cards != start
    page.wait_for_function(
        "(n) => document.getElementById('live-me').textContent.endsWith(`, ${n} cards home`)",
        arg=cards,
        timeout=2500,
    )
    assert page.locator("#live-rows li.me .result").inner_text() == f"{cards} cards"


def test_a_one_word_nickname_in_the_side_panel_stays_in_the_page(make_page, live_url, todays_pick):
    """A nickname is one word of up to 24 characters: your row in the side panel wraps it
    rather than run past the panel and the page, on a desktop and on a phone (where the panel
    goes under the board)."""
    todays_pick(VARIANT)
    page = make_page()
    sign_up(page, live_url, "longwordnick")
    page.goto(f"{live_url}/accounts/nickname/")
    page.fill("input[name=nickname]", "Wolfeschlegelsteinhausen")
    page.click("form.card-form button[type=submit]")
    page.goto(f"{live_url}/daily/{VARIANT}/")
    page.click('[data-start="ranked"]', no_wait_after=True)
    page.wait_for_selector('#daily[data-seq="0"]', timeout=PICK_TIMEOUT_MS)
    page.wait_for_selector("#live-rows li.me", timeout=15_000)
    assert "Wolfeschlegelsteinhausen" in page.inner_text("#live-rows li.me")
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 800})
        panel = page.locator("#live-board").bounding_box()
        row = page.evaluate(
            "() => Math.max(...[...document.querySelectorAll('#live-rows li.me *')]"
            ".map((e) => e.getBoundingClientRect().right))"
        )
        assert row <= panel["x"] + panel["width"], f"the row runs past the panel at {width} px"
        assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_todays_board_keeps_the_keyboards_place_as_it_refreshes(page, live_url, todays_pick):
    """Today's board swaps in its fresh rows every 10 s: a link that had the focus has it
    again in the new rows, so a keyboard user is not thrown back to the page's start."""
    todays_pick(VARIANT)
    sign_up(page, live_url, "boardtabber")
    page.goto(f"{live_url}/daily/{VARIANT}/")
    page.click('[data-start="ranked"]', no_wait_after=True)
    page.wait_for_selector('#daily[data-seq="0"]', timeout=PICK_TIMEOUT_MS)
    board = page.get_attribute("#result-board", "href").split("?")[0]

    def changed(route):  # the next fetch of the page finds the rows changed
        body = route.fetch().text().replace('<tr class="me"', '<tr class="me" data-changed="1"', 1)
        route.fulfill(body=body, content_type="text/html")

    page.clock.install()
    page.goto(f"{live_url}{board}")
    report = page.locator("tr.me a.report-link")
    href = report.get_attribute("href")
    report.focus()
    page.route(f"{live_url}{board}", changed)
    page.clock.run_for(10_000)
    page.wait_for_selector("body[data-board-refreshed]")
    assert page.locator("tr.me[data-changed]").count() == 1, "the rows were swapped"
    assert page.evaluate("document.activeElement.getAttribute('href')") == href


def test_the_side_panels_names_keep_the_focus_as_it_refreshes(page, live_url, todays_pick):
    """The panel's rows are drawn again at each move and every 10 s: a name that had the
    focus has it again."""
    todays_pick(VARIANT)
    sign_up(page, live_url, "paneltabber")
    page.clock.install()
    page.goto(f"{live_url}/daily/{VARIANT}/")
    page.click('[data-start="ranked"]', no_wait_after=True)
    page.wait_for_selector('#daily[data-seq="0"]', timeout=PICK_TIMEOUT_MS)
    page.wait_for_selector("#live-rows li.me a")
    page.focus("#live-rows li.me a")
    href = page.get_attribute("#live-rows li.me a", "href")
    page.evaluate("document.querySelector('#live-rows li.me').dataset.old = '1'")
    page.clock.run_for(10_000)
    page.wait_for_function("!document.querySelector('#live-rows li[data-old]')")  # drawn again
    assert page.evaluate("document.activeElement.getAttribute('href')") == href
