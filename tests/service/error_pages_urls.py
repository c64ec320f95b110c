"""The site's URLs and views that fail in each way, for tests/service/test_error_pages.py."""

from django.core.exceptions import BadRequest, DisallowedHost, PermissionDenied
from django.urls import include, path


def broken(request):
    raise RuntimeError("a bug")


def suspicious(request):
    raise DisallowedHost("a forged host")


def bad(request):
    raise BadRequest("a bad form")


def refused(request):
    raise PermissionDenied


urlpatterns = [
    path("broken/", broken),
    path("suspicious/", suspicious),
    path("bad/", bad),
    path("refused/", refused),
    path("", include("solitaire_site.urls")),
]
