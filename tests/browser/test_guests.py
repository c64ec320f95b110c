"""A browser test's guest is a new visitor: the context a worker keeps from test to test
(tests/browser_support.py `Guest`) forgets, between two tests, everything a visitor leaves in
the browser, on every origin its pages went to, the ones they left included."""

import pytest

from tests.browser_support import DESKTOP, GUEST_CONTEXT, Guest

pytestmark = pytest.mark.browser

LEAVE_TRACES = """async () => {
    localStorage.setItem("trace", "1");
    document.cookie = "trace=1; path=/";
    await new Promise((done, fail) => {
        const request = indexedDB.open("trace");
        request.onupgradeneeded = () => request.result.createObjectStore("kept");
        request.onsuccess = () => { request.result.close(); done(); };
        request.onerror = () => fail(request.error);
    });
    await (await caches.open("trace")).put("/trace", new Response("1"));
}"""

TRACES = """async () => ({
    local: localStorage.getItem("trace"),
    cookie: document.cookie.split("; ").includes("trace=1"),
    databases: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
})"""

NONE = {"local": None, "cookie": False, "databases": [], "caches": []}
LEFT = {"local": "1", "cookie": True, "databases": ["trace"], "caches": ["trace"]}


def test_a_guest_forgets_every_origin_its_pages_went_to(browser, live_url):
    here, there = live_url, live_url.replace("127.0.0.1", "localhost")
    guest = Guest(browser.new_context(**GUEST_CONTEXT))
    try:
        page = guest.new_page(**DESKTOP)
        for origin in (here, there):  # one page: the first origin is left behind
            page.goto(f"{origin}/healthz")
            page.evaluate(LEAVE_TRACES)
            assert page.evaluate(TRACES) == LEFT
        guest.forget()
        assert guest.context.pages == [guest.blank]
        page = guest.new_page(**DESKTOP)
        for origin in (here, there):
            page.goto(f"{origin}/healthz")
            assert page.evaluate(TRACES) == NONE, origin
    finally:
        guest.context.close()
