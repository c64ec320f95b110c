"""The site's own error pages under DEBUG too (``make run``).

With DEBUG off Django answers a 400, 403, 404 or 500 with the templates of the same names
(frontend/templates). With DEBUG on it shows its technical pages instead: every URL pattern and
"You have DEBUG = True" for an address nothing matches, a traceback for an error. A newcomer
trying the product meets those first, so `SiteErrorPages` (first in MIDDLEWARE, present only
under DEBUG) answers as production does:

- an address no pattern matches, and an `Http404` a view raises (with its plain reason, "There
  is no race with this code."): ``404.html``;
- a `SuspiciousOperation` or `BadRequest` (400) or any uncaught error (500), wherever it is raised: Django builds
  its debug page with the request's ``exception_reporter_class`` (its documented per-request
  hook), which here renders ``400.html`` or ``500.html``. Django still logs the traceback to the
  console as before.

403s need nothing: Django renders ``403.html`` and ``403_csrf.html`` whatever DEBUG is.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import BadRequest, MiddlewareNotUsed, SuspiciousOperation
from django.http import Http404
from django.http.multipartparser import MultiPartParserError
from django.template import loader
from django.urls import Resolver404
from django.views import defaults
from django.views.debug import ExceptionReporter

BAD_REQUESTS = (SuspiciousOperation, BadRequest, MultiPartParserError)  # Django answers 400


class SiteErrorReporter(ExceptionReporter):
    """What Django's debug error page shows: the site's page, not the traceback."""

    def bad_request(self) -> bool:
        return self.exc_type is not None and issubclass(self.exc_type, BAD_REQUESTS)

    def get_traceback_html(self) -> str:
        return loader.render_to_string("400.html" if self.bad_request() else "500.html")

    def get_traceback_text(self) -> str:
        if self.bad_request():
            return "Bad request: the server could not read this request.\n"
        return "Server error: the server could not answer this request. Please try again.\n"


class SiteErrorPages:
    def __init__(self, get_response) -> None:
        if not settings.DEBUG:
            raise MiddlewareNotUsed  # Django's own handlers use the same templates
        self.get_response = get_response

    def __call__(self, request):
        request.exception_reporter_class = SiteErrorReporter
        response = self.get_response(request)
        if response.status_code == 404 and request.resolver_match is None:
            # No pattern matched (Django resolves before any view): its debug page lists them.
            return defaults.page_not_found(request, Resolver404())
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, Http404):
            return defaults.page_not_found(request, exception)
        return None
