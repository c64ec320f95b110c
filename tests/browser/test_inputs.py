"""Inputs a player meets first, in a real browser against a live Daphne: a second click after
a drop, and a move the server's store could not keep (docs/protocol.md, `unavailable`)."""

from __future__ import annotations

import json

import pytest

from tests.browser.test_practice import SPIDERWEB_SEED, front_card, open_game, wait_moves
from tests.browser_support import relay_socket

pytestmark = pytest.mark.browser


def test_a_quick_click_after_a_drop_is_not_a_double_click(page, live_url):
    """Drop TC on JS with two clicks, then at once click JS again: that picks up from the pile
    (TC, the group that can move), it does not send TC to a foundation as a double-click."""
    open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
    front_card(page, "t1").click()
    jack = front_card(page, "t3")
    assert jack.get_attribute("data-card") == "JS"
    jack.click()
    wait_moves(page, 1)
    # the top strip: the part of the covered jack in view
    page.locator('#board [data-pile="t3"] > .card[data-card="JS"]').click(
        position={"x": 12, "y": 6}
    )
    page.wait_for_selector("#board .card.selected")
    page.wait_for_timeout(300)  # a move sent would have come back by now
    assert page.get_attribute("body", "data-moves") == "1"
    selected = page.eval_on_selector_all(
        "#board .card.selected", "cs => cs.map(c => c.dataset.card)"
    )
    assert selected == ["TC"]


@pytest.mark.parametrize("kind", ["move", "undo"])
def test_a_move_the_store_could_not_keep_is_resent_after_retry_ms(page, live_url, kind):
    """The server answers `unavailable` (retry_ms 600): the page says it is reconnecting to the
    store, not an error, sends the very same frame again after the wait, and the ack clears
    the notice."""
    sent: list[dict] = []
    refused: list[dict] = []

    def from_page(message, page_side):
        frame = json.loads(message)
        if frame.get("type") in ("move", "undo"):
            sent.append(frame)
            if frame["type"] == kind and not refused:
                refused.append(frame)
                page_side.send(
                    json.dumps(
                        {
                            "type": "error",
                            "code": "unavailable",
                            "reason": "the game store is unavailable",
                            "ref": kind,
                            "retry_ms": 600,
                        }
                    )
                )
                return None
        return message

    relay_socket(page, "**/ws/game/**", from_page=from_page)
    open_game(page, live_url, "spiderweb", SPIDERWEB_SEED)
    front_card(page, "t1").click()
    front_card(page, "t3").click()
    if kind == "undo":
        wait_moves(page, 1)
        page.keyboard.press("u")
    page.wait_for_selector('#play[data-store="waiting"]')
    toast = page.locator("#toast")
    assert toast.inner_text().strip() == "Reconnecting to the game store…"
    assert toast.get_attribute("data-kind") == "info"
    wait_moves(page, 0 if kind == "undo" else 1)
    page.wait_for_selector('#play[data-store=""]')
    resent = [f for f in sent if f["type"] == kind]
    assert resent == [refused[0], refused[0]], "the same frame, same seq, twice"
