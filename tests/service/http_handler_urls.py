"""Views that tell the HTTP handler's tests where and how they ran (tests/service/test_http_handler.py)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from asgiref.sync import async_to_sync
from django.db import connection, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

seen: list[dict] = []  # one entry a request, in the order the views ran
release = threading.Event()  # the slow view waits for it
marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


def where(request: HttpRequest) -> JsonResponse:
    """Which thread the view runs on, and what the session middleware left on the request."""
    before = marker.get()
    marker.set("set by a request")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    seen.append({"thread": threading.current_thread().name, "connection": connections["default"]})
    return JsonResponse({"marker_before": before, "has_session": hasattr(request, "session")})


def slow(request: HttpRequest) -> HttpResponse:
    release.wait(10)
    return HttpResponse("slow")


def fast(request: HttpRequest) -> HttpResponse:
    return HttpResponse("fast")


def loop_of_async_code(request: HttpRequest) -> HttpResponse:
    async def running_loop() -> int:
        return id(asyncio.get_running_loop())

    return HttpResponse(str(async_to_sync(running_loop)()))


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a view that fails")


@csrf_exempt
def echo(request: HttpRequest) -> HttpResponse:
    return HttpResponse(request.body[::-1])


urlpatterns = [
    path("where/", where),
    path("slow/", slow),
    path("fast/", fast),
    path("loop/", loop_of_async_code),
    path("broken/", broken),
    path("echo/", echo),
]
