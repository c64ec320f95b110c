"""Query and path parameters of the pages and the JSON API: each check returns the value or
raises BadParameter; and the API's answers to what cannot be used (`json_get`, `error`), and
the pages' (`bad_request`)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import render
from django.utils import timezone

from games.engine import VARIANT_INFO, VARIANTS
from games.models import Player, Variant
from games.rows import one_or_none

MAX_PER_PAGE = 100
DEFAULT_PER_PAGE = 25
MAX_PAGE = 100_000
_INT = re.compile(r"[0-9]{1,9}")


class BadParameter(ValueError):
    """A parameter that cannot be used; ``reason`` says which and why."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


def variant(value: str) -> str:
    if value not in Variant.values:
        raise BadParameter(
            "variant", f"unknown variant {value!r}; one of {', '.join(Variant.values)}"
        )
    return value


def known_variant(value: str) -> dict:
    """A page's variant: its VARIANT_INFO entry with its id; 404 for an unknown variant."""
    if value not in VARIANTS:
        raise Http404(f"There is no variant called “{value}”.")
    return {"id": value, **VARIANT_INFO[value]}


def day(value: str) -> dt.date:
    """A UTC date as YYYY-MM-DD, not after today."""
    try:
        parsed = dt.date.fromisoformat(value) if len(value) == 10 else None
    except ValueError:
        parsed = None
    if parsed is None:
        raise BadParameter("day", f"{value!r} is not a date written YYYY-MM-DD")
    if parsed > timezone.now().astimezone(dt.UTC).date():
        raise BadParameter("day", f"{value} has not begun yet (UTC)")
    return parsed


def whole(name: str, value: str | None, default: int, low: int, high: int) -> int:
    if value is None or value == "":
        return default
    if not _INT.fullmatch(value) or not low <= int(value) <= high:
        raise BadParameter(name, f"{value!r} is not a whole number from {low} to {high}")
    return int(value)


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` rows fill at `per_page` a page: one at least (nothing to list is
    one page, that says so)."""
    return max(1, -(-total // per_page))


def page(query) -> tuple[int, int]:
    """(page, per_page) from ?page=&per_page=; pages count from 1."""
    return (
        whole("page", query.get("page"), 1, 1, MAX_PAGE),
        whole("per_page", query.get("per_page"), DEFAULT_PER_PAGE, 1, MAX_PER_PAGE),
    )


def player(value: str | None) -> Player | None:
    """?player=<id>: a player whose row to find, or None when not asked."""
    if value is None or value == "":
        return None
    found = one_or_none(Player.objects.filter(pk=whole("player", value, 0, 1, 2**31 - 1)))
    if found is None:
        raise BadParameter("player", f"there is no player {value}")
    return found


def allowed(query, names: set[str]) -> None:
    """Unknown parameters are refused rather than silently ignored (a typo would mislead)."""
    unknown = sorted(set(query) - names)
    if unknown:
        raise BadParameter(unknown[0], f"unknown parameter; allowed: {', '.join(sorted(names))}")


def error(status: int, code: str, reason: str, **extra) -> JsonResponse:
    """An API answer that says what cannot be done and why."""
    return JsonResponse({"error": code, "reason": reason, **extra}, status=status)


def json_get(view: Callable) -> Callable:
    """An API view: GET only; BadParameter becomes a 400 with the reason."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return error(405, "method_not_allowed", "only GET is allowed here")
        try:
            return view(request, *args, **kwargs)
        except BadParameter as exc:
            return error(400, "bad_parameter", exc.reason, parameter=exc.name)

    return wrapped


def bad_request(request: HttpRequest, reason: str) -> HttpResponse:
    """A page's answer to a parameter it cannot use: 400, with the reason."""
    return HttpResponseBadRequest(render(request, "bad_request.html", {"reason": reason}).content)
