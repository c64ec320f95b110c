"""The report page: a signed-in player reports someone's ranked result (fairplay/actions.py)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from fairplay.actions import REPORTS_PER_HOUR, ReportRefused, TooManyReports, do_report
from fairplay.models import Report
from games.identity import current_player
from games.models import Game

RATE_LIMITED_STATUS = 429


def _back(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
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
    context = {
        "game": game,
        "reasons": Report.Reason.choices,
        "next": _back(request),
        "limit": REPORTS_PER_HOUR,
    }
    if request.method == "GET":
        return render(request, "fairplay/report.html", context)
    reporter = current_player(request, create=False)
    try:
        if reporter is None:
            raise ReportRefused("Sign in to report a result.")
        do_report(
            reporter, game, request.POST.get("reason", ""), request.POST.get("note", "").strip()
        )
    except ReportRefused as refused:
        status = RATE_LIMITED_STATUS if isinstance(refused, TooManyReports) else 400
        return render(
            request, "fairplay/report.html", {**context, "refused": str(refused)}, status=status
        )
    messages.success(request, "Thank you: the result will be looked at by a person.")
    return redirect(context["next"])
