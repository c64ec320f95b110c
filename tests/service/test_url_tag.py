"""`{% url %}` remembers the addresses it reverses and renders exactly what Django's would
(solitaire_site/url_tag.py)."""

from __future__ import annotations

import pytest
from django.template import Context, Engine, Template
from django.urls import NoReverseMatch, reverse, set_script_prefix
from django.utils.safestring import mark_safe

from solitaire_site import url_tag


def render(source: str, **context) -> str:
    return Template("{% load static %}" + source).render(Context(context))


@pytest.fixture(autouse=True)
def forget():
    url_tag._reverse.cache_clear()
    yield
    set_script_prefix("/")


def test_it_is_the_url_tag_of_every_template():
    assert Engine.get_default().template_builtins[-1].tags["url"] is url_tag.url


@pytest.mark.parametrize(
    "source, name, args",
    [
        ("{% url 'home' %}", "home", []),
        ("{% url 'daily:player' 42 %}", "daily:player", [42]),
        ("{% url 'daily:board' variant day %}", "daily:board", ["penguin", "2026-11-25"]),
        ("{% url 'daily:replay' public_id=game %}", "daily:replay", None),
    ],
)
def test_it_renders_what_django_reverses(source, name, args):
    context = {"variant": "penguin", "day": "2026-11-25", "game": "abc123"}
    expected = (
        reverse(name, args=args)
        if args is not None
        else reverse(name, kwargs={"public_id": "abc123"})
    )
    assert render(source, **context) == render(source, **context) == expected


def test_an_address_is_reversed_once(monkeypatch):
    calls = []
    real = url_tag.reverse
    monkeypatch.setattr(url_tag, "reverse", lambda *a, **k: calls.append(a) or real(*a, **k))
    for _ in range(3):
        render("{% url 'daily:player' 7 %}{% url 'daily:player' 8 %}")
    assert calls == [("daily:player",), ("daily:player",)]


def test_other_arguments_are_reversed_every_time(monkeypatch):
    """Anything not exactly a string or a number (here a string subclass) is never remembered:
    its text might not be all that decides the address."""
    calls = []
    real = url_tag.reverse
    monkeypatch.setattr(url_tag, "reverse", lambda *a, **k: calls.append(a) or real(*a, **k))
    for _ in range(2):
        assert render("{% url 'daily:replay' game %}", game=mark_safe("abc")) == "/replay/abc/"
    assert len(calls) == 2


def test_as_a_variable_and_a_missing_name():
    assert render("{% url 'home' as where %}[{{ where }}]") == f"[{reverse('home')}]"
    assert render("{% url 'no-such-page' as where %}[{{ where }}]") == "[]"
    with pytest.raises(NoReverseMatch):
        render("{% url 'no-such-page' %}")


def test_the_script_prefix_is_part_of_what_is_remembered():
    plain = render("{% url 'home' %}")
    set_script_prefix("/solitaire/")
    assert render("{% url 'home' %}") == "/solitaire" + plain
