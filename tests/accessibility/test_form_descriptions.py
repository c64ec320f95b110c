"""Forms read their help and their errors with their fields: every id an input names in
aria-describedby (Django names its help text and its errors there) is on the page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

FORMS = ["signup", "login", "nickname", "races:new"]


def missing_ids(html: str) -> dict[str, list[str]]:
    """{attribute="ids": [ids no element has]} for aria-describedby, aria-labelledby, for."""
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    missing = {}
    for attr, value in re.findall(r'\s(aria-describedby|aria-labelledby|for)="([^"]+)"', html):
        gone = [ref for ref in value.split() if ref not in ids]
        if gone:
            missing[f'{attr}="{value}"'] = gone
    return missing


@pytest.mark.parametrize("name", FORMS)
def test_what_a_field_points_at_is_on_the_page(client, name):
    """Each form's fields point at help and labels the page has (sign-up's username and
    password rules are read with their inputs)."""
    html = client.get(reverse(name)).content.decode()
    assert "<form" in html
    assert not missing_ids(html)


def test_sign_up_reads_its_help_and_errors_with_the_fields(client):
    """A refused sign-up: each field's help and its error, by the ids its input names."""
    html = client.get(reverse("signup")).content.decode()
    assert 'aria-describedby="id_username_helptext"' in html
    assert 'id="id_username_helptext"' in html
    html = client.post(
        reverse("signup"),
        {"username": "carol", "password1": "correct-horse-9", "password2": "different-horse-9"},
    ).content.decode()
    assert 'aria-invalid="true"' in html
    assert not missing_ids(html)
