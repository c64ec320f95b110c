"""Browser fixtures: one live Daphne and one Debian chromium per test session.

`live_url` is the server's base URL; `browser` the Playwright browser; `page` a fresh page in
a fresh context (a new guest: its own cookies) that fails the test on any page error.
"""

from __future__ import annotations

import pytest

from tests.live import live_server_process

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
def live_url():
    with live_server_process() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A page of a new browser context; JavaScript errors on it fail the test."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
