"""What a locked-out login gets (django-axes' AXES_LOCKOUT_CALLABLE, settings.py).

The login page again, with the reason and how long to wait, answered 429: a person sees why
the right password does not work now, and a script sees that it is being limited.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import pluralize


def lockout_message() -> str:
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    return (
        "Too many failed log-ins for this account or from your address. "
        f"Try again in {minutes} minute{pluralize(minutes)}."
    )


class LockedOutForm(AuthenticationForm):
    """The login form as posted, refused with the lock's reason without authenticating again
    (which would count one more failure)."""

    def clean(self):
        raise ValidationError(lockout_message(), code="locked_out")


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    form = LockedOutForm(request, data=request.POST)
    form.is_valid()
    context = {"form": form, "next": request.POST.get("next", "")}
    return render(request, "registration/login.html", context, status=429)
