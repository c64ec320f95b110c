"""The site's own not-found page for its pages, whatever DEBUG is.

Django shows its technical 404 page under DEBUG (``make run``), and a newcomer trying the
product meets that first: every page view is wrapped so that an ``Http404`` it raises renders
``404.html`` with its plain reason ("no race with this code") instead. The JSON API keeps its
own answers.
"""

from __future__ import annotations

from functools import wraps
from inspect import iscoroutinefunction

from asgiref.sync import sync_to_async
from django.http import Http404
from django.shortcuts import render
from django.urls import URLPattern, URLResolver


def friendly_404(view):
    if iscoroutinefunction(view):  # an async view stays one (Django runs it on the loop)

        @wraps(view)
        async def awaited(request, *args, **kwargs):
            try:
                return await view(request, *args, **kwargs)
            except Http404 as exc:
                return await sync_to_async(not_found)(request, exc)  # the page reads the session

        return awaited

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except Http404 as exc:
            return not_found(request, exc)

    return wrapped


def not_found(request, exc: Http404):
    if request.path.startswith("/api/"):
        raise exc
    return render(request, "404.html", {"exception": str(exc)}, status=404)


def wrap_views(patterns) -> list:
    """`patterns` with every view (through includes) wrapped by `friendly_404`."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            wrap_views(entry.url_patterns)
        elif isinstance(entry, URLPattern):
            entry.callback = friendly_404(entry.callback)
    return patterns
