"""The report page: a signed-in player reports someone's ranked result (fairplay/actions.py)."""

import re

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_date
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from daily.models import DailyAttempt
from fairplay.actions import (
    REPORTS_PER_HOUR,
    ReportRefused,
    TooManyReports,
    check_reporter,
    do_report,
)
from fairplay.forms import ReportForm
from games.identity import current_player
from games.models import Game

RATE_LIMITED_STATUS = 429
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _back(request: HttpRequest) -> str:
    """Where to go after the report: `next`, else the page the form was opened from."""
    target = (
        request.POST.get("next")
        or request.GET.get("next")
        or request.headers.get("Referer", "").removeprefix(
            f"{request.scheme}://{request.get_host()}"
        )
    )
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home")


@require_http_methods(["GET", "POST"])
def report(request: HttpRequest, public_id: str) -> HttpResponse:
    """GET: the form (a reason, a note). POST: the report, or the page again with why it was
    refused (429 past the hourly limit)."""
    game = get_object_or_404(Game.objects.select_related("player"), public_id=public_id)
    return _report(request, game)


@require_http_methods(["GET", "POST"])
def report_daily(
    request: HttpRequest, variant: str, day: str, ranked_player_id: int
) -> HttpResponse:
    """The same for a row of a day's board: the player's ranked attempt of that day (a board
    names no game of today's, whose replay is not public yet)."""
    attempt = get_object_or_404(
        DailyAttempt.objects.select_related("game__player"),
        challenge__variant=variant,
        challenge__day=parse_date(day) if DAY.fullmatch(day) else None,
        player_id=ranked_player_id,
        ranked=True,
    )
    return _report(request, attempt.game)


def _report(request: HttpRequest, game: Game) -> HttpResponse:
    context = {
        "game": game,
        "action": request.path,
        "next": _back(request),
        "limit": REPORTS_PER_HOUR,
    }
    reporter = current_player(request, create=False)
    try:
        # Who may not report this result is told so at once, with no form to fill in vain.
        check_reporter(reporter, game)
    except ReportRefused as refused:
        context |= {"cannot": str(refused), "signed_in": request.user.is_authenticated}
        status = 403 if request.method == "POST" else 200
        return render(request, "fairplay/report.html", context, status=status)
    form = context["form"] = ReportForm(request.POST or None)
    if request.method == "GET":
        return render(request, "fairplay/report.html", context)
    status = 400
    if form.is_valid():
        try:
            do_report(reporter, game, form.cleaned_data["reason"], form.cleaned_data["note"])
        except ReportRefused as refused:
            status = RATE_LIMITED_STATUS if isinstance(refused, TooManyReports) else 400
            form.add_error(None, str(refused))
        else:
            messages.success(request, "Thank you: the result will be looked at by a person.")
            return redirect(context["next"])
    return render(request, "fairplay/report.html", context, status=status)
