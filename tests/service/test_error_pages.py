"""Every 400, 403, 404 and 500 is the site's own page with DEBUG on, as under `make run`: never
Django's debug page, its URL patterns or a traceback (solitaire_site/notfound.py)."""

from __future__ import annotations

import pytest
from django.test import Client

DEBUG_PAGE = ("DEBUG = True", "URLconf", "Traceback", "django")


@pytest.fixture
def debug_client(settings, db):
    """A test client of the site with DEBUG on, errors answered instead of raised in the test."""
    settings.DEBUG = True
    settings.ROOT_URLCONF = "tests.service.error_pages_urls"
    return Client(raise_request_exception=False)


def page_of(response) -> str:
    text = response.content.decode()
    for sign in DEBUG_PAGE:
        assert sign not in text, f"Django's debug page ({sign!r}) at {response.status_code}"
    return text


@pytest.mark.parametrize("path", ["/nope/", "/play/penguin/12/winnable/", "/races/ABC234/x/y/"])
def test_an_address_that_matches_nothing_gets_the_sites_404(debug_client, path):
    response = debug_client.get(path)
    assert response.status_code == 404
    text = page_of(response)
    assert "This page is not in the deck" in text and f"<code>{path}</code>" in text


def test_a_views_404_keeps_its_reason(debug_client):
    response = debug_client.get("/races/ZZZZZZ/")
    assert response.status_code == 404
    assert "There is no race with this code." in page_of(response)


def test_a_missing_slash_still_redirects(debug_client):
    assert debug_client.get("/races")["Location"] == "/races/"


def test_an_error_gets_the_sites_500(debug_client):
    response = debug_client.get("/broken/")
    assert response.status_code == 500
    assert "Something went wrong" in page_of(response)


@pytest.mark.parametrize("path", ["/suspicious/", "/bad/"])
def test_a_bad_request_gets_the_sites_400(debug_client, path):
    response = debug_client.get(path)
    assert response.status_code == 400
    assert "The server could not read that request" in page_of(response)


def test_a_forged_host_gets_the_sites_400_before_any_view(debug_client):
    """DisallowedHost is raised by a middleware, on an address that matches nothing."""
    response = debug_client.get("/nope/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert "The server could not read that request" in page_of(response)


def test_a_refusal_gets_the_sites_403(debug_client):
    response = debug_client.get("/refused/")
    assert response.status_code == 403
    assert "That is not yours to open" in page_of(response)


def test_a_failed_csrf_check_gets_the_sites_403(settings, db):
    settings.DEBUG = True
    response = Client(enforce_csrf_checks=True).post("/races/new/", {"variant": "penguin"})
    assert response.status_code == 403
    assert "That form has expired" in page_of(response)


def test_without_debug_the_same_pages(settings, db):
    settings.ROOT_URLCONF = "tests.service.error_pages_urls"
    client = Client(raise_request_exception=False)
    assert "This page is not in the deck" in page_of(client.get("/nope/"))
    assert "Something went wrong" in page_of(client.get("/broken/"))
    assert "The server could not read that request" in page_of(client.get("/suspicious/"))
