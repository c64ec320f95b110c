"""A GET creates nothing: a guest, its session and its game come into being when the visitor
acts (its first move, joining, creating), never when it looks. A shared deal link opened by a
crawler or a link preview writes no row."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from daily.models import DailyAttempt
from games.models import Game, Move, Player
from races.models import Race, Racer

pytestmark = pytest.mark.django_db

TABLES = (Player, Session, Game, Move, Race, Racer, DailyAttempt)


def rows() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in TABLES}


@pytest.fixture
def race(make_race, make_client):
    return make_race(make_client("Host"))


def pages(race) -> list[str]:
    today = timezone.now().date().isoformat()
    return [
        "/play/penguin/42/",
        "/play/queenie/7/",
        "/races/new/",
        f"/races/{race.code}/",
        "/races/",
        "/accounts/nickname/",
        "/",
        "/daily/",
        "/daily/penguin/",
        f"/daily/penguin/{today}/",
        "/leaderboards/",
        "/leaderboards/races/",
        f"/players/{race.host_id}/",
        "/api/daily/",
    ]


def test_cookie_less_gets_write_no_row(race):
    """A crawler: every GET without cookies, three times over, and not one row more."""
    before = rows()
    for _ in range(3):
        for path in pages(race):
            assert Client().get(path).status_code == 200, path
    assert rows() == before


def test_a_visitor_s_repeated_gets_write_no_row(race):
    """One browser (keeping its cookies) looking around: still nothing."""
    client = Client()
    before = rows()
    for path in pages(race) * 2:
        client.get(path)
    assert rows() == before
    assert "sessionid" not in client.cookies


def test_the_first_action_makes_the_guest_its_session_and_its_game():
    """The practice page's first action (its POST) is what makes the guest, the session and the
    game: one of each, whatever the looks before it."""
    client = Client()
    client.get("/play/penguin/42/")
    before = rows()
    client.post("/play/penguin/42/", HTTP_ACCEPT="application/json")
    after = rows()
    assert {k: after[k] - before[k] for k in after} == {
        **{k: 0 for k in after},
        "Player": 1,
        "Session": 1,
        "Game": 1,
    }


def test_joining_a_race_makes_the_guest(race):
    """Looking at a race makes nobody; joining it makes the guest and the racer."""
    client = Client()
    client.get(f"/races/{race.code}/")
    before = rows()
    client.post(f"/races/{race.code}/join/", {"name": "Zed"})
    assert rows()["Player"] == before["Player"] + 1
    assert rows()["Racer"] == before["Racer"] + 1
    assert Racer.objects.filter(race=race, name="Zed").exists()


def test_the_first_action_s_post_needs_the_page_s_csrf_token():
    """Another site cannot start games (and make guests) in a visitor's name: without the
    token the POST is refused and writes nothing; with the page's token it starts the game."""
    client = Client(enforce_csrf_checks=True)
    page = client.get("/play/penguin/42/")
    before = rows()
    assert client.post("/play/penguin/42/", HTTP_ACCEPT="application/json").status_code == 403
    assert rows() == before
    token = page.context["csrf_token"]
    reply = client.post(
        "/play/penguin/42/", HTTP_ACCEPT="application/json", HTTP_X_CSRFTOKEN=str(token)
    )
    assert reply.status_code == 200 and Game.objects.filter(public_id=reply.json()["game"]).exists()
