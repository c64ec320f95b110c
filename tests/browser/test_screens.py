"""Every screen, as a new player meets it on a phone and a desktop (issue 25): the site's own
error pages under DEBUG, no sideways scroll at 360 and 390 px, names that lead to players, the
wording of races, the results chart. Against a live Daphne of their own with DEBUG on (as under
`make run`) and a database holding races of long-named players (tests/browser/screens_data.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scripts.servers import ROOT, server_env
from tests.live import live_server_process

pytestmark = pytest.mark.browser

PHONES = [360, 390]


@pytest.fixture(scope="module")
def screens(tmp_path_factory):
    """(base URL, what screens_data.seed made) of a DEBUG server on its own SQLite file."""
    database_url = f"sqlite:///{tmp_path_factory.mktemp('screens') / 'db.sqlite3'}"
    env = {"DEBUG": "1", "PLAYER_WRITE_LIMIT": "100000"}
    with live_server_process(env={**env, "DATABASE_URL": database_url}) as url:
        seeded = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SEED],
            cwd=ROOT,
            env=server_env(database_url=database_url, **env),
            capture_output=True,
            text=True,
        )
        assert seeded.returncode == 0, seeded.stderr
        yield url, json.loads(seeded.stdout.strip().splitlines()[-1])


SEED = "from tests.browser.screens_data import seed; seed()"


# ------------------------------------------------------------------ 1. the site's own error pages


@pytest.mark.parametrize("path", ["/nope/", "/play/penguin/12/winnable/", "/races/ABC234/x/"])
def test_an_address_that_matches_nothing_is_the_sites_own_page_under_debug(
    make_page, screens, path
):
    url, _ = screens
    page = make_page(390, 844)
    response = page.goto(f"{url}{path}")
    assert response.status == 404
    assert page.text_content("h1") == "This page is not in the deck"
    assert path in page.text_content("main")
    html = page.content()
    assert "DEBUG" not in html and "URLconf" not in html and "Django" not in html
    page.click("text=Back to the games")
    assert page.url == f"{url}/"


def test_an_expired_form_is_the_sites_own_page_under_debug(make_page, screens):
    """A form posted without its CSRF cookie (a reload after cookies were cleared)."""
    url, _ = screens
    page = make_page()
    page.goto(f"{url}/races/new/")
    page.context.clear_cookies()
    page.click("form.race-form button[type=submit]")
    assert "That form has expired" in page.text_content("h1")
    assert "DEBUG" not in page.content() and "CSRF" not in page.content()


# ------------------------------------------------------------------ 2. no sideways scroll on a phone


def wide_pages(made: dict) -> list[str]:
    return [
        f"/races/{made['rated']}/results/",
        f"/races/{made['unrated']}/results/",
        "/races/",
        "/leaderboards/",
        "/leaderboards/races/",
        f"/players/{made['player']}/",
        "/leaderboards/rating/penguin/",
        "/",
        "/races/new/",
        "/daily/",
        "/nope/",
    ]


@pytest.mark.parametrize("width", PHONES)
def test_every_page_fits_a_phone_without_sideways_scroll(make_page, screens, width):
    url, made = screens
    page = make_page(width, 800)
    too_wide = {}
    for path in wide_pages(made):
        page.goto(f"{url}{path}")
        scroll = page.evaluate("document.documentElement.scrollWidth")
        if scroll > width:
            too_wide[path] = scroll
    assert not too_wide, f"wider than {width} px: {too_wide}"
