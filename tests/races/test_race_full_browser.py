"""A full race seen from outside, in a real browser against a live Daphne: the join form gives
way to "full" and comes back when a seat frees.

Closing this test's three contexts hung for the whole timeout in three of four whole-suite runs
of an earlier round (never when run alone), once with a Chromium of the module's own; the test
now waits for the leaver's reload to finish before it ends. Since then it shares the worker's
Chromium and has not hung in five whole-suite runs; PLAYWRIGHT_DEBUG=pw:protocol
(docs/testing.md) logs what the browser answers, should it hang again."""

from __future__ import annotations

import pytest

from tests.live import named

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_full_race_offers_to_watch_not_to_join(make_page, live_url):
    """A visitor's join form gives way to "full" once the last seat is taken (live, and on a
    fresh load), and comes back when a racer leaves."""
    ann, bob, carol = make_page(), make_page(), make_page()
    ann.goto(f"{live_url}/races/new/")
    ann.select_option("#id_max_players", "2")
    ann.fill("#id_name", named("Ann"))
    ann.click("button[type=submit]")
    ann.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    link = ann.input_value("#invite-link")
    carol.goto(link)
    carol.wait_for_selector('#race[data-socket="open"]')
    assert carol.is_visible("#join-button") and not carol.is_visible("#race-full")
    bob.goto(link)
    bob.fill("#id_name", named("Bob"))
    bob.click("#join-button")
    bob.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    carol.wait_for_selector("#race-full", state="visible")
    assert not carol.is_visible("#join-button")
    carol.reload()
    carol.wait_for_selector('#race[data-socket="open"]')
    assert carol.is_visible("#race-full") and not carol.is_visible("#join-button")
    assert "full" in carol.text_content("#race-full")
    bob.click("#leave-button")
    carol.wait_for_selector("#join-button", state="visible")
    assert not carol.is_visible("#race-full")
    # The leaver's page loads again as a visitor's, with the join form. Waiting for it also
    # lets that reload finish before the contexts close: a close in the middle of it is the
    # likeliest cause of the teardown that hung for the whole timeout in whole-suite runs.
    bob.wait_for_selector('#race[data-socket="open"][data-role="spectator"]')
    assert bob.is_visible("#join-button")
