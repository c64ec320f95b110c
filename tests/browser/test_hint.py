"""The practice page's Hint button in a real browser against a live Daphne."""

from __future__ import annotations

import pytest

from games.engine import new_game
from games.solver import solve

pytestmark = pytest.mark.browser

# Penguin deal 3: the solver proves it won in well under its hint budget, with a first move
# between two tableau piles (both ends of the hint are drawn piles).
SEED = 3


def test_hint_lights_up_both_ends_of_a_winning_move_and_it_plays(page, live_url):
    """H asks for a hint; the suggested move's source and destination piles light up, the
    page says hints are practice-only, and playing the suggestion is accepted."""
    page.goto(f"{live_url}/play/penguin/{SEED}/")
    page.wait_for_selector('body[data-ws-ready="1"]')
    assert "practice only" in page.locator("#hint-note").inner_text()
    page.keyboard.press("h")
    page.wait_for_selector("#play[data-hint]")
    move = page.locator("#play").get_attribute("data-hint")
    assert move == solve(new_game("penguin", SEED), max_seconds=2).moves[0]
    src, dst = move.split("-")
    # the toast names the cards: "Hint: Q♥ onto K♥", not "Pile 1 to pile 2"
    assert page.locator("#toast").inner_text().startswith("Hint: ")
    assert "Pile" not in page.locator("#toast").inner_text()
    assert page.locator(f'#board [data-pile="{src}"]').get_attribute("class").count("hint-src")
    assert page.locator(f'#board [data-pile="{dst}"]').get_attribute("class").count("hint-dst")
    page.evaluate("(move) => window.practice.act({type: 'move', move})", move)
    page.wait_for_selector('body[data-moves="1"]')
    assert page.locator("#board .hint-src, #board .hint-dst").count() == 0
