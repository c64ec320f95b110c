"""The arena's page when a button's answer says its arena was removed meanwhile (an admin's edit
of its schedule): the page says so and leaves nothing to press (the server's side:
test_arena_removed.py)."""

from __future__ import annotations

import json
import re

import pytest

from tests.arenas.test_arena_browser import people, set_up  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_join_answered_not_found_says_so_and_leaves_nothing_to_press(people, live_url):  # noqa: F811
    """The join's answer is the one of an arena removed under the press: its reason goes on the
    status line, the buttons go, and the page's socket is closed (nothing is left to hear). The
    keyboard's focus, on the button pressed, goes to the status line, not to the page."""
    ann = people()
    page = ann.page
    set_up(page, live_url)
    ann.wait('#arena[data-socket="open"]')
    gone = {"error": "not_found", "note": "there is no arena with this link"}
    page.route(
        re.compile(r"/arenas/[\w-]+/join/$"),
        lambda route: route.fulfill(
            status=404, content_type="application/json", body=json.dumps(gone)
        ),
    )
    page.focus("#join-button")
    page.keyboard.press("Enter")
    ann.wait('#arena[data-pressed="1"][data-socket="closed"]')
    assert page.inner_text("#arena-status") == "there is no arena with this link"
    assert page.locator("#arena-controls button").count() == 0
    assert page.evaluate("document.activeElement.id") == "arena-status"
