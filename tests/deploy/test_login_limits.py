"""Password guessing is limited per account and per address (django-axes, settings.py).

Before: 100 wrong passwords for one account in a row were all answered 200 at the speed of the
password hasher, then the right one logged in. Now the limit's failures are answered as usual,
the next attempt is refused 429 with the reason, the right password does not get in while the
lock holds, and the lock ends with its cool-off or with `manage.py axes_reset_username`.
"""

from __future__ import annotations

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

pytestmark = pytest.mark.django_db

LOCKED = "Too many failed log-ins for this account or from your address"


def login(client, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def fail_up_to_the_limit(client, username: str, address: str = "203.0.113.7") -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        reply = login(client, username, "wrong", address)
        assert reply.status_code == 200 and LOCKED not in reply.content.decode()


def test_guessing_one_account_is_stopped_and_the_right_password_waits(client, user, password):
    """The limit's failures are answered 200; then 429 with the reason, even for the right
    password, from another address too (the lock is the account's)."""
    fail_up_to_the_limit(client, "bob")
    locked = login(client, "bob", "wrong")
    assert locked.status_code == 429 and LOCKED in locked.content.decode()
    assert '<form class="card-form"' in locked.content.decode()  # the form, to try later
    assert login(client, "bob", password).status_code == 429
    assert login(client, "bob", password, address="198.51.100.9").status_code == 429
    assert "_auth_user_id" not in client.session


def test_guessing_from_one_address_is_stopped_for_every_account(client, user, password):
    """Failures spread over many usernames from one address lock that address, not others."""
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, f"someone{n}", "wrong").status_code == 200
    assert login(client, "someone-else", "wrong").status_code == 429
    assert login(client, "bob", password).status_code == 429
    assert login(client, "bob", password, address="198.51.100.9").status_code == 302


def test_a_reset_unlocks_the_account_at_once(client, user, password):
    """The documented unlock: manage.py axes_reset_username."""
    fail_up_to_the_limit(client, "bob")
    login(client, "bob", "wrong")
    call_command("axes_reset_username", "bob")
    assert login(client, "bob", password).status_code == 302


def test_the_lock_ends_with_its_cool_off(client, user, password):
    fail_up_to_the_limit(client, "bob")
    login(client, "bob", "wrong")
    assert login(client, "bob", password).status_code == 429
    long_ago = settings.AXES_COOLOFF_TIME + dt.timedelta(seconds=1)
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= long_ago
        attempt.save()
    assert login(client, "bob", password).status_code == 302


def test_a_good_login_under_the_limit_is_not_held_up(client, user, password):
    fail_up_to_the_limit(client, "bob")
    assert login(client, "bob", password).status_code == 302


@pytest.mark.parametrize(
    ("cooloff", "wait"), [(1, "Try again in 1 minute."), (15, "Try again in 15 minutes.")]
)
def test_the_lock_says_how_long_to_wait_in_plain_english(client, user, settings, cooloff, wait):
    """A lock of one minute says '1 minute', not '1 minutes'."""
    settings.AXES_COOLOFF_TIME = dt.timedelta(minutes=cooloff)
    fail_up_to_the_limit(client, "bob")
    assert wait in login(client, "bob", "wrong").content.decode()
