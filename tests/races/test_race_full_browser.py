"""A full race seen from outside, in a real browser against a live Daphne: the join form gives
way to "full" and comes back when a seat frees.

A module of its own, so a Chromium of its own: closing this test's three contexts hung for the
whole timeout in two whole-suite runs, in a browser that had already served the phone, keyboard
and rerouted-websocket tests (never when run alone)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_full_race_offers_to_watch_not_to_join(make_page, live_url):
    """A visitor's join form gives way to "full" once the last seat is taken (live, and on a
    fresh load), and comes back when a racer leaves."""
    ann, bob, carol = make_page(), make_page(), make_page()
    ann.goto(f"{live_url}/races/new/")
    ann.select_option("#id_max_players", "2")
    ann.fill("#id_name", "Ann")
    ann.click("button[type=submit]")
    ann.wait_for_selector('#race[data-socket="open"][data-role="racer"]')
    link = ann.input_value("#invite-link")
    carol.goto(link)
    carol.wait_for_selector('#race[data-socket="open"]')
    assert carol.is_visible("#join-button") and not carol.is_visible("#race-full")
    bob.goto(link)
    bob.fill("#id_name", "Bob")
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
