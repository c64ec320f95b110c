"""The accessibility walk's list of pages comes from the URL configuration (tests/axe_support.py):
a route added to any app is in it, with its path parameters filled."""

from __future__ import annotations

import importlib

import pytest
from django.urls import clear_url_caches, path

from tests.axe_support import Route, route_path, site_routes


def test_every_route_outside_the_admin_is_listed():
    """Named routes of every app are listed under their namespaces; Django's admin is not."""
    names = {route.name for route in site_routes()}
    assert {"home", "play", "signup", "races:list", "races:race", "ratings:board"} <= names
    assert {"records:replay", "records:player", "login", "favicon.ico"} <= names
    assert not [name for name in names if name.startswith("admin")]


def test_a_new_route_is_listed_without_anyone_adding_it(monkeypatch, settings):
    """A route appended to the URL configuration is in the walk at once."""
    root = importlib.import_module(settings.ROOT_URLCONF)
    added = path("new-page/<int:number>/", lambda request, number: None, name="x")
    monkeypatch.setattr(root, "urlpatterns", [*root.urlpatterns, added])
    clear_url_caches()
    try:
        assert Route("x", "new-page/<int:number>/", ("number",)) in site_routes()
    finally:
        monkeypatch.undo()
        clear_url_caches()


def test_path_parameters_are_filled_by_name():
    """Each `<converter:name>` takes the sample value of that name; a name with no sample is
    an error that names the route."""
    route = Route("records:board", "daily/<str:variant>/<str:day>/", ("variant", "day"))
    values = {"variant": "penguin", "day": "2026-11-26"}
    assert route_path(route, values) == "/daily/penguin/2026-11-26/"
    with pytest.raises(KeyError, match="records:board.*day"):
        route_path(route, {"variant": "penguin"})
