"""The HTTP handler: each request whole on one of the process's HTTP threads, in one hop
(solitaire_site/http_handler.py)."""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import HttpCommunicator
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpRequest

from solitaire_site.http_handler import OneHopASGIHandler
from tests.service import http_handler_urls as views
from tests.support import left_for_the_collector

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.urls("tests.service.http_handler_urls"),
]

HOST = [(b"host", b"localhost")]


@pytest.fixture
def handler():
    views.seen.clear()
    views.release.clear()
    yield OneHopASGIHandler()
    views.release.set()


async def request(handler, path: str, method: str = "GET", body: bytes = b"") -> tuple[int, bytes]:
    communicator = HttpCommunicator(handler, method, path, body=body, headers=HOST)
    response = await communicator.get_response(timeout=10)
    return response["status"], response["body"]


async def test_a_request_runs_on_an_http_thread_with_its_middleware(handler):
    status, body = await request(handler, "/where/")
    assert status == 200
    assert b'"has_session": true' in body
    assert views.seen[0]["thread"].startswith("http")


@pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"],
    reason="the tests' in-memory SQLite keeps its one connection open by design",
)
async def test_the_threads_database_connection_goes_back_after_each_request(handler):
    for _ in range(3):
        await request(handler, "/where/")
    assert [entry["connection"].connection for entry in views.seen] == [None, None, None]


async def test_nothing_a_request_sets_in_its_context_reaches_the_next(handler):
    bodies = [(await request(handler, "/where/"))[1] for _ in range(15)]
    assert all(b'"marker_before": "unset"' in body for body in bodies)


async def test_a_slow_request_holds_no_other(handler):
    slow = asyncio.create_task(request(handler, "/slow/"))
    await asyncio.sleep(0.1)
    assert await asyncio.wait_for(request(handler, "/fast/"), 5) == (200, b"fast")
    assert not slow.done()
    views.release.set()
    assert await slow == (200, b"slow")


async def test_async_code_a_view_calls_runs_on_the_event_loop(handler):
    status, body = await request(handler, "/loop/")
    assert status == 200
    assert int(body) == id(asyncio.get_running_loop())


async def test_a_failing_view_is_a_500_and_the_next_request_is_served(handler, settings):
    settings.DEBUG = False
    status, _ = await request(handler, "/broken/")
    assert status == 500
    assert await request(handler, "/fast/") == (200, b"fast")


async def test_a_request_body_reaches_the_view(handler):
    assert await request(handler, "/echo/", "POST", b"abc") == (200, b"cba")


async def test_a_non_http_scope_is_refused(handler):
    with pytest.raises(ValueError, match="only handle ASGI/HTTP"):
        await handler({"type": "websocket"}, None, None)


async def test_a_served_request_leaves_nothing_for_the_collector(handler):
    await request(handler, "/where/")  # the first request builds what is built once
    with left_for_the_collector(HttpRequest, SessionBase) as left:
        await request(handler, "/where/")
    assert left == []
