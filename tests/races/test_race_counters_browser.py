"""A racer's own counters follow their acks at once, in a real browser against a live Daphne.

The test reroutes the page's websocket through Playwright (`relay_socket`); in an earlier
round the next test's context close in the same browser hung for the whole timeout in two
whole-suite runs (never when run alone), not seen since (tests/races/test_race_full_browser.py)."""

from __future__ import annotations

import json

import pytest

from tests.browser_support import relay_socket
from tests.races.test_race_browser import click_move
from tests.races.test_race_page_browser import last_board, single_group_move, solo_race

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_your_own_counters_follow_your_acks_at_once(make_page, live_url):
    """After each of your moves and undos, your line and your standings row show the ack's
    moves ('1 move' after the first) and cards home at once, not with the throttled progress. The tests' server sends
    progress at once (no tick), so the test holds every progress frame back, as a tick would."""
    page = make_page()
    frames: list[dict] = []

    def from_server(message):
        frame = json.loads(message)
        frames.append(frame)
        return None if frame.get("type") == "progress" else message

    relay_socket(page, "**/ws/race/**", from_server=from_server)
    solo_race(page, live_url)
    for seq in range(1, 5):
        if seq % 2:
            click_move(page, single_group_move(last_board(frames)["legal"]))
        else:
            page.click("#undo-button")
        page.wait_for_selector(f'#race[data-seq="{seq}"]')
        ack = last_board(frames)
        cards = sum(len(pile) for pile in ack["view"]["foundations"])
        shown = page.evaluate(
            "[document.querySelector('#race-me').textContent,"
            " document.querySelector('#standings li.you .facts').textContent]"
        )
        moves = "1 move" if ack["moves"] == 1 else f"{ack['moves']} moves"
        assert shown[0] == f"{cards}/52 cards home · {moves}", (seq, shown)
        assert shown[1] == f"{cards}/52 cards · {moves}", (seq, shown)
