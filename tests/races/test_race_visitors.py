"""A visitor (no account, no guest yet) and the POSTs that may make them a guest: setting up a
race, joining one, a rematch, a nickname, a ghost race. The one that does something for them
makes them a guest (kept in their session); a refused one makes no player, no user and no
session player: bad input changes nothing. And the POSTs' budget counts a player's POSTs, not a
visitor's, which would make the guest it counts."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from daily.actions import do_resign, get_challenge, start_attempt
from games.identity import SESSION_PLAYER_KEY
from games.models import Player
from games.throttles import RACE_FORMS
from races import actions
from races.lifecycle import RaceRuleError
from races.models import Race

pytestmark = pytest.mark.django_db

SET_UP = {
    "variant": "penguin",
    "deal": "random",
    "max_players": 4,
    "time_limit": "300",
    "visibility": "link",
    "name": "Vera",
}
"""The race set-up form as a browser sends it."""


def people() -> tuple[int, int]:
    return Player.objects.count(), get_user_model().objects.count()


def session_player(client: Client):
    return client.session.get(SESSION_PLAYER_KEY)


@pytest.fixture
def ann(make_client):
    return make_client("Ann")


def test_a_race_set_up_the_form_refuses_makes_the_visitor_no_guest():
    client, before = Client(), people()
    answer = client.post("/races/new/", {**SET_UP, "deal": "seed", "seed": 7, "rated": "on"})
    assert answer.status_code == 200 and answer.context["form"].errors
    assert people() == before and session_player(client) is None
    assert not Race.objects.exists()


def test_a_race_set_up_the_rules_refuse_makes_the_visitor_no_guest(monkeypatch):
    """A refusal only the race's rules know (the form passed): the guest made for the action
    goes with it."""

    def refuse(*args):
        raise RaceRuleError("bad_seed", "a seed is an integer from 0 to the largest")

    monkeypatch.setattr(actions, "check_race_settings", refuse)
    client, before = Client(), people()
    answer = client.post("/races/new/", SET_UP)
    assert "a seed is an integer" in answer.content.decode()
    assert people() == before and session_player(client) is None


def test_a_race_set_up_makes_the_visitor_its_host():
    client, (players, users) = Client(), people()
    answer = client.post("/races/new/", SET_UP)
    race = Race.objects.get()
    assert answer["Location"] == race.get_absolute_url()
    assert people() == (players + 1, users)
    assert session_player(client) == race.host_id
    assert race.host.nickname == "Vera" and race.racers.get().name == "Vera"


def test_a_refused_join_makes_the_visitor_no_guest(ann, make_client, make_race):
    full = make_race(ann, max_players=2)
    actions.do_join_race(full, make_client("Bea").player, name="Bea")
    client, before = Client(), people()
    client.post(f"/races/{full.code}/join/", {"name": "Vera"})
    assert people() == before and session_player(client) is None
    assert full.racers.count() == 2


def test_a_join_makes_the_visitor_a_guest_racing_under_their_name(ann, make_race):
    race = make_race(ann)
    client, (players, users) = Client(), people()
    client.post(f"/races/{race.code}/join/", {"name": "Vera"})
    racer = race.racers.get(name="Vera")
    assert people() == (players + 1, users)
    assert session_player(client) == racer.player_id


def test_a_visitors_rematch_is_refused_and_makes_no_guest(finished_race):
    client, before = Client(), people()
    client.post(f"/races/{finished_race.code}/rematch/")
    assert people() == before and session_player(client) is None
    assert Race.objects.count() == 1


def test_a_refused_nickname_makes_the_visitor_no_guest():
    client, before = Client(), people()
    answer = client.post("/accounts/nickname/", {"nickname": "   "})
    assert answer.status_code == 200 and answer.context["form"].errors
    assert people() == before and session_player(client) is None


def test_a_nickname_makes_the_visitor_a_guest_of_that_name():
    client, (players, users) = Client(), people()
    client.post("/accounts/nickname/", {"nickname": "Vera  V"})
    assert people() == (players + 1, users)
    assert Player.objects.get(pk=session_player(client)).nickname == "Vera V"


def test_a_refused_ghost_race_makes_the_visitor_no_guest(ann, settings):
    """Today's ranked run of another player may not be raced yet (its deal is still the day's
    secret): the refusal leaves no guest behind."""
    challenge = get_challenge("penguin", dt.datetime.now(dt.UTC).date())
    run, _ = start_attempt(ann.player, challenge)
    client, before = Client(), people()
    answer = client.post(f"/ghost/{run.game.public_id}/")
    assert answer.status_code == 302 and "/replay/" in answer["Location"]
    assert people() == before and session_player(client) is None


def test_a_ghost_race_on_a_finished_past_run_makes_the_visitor_a_guest(ann):
    old = get_challenge("penguin", dt.datetime.now(dt.UTC).date() - dt.timedelta(days=2))
    run, _ = start_attempt(ann.player, old)
    do_resign(run.game)
    client, (players, users) = Client(), people()
    answer = client.post(f"/ghost/{run.game.public_id}/")
    assert answer["Location"].startswith("/daily/")
    assert people() == (players + 1, users) and session_player(client) is not None


def test_the_posts_budget_counts_a_players_posts_and_not_a_visitors(ann, make_race):
    """A visitor's refused POSTs, past the budget, are each answered as refused, not 429 (and
    make no guest); a player's past the budget are refused with 429."""
    race = make_race(ann, max_players=2)
    actions.do_join_race(race, Player.objects.create(nickname="Bea"), name="Bea")
    RACE_FORMS.clear()
    client = Client()
    for _ in range(RACE_FORMS.limit + 2):
        assert client.post(f"/races/{race.code}/join/", {"name": "Vera"}).status_code == 302
    assert session_player(client) is None
    answers = [
        ann.post(f"/races/{race.code}/rematch/").status_code for _ in range(RACE_FORMS.limit + 1)
    ]
    assert answers[: RACE_FORMS.limit] == [302] * RACE_FORMS.limit and answers[-1] == 429
    RACE_FORMS.clear()
