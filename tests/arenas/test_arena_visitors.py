"""A visitor (no account, no guest yet) and the arenas' POSTs: the one that does something for
them (an arena set up, an arena joined) makes them a guest; a refused one (a setting the rules
refuse, an arena that has ended or was removed under the press, pausing or leaving an arena
they are not in) makes no guest, no session player and no user. And the set-up form says every
setting it refuses, each beside its own field."""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from arenas import actions
from arenas.models import Arena, ArenaPlayer
from games.identity import SESSION_PLAYER_KEY
from games.models import Player

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}
"""How the arena page's script sends its buttons; a form without scripts sends no Accept."""


def people() -> tuple[int, int]:
    return Player.objects.count(), get_user_model().objects.count()


def session_player(client: Client):
    return client.session.get(SESSION_PLAYER_KEY)


def set_up(client: Client, **changes):
    """The set-up form as a browser sends it, a start an hour ahead (UTC), "Join it myself"
    ticked."""
    start = (timezone.now() + timedelta(hours=1)).astimezone(UTC)
    form = {
        "variant": "penguin",
        "starts_at": f"{start:%Y-%m-%dT%H:%M}",
        "minutes": 30,
        "race_time_limit_s": 300,
        "visibility": "link",
        "join": "on",
        **changes,
    }
    return client.post(reverse("arenas:new"), form)


PAST = f"{datetime(2001, 1, 1, 12, 0, tzinfo=UTC):%Y-%m-%dT%H:%M}"


@pytest.mark.parametrize(
    "refused",
    [
        {"starts_at": PAST},  # the rules' refusal
        {"starts_at": f"{timezone.now() + timedelta(days=40):%Y-%m-%dT%H:%M}"},
        {"minutes": 5, "race_time_limit_s": 600},  # a race longer than the arena
        {"minutes": 4},  # the form's own
        {"minutes_ahead_of_utc": "Europe/Paris"},
    ],
)
def test_a_refused_set_up_makes_the_visitor_no_guest(refused):
    client = Client()
    before = people()
    answer = set_up(client, **refused)
    assert answer.status_code == 200 and answer.context["form"].errors
    assert people() == before and not Arena.objects.exists()
    assert session_player(client) is None


def test_an_accepted_set_up_makes_the_visitor_its_organiser_and_player():
    client = Client()
    players, users = people()
    answer = set_up(client)
    arena = Arena.objects.get()
    assert answer.url == arena.get_absolute_url()
    assert people() == (players + 1, users)
    assert session_player(client) == arena.created_by_id == arena.players.get().player_id


def field_of(page: str, name: str) -> str:
    """The set-up form's block of one field: its label, input, errors and help."""
    start = page.index(f'<div class="field field-{name}">')
    return page[start : page.index("</div>", start)]


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        (
            {"starts_at": PAST, "minutes": 5, "race_time_limit_s": 600},
            {
                "starts_at": "The start is in the past.",
                "race_time_limit_s": "A race&#x27;s time limit is 15 s to the arena&#x27;s length.",
            },
        ),
        (
            {"starts_at": PAST, "minutes": 4},
            {
                "starts_at": "The start is in the past.",
                "minutes": "Pick one of the lengths (5 to 180 minutes).",
            },
        ),
    ],
)
def test_every_refused_setting_is_said_beside_its_own_field(bad, said):
    """Two wrong settings at once: each field says its own, marked invalid and described by its
    message, not only the first the rules met (nor only the form's own where the rules' are
    wrong too)."""
    answer = set_up(Client(), **bad)
    assert answer.status_code == 200 and not Arena.objects.exists()
    assert set(answer.context["form"].errors) == set(said)
    page = answer.content.decode()
    for name, message in said.items():
        field = field_of(page, name)
        assert f'<ul class="errorlist" id="id_{name}_error"><li>{message}</li></ul>' in field
        assert 'aria-invalid="true"' in field
        described = field.split('aria-describedby="')[1].split('"')[0].split()
        assert f"id_{name}_error" in described
    assert "errorlist nonfield" not in page


def press(client: Client, arena: Arena, button: str, script: bool, **form):
    return client.post(f"/arenas/{arena.public_id}/{button}/", form, **(JSON if script else {}))


@pytest.mark.parametrize("script", [True, False])
@pytest.mark.parametrize(
    ("button", "form"),
    [("join", {}), ("join", {"resume": "1"}), ("pause", {"paused": "1"}), ("leave", {})],
)
def test_a_refused_button_makes_the_visitor_no_guest(make_arena, button, form, script):
    """Join and Resume on an ended arena, Pause and Leave on one they are not in."""
    arena = make_arena(starts_in_s=-7200 if button == "join" else 600)
    client = Client()
    before = people()
    answer = press(client, arena, button, script, **form)
    assert answer.status_code == (409 if script else 302)
    if script:
        assert answer.json()["player"] is None and answer.json()["who"] is None
        assert "ticket" not in answer.json()
    assert people() == before and not ArenaPlayer.objects.exists()
    assert session_player(client) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("script", [True, False])
def test_a_join_meeting_a_removed_arena_makes_the_visitor_no_guest(make_arena, monkeypatch, script):
    """The arena removed after the view found it, before the join's write (an admin's edit
    committed in between): the join's insert is refused at its commit, and the guest it was
    for goes with it."""
    arena = make_arena(starts_in_s=600)
    do_join = actions.do_join

    def removing_first(arena, *args):
        Arena.objects.filter(pk=arena.pk).delete()
        return do_join(arena, *args)

    monkeypatch.setattr(actions, "do_join", removing_first)
    client = Client()
    before = people()
    answer = press(client, arena, "join", script)
    assert answer.status_code == 404
    assert people() == before and session_player(client) is None


@pytest.mark.parametrize("script", [True, False])
def test_an_accepted_join_makes_the_visitor_a_guest_in_the_arena(make_arena, script):
    arena = make_arena()
    client = Client()
    players, users = people()
    answer = press(client, arena, "join", script)
    entry = ArenaPlayer.objects.get()
    assert people() == (players + 1, users)
    assert session_player(client) == entry.player_id
    if script:
        body = answer.json()
        assert body["player"] == entry.player_id and body["who"]["name"] == entry.player.nickname
    page = client.get(arena.get_absolute_url()).content.decode()
    assert 'id="pause-button"' in page  # the page knows them as the arena's player
