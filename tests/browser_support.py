"""Browser fixtures: one live Daphne per test session (per pytest-xdist worker), one Debian
chromium per worker.

The root conftest imports the fixtures, so every browser test in the tree shares one
definition of each. Playwright's sync API marks its event loop as running in the main thread
while it is open, so the Chromium is closed after the last of a run of browser tests, before a
test that uses none (which may call ``asyncio.run`` or be an asyncio test): `close_browser`,
called by the root conftest's `pytest_runtest_teardown`. The root conftest also orders the tests
so that a worker's browser tests follow each other.

`live_url` is the server's base URL; `browser` the Playwright browser; `make_page(width,
height)` a new page of a new guest (no cookies, storage, permissions or cache) that fails the
test on any page error, and `page` one of those at desktop size. The guests' browser contexts
are kept for the worker's next browser tests (`Guest`): a context made afresh for every page
cost about twice the CPU. Without /usr/bin/chromium the browser tests are skipped, unless
REQUIRE_BROWSER or CI is set, when they fail.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from tests.live import live_server_process
from tests.required import unavailable

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 800}
GUEST_CONTEXT = {"viewport": DESKTOP, "timezone_id": "UTC"}
"""A guest's browser: a desktop, in UTC whatever the machine's zone (the arena form reads the
start a test types in the browser's own time)."""
# The two widths every page is checked at (tests/accessibility/): a desktop and a phone.
WIDTHS = {"desktop": (1280, 800), "phone": (390, 844)}


def live_server_env(database: str = "browser") -> dict[str, str]:
    """The live server's database and Redis follow the test settings: with PostgreSQL (CI) it
    gets a database of its own beside the test one (`<name>_<database>`, made afresh), and the
    same Redis; else its own SQLite."""
    from django.conf import settings

    from scripts.servers import create_database

    # Browser tests play winning lines at machine speed, past any player's write budget, and so
    # like a bot: fair play's assessment would hold their results (tests/fairplay tests it).
    env: dict[str, str] = {"PLAYER_WRITE_LIMIT": "100000", "FAIRPLAY_ASSESSMENT": "0"}
    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.postgresql":
        auth = quote(db["USER"] or "", safe="")
        if db.get("PASSWORD"):
            auth += ":" + quote(db["PASSWORD"], safe="")
        host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        url = f"postgres://{auth}@{host}/{db['NAME']}_{database}"
        create_database(url, drop=True)
        env["DATABASE_URL"] = url
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    return env


@pytest.fixture(scope="session")
def live_url():
    with live_server_process(env=live_server_env()) as url:
        yield url


_open: list = []
"""This worker's Playwright and Chromium while a run of browser tests lasts: [playwright,
browser], or empty."""


@pytest.fixture
def browser():
    """This worker's Chromium (launched by the first browser test of a run of them)."""
    if not Path(CHROMIUM).exists():
        # A switch of the test run (CI sets it), not a setting of the service.
        message = f"{CHROMIUM} is missing: apt-get install chromium"
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(message)
        unavailable(message)
    sync_api = pytest.importorskip("playwright.sync_api")
    if not _open:
        with driver_environment():
            playwright = sync_api.sync_playwright().start()
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except BaseException:
            playwright.stop()
            raise
        _open[:] = [playwright, browser]
    return _open[1]


_launches: list = []


@contextlib.contextmanager
def driver_environment():
    """Playwright's driver logs what DEBUG names (pw:protocol: every message to and from
    Chromium) to stderr or to DEBUG_FILE; Django's settings read DEBUG too, so the tests take
    PLAYWRIGHT_DEBUG and PLAYWRIGHT_DEBUG_FILE and hand them to the driver alone, as it starts.
    The file's {worker} is the pytest-xdist worker's name and {launch} counts the worker's
    launches (the driver starts its file afresh each time)."""
    wanted = {}
    _launches.append(None)
    if os.environ.get("PLAYWRIGHT_DEBUG"):
        wanted["DEBUG"] = os.environ["PLAYWRIGHT_DEBUG"]
        if os.environ.get("PLAYWRIGHT_DEBUG_FILE"):
            worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
            name = os.environ["PLAYWRIGHT_DEBUG_FILE"]
            wanted["DEBUG_FILE"] = name.format(worker=worker, launch=len(_launches))
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


def close_browser() -> None:
    """Close this worker's Chromium and Playwright, if open (and the guests' contexts with it)."""
    _idle.clear()
    if _open:
        playwright, browser = _open
        _open.clear()
        try:
            browser.close()
        finally:
            playwright.stop()


@dataclass
class Guest:
    """A browser context kept open from test to test while the worker's Chromium is, for one
    guest at a time. Its first page stays open on about:blank: closing a context's last page,
    like closing the context, costs the next page a renderer's start (0.6 s of CPU against
    1.2-1.4 s for three pages of the site, measured alone). Between two tests it forgets what
    a new guest would not have: the test's pages (and with them their listeners, routes and
    session storage), cookies, every storage of each origin its pages went to (local storage,
    IndexedDB, cache storage, service workers), permissions and the HTTP cache. A test that
    changes the context itself otherwise (an init script, a context route, offline) takes a
    context of its own from `browser`.

    The origins are noted as the pages go to them and cleared over the DevTools protocol
    (`Storage.clearDataForOrigin`). Playwright's own `storage_state()` opens a page of its own
    and goes to every origin the context ever saw to read it: 0.29 s a test, growing with the
    origins (docs/testing.md)."""

    context: object
    blank: object = field(init=False)
    cdp: object = field(init=False)
    origins: set[str] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.context.on("page", self.watch)
        self.blank = self.context.new_page()
        self.cdp = self.context.new_cdp_session(self.blank)

    def watch(self, page) -> None:
        page.on("framenavigated", lambda frame: self.saw(frame.url))

    def saw(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https"):
            self.origins.add(f"{parts.scheme}://{parts.netloc}")

    def new_page(self, width: int, height: int):
        page = self.context.new_page()
        if (width, height) != (DESKTOP["width"], DESKTOP["height"]):
            page.set_viewport_size({"width": width, "height": height})
        return page

    def forget(self) -> None:
        for page in self.context.pages:
            if page != self.blank:
                page.close()
        self.context.clear_permissions()
        for origin in sorted(self.origins):
            self.cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        self.origins.clear()
        self.context.clear_cookies()
        self.cdp.send("Network.clearBrowserCache")


_idle: list[Guest] = []
"""This worker's guests that no test holds, while its Chromium is open."""


@pytest.fixture
def make_page(browser):
    """make_page(width=1280, height=800) -> a page of a new guest (a context of its own, no
    cookies); JavaScript errors on any of them fail the test."""
    guests: list[Guest] = []
    errors: list[str] = []

    def make(width: int = DESKTOP["width"], height: int = DESKTOP["height"]):
        guest = _idle.pop() if _idle else Guest(browser.new_context(**GUEST_CONTEXT))
        guests.append(guest)
        page = guest.new_page(width, height)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for guest in guests:
        try:
            guest.forget()
        except BaseException:
            guest.context.close()
            raise
        _idle.append(guest)
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(make_page):
    """A desktop-sized page of a new guest."""
    return make_page()


def relay_socket(page, pattern: str, *, from_server=None, from_page=None) -> None:
    """Route the page's sockets whose URL matches `pattern` through Playwright to the live
    server, so that a test sees or changes the frames on their way: `from_server(message)` and
    `from_page(message, page_side)` return the text to pass on, or None to keep it back
    (`page_side.send(text)` answers the page itself). A side with no hook passes all on."""

    def route(page_side):
        server_side = page_side.connect_to_server()

        def to_page(message):
            text = message if from_server is None else from_server(message)
            if text is not None:
                page_side.send(text)

        def to_server(message):
            text = message if from_page is None else from_page(message, page_side)
            if text is not None:
                server_side.send(text)

        server_side.on_message(to_page)
        page_side.on_message(to_server)

    page.route_web_socket(pattern, route)
