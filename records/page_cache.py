"""Whole board pages for visitors who bring nothing of their own, from the cache.

A visitor with no session and no pending messages (someone following a shared link, a crawler,
a link preview) sees exactly what every such visitor sees: no name in the header, no row of
their own, no message. For them a board page is kept whole in the cache under its address and
what else decides it (the board's stamp, whether its day's replays are open, today's date; the
newest race for the races lists, records/recent_races.py); the one part that is theirs, the CSRF token of
the ghost forms, goes into its slot as the page is served. Everyone else gets the page built,
with its rows table from the cache (records/views.py).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string

CSRF_SLOT = "csrf-token-of-this-request"
PAGE_SECONDS = 600


def brings_nothing(request: HttpRequest) -> bool:
    """No session (so no account, no guest) and no messages waiting in a cookie."""
    cookies = request.COOKIES
    return (
        request.method == "GET"
        and settings.SESSION_COOKIE_NAME not in cookies
        and CookieStorage.cookie_name not in cookies
    )


def page_key(request: HttpRequest, *parts) -> str | None:
    """The cache key of this request's whole page, or None if the page is the visitor's own (or
    a part is None: nothing to key it on)."""
    if not brings_nothing(request) or any(part is None for part in parts):
        return None
    return ":".join(["board-page", request.get_full_path(), *map(str, parts)])


def cached_page(request: HttpRequest, key: str | None) -> HttpResponse | None:
    html = cache.get(key) if key else None
    return None if html is None else _serve(request, html)


def render_page(
    request: HttpRequest,
    key: str | None,
    template: str,
    context: dict,
    seconds: int | None = None,
) -> HttpResponse:
    """The page rendered with a slot for the token, and kept under ``key`` (for ``seconds``,
    else `PAGE_SECONDS`)."""
    html = render_to_string(template, {**context, "csrf_token": CSRF_SLOT}, request)
    if key:
        cache.set(key, html, PAGE_SECONDS if seconds is None else seconds)
    return _serve(request, html)


def _serve(request: HttpRequest, html: str) -> HttpResponse:
    return HttpResponse(html.replace(CSRF_SLOT, get_token(request)))
