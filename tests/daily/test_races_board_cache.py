"""The recent races list is cached under its newest race (records/recent_races.py), itself remembered
until a race closes: a page read again costs no query, and a race that closes is listed at once,
not when the cache expires."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Player
from races import actions
from races.models import Race, Racer
from tests.race_support import out_of_time

pytestmark = pytest.mark.django_db


def finish_race(code: str, minutes_ago: int, names: list[str]) -> Race:
    now = timezone.now()
    players = [Player.objects.create(nickname=name) for name in names]
    race = Race.objects.create(
        code=code,
        host=players[0],
        variant="penguin",
        seed=1,
        visibility=Race.Visibility.PUBLIC,
        status=Race.Status.FINISHED,
        starts_at=now - dt.timedelta(hours=1),
        ends_at=now - dt.timedelta(minutes=30),
        finished_at=now - dt.timedelta(minutes=minutes_ago),
    )
    for place, player in enumerate(players, start=1):
        Racer.objects.create(
            race=race,
            player=player,
            name=player.nickname,
            status=Racer.Status.WON,
            cards=52,
            finish_ms=place * 1000,
            done_ms=place * 1000,
            place=place,
        )
    return race


def closed_race(names: list[str]) -> Race:
    """A public race of these players, closed now at its time limit (the close the service
    makes: what follows it, the list's newest race forgotten, included)."""
    players = [Player.objects.create(nickname=name) for name in names]
    race = actions.do_create_race(
        players[0], variant="penguin", time_limit_s=300, visibility=Race.Visibility.PUBLIC
    )
    for player in players[1:]:
        actions.do_join_race(race, player)
    actions.do_start_race(race, players[0])
    out_of_time(race)
    assert actions.do_close_if_due(race)
    return race


def without_tokens(html: str) -> str:
    """The page without its CSRF tokens (each request's own: the header's Quick race form)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def codes(client, url: str) -> list[str]:
    return [row["code"] for row in client.get(url).json()["rows"]]


def test_a_page_read_again_costs_no_query(client):
    finish_race("AAAAAA", 20, ["ann", "bob"])
    finish_race("BBBBBB", 10, ["cat", "dan"])
    first = client.get("/api/leaderboards/races/").json()
    with CaptureQueriesContext(connection) as captured:
        again = client.get("/api/leaderboards/races/").json()
    assert again == first
    assert [row["code"] for row in again["rows"]] == ["BBBBBB", "AAAAAA"]
    assert len(captured.captured_queries) == 0, "the newest race is remembered too"


@pytest.mark.usefixtures("no_countdown")
def test_a_race_that_closes_is_listed_at_once(client):
    finish_race("AAAAAA", 20, ["ann", "bob"])
    assert codes(client, "/api/leaderboards/races/") == ["AAAAAA"]
    assert codes(client, "/api/leaderboards/races/?variant=penguin") == ["AAAAAA"]
    assert "AAAAAA" in client.get("/leaderboards/races/").content.decode()
    code = closed_race(["cat", "dan"]).code
    assert codes(client, "/api/leaderboards/races/") == [code, "AAAAAA"]
    assert codes(client, "/api/leaderboards/races/?variant=penguin") == [code, "AAAAAA"]
    assert code in client.get("/leaderboards/races/").content.decode()
    assert code in client.get("/leaderboards/").content.decode()


@pytest.mark.parametrize("url", ["/leaderboards/races/", "/leaderboards/"])
def test_a_page_read_again_shows_the_same_table_without_rendering_it(client, url, monkeypatch):
    finish_race("AAAAAA", 20, ["ann", "bob"])
    first = client.get(url).content.decode()
    rendered = []
    from records import views

    monkeypatch.setattr(views, "_races_table", lambda data: rendered.append(data) or "")
    again = client.get(url).content.decode()
    assert without_tokens(again) == without_tokens(first) and "AAAAAA" in again and rendered == []
