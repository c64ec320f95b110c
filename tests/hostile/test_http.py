"""Hostile HTTP: forms without CSRF or from another origin are refused and change nothing; bad
parameters in forms and URLs get a 4xx or the form again with its errors, never a crash."""

from __future__ import annotations

import hostile_harness as harness
import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Game, Player
from races import actions
from races.forms import TIME_LIMITS
from races.models import Race, Racer

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
EVIL = "http://evil.example"


def csrf_client() -> Client:
    """A browser that enforces CSRF like a real one, holding a token from a page."""
    client = Client(enforce_csrf_checks=True)
    assert client.get("/races/new/").status_code == 200
    return client


def token(client: Client) -> str:
    return client.cookies["csrftoken"].value


def race_form(**fields) -> dict:
    form = {
        "variant": "penguin",
        "deal": "random",
        "seed": "",
        "max_players": "4",
        "time_limit": "300",
        "visibility": "link",
        "name": "Ann",
    }
    form.update(fields)
    return form


@pytest.fixture
def lobby(db):
    host = Player.objects.create(nickname="Host")
    return actions.do_create_race(host, variant="penguin")


def test_creating_a_race_without_the_csrf_token_is_refused():
    """No token: 403, and no race exists."""
    client = csrf_client()
    reply = client.post("/races/new/", race_form())
    assert reply.status_code == 403
    assert not Race.objects.exists()


def test_creating_a_race_from_another_origin_is_refused():
    """A valid token sent from another site's page: 403 (the Origin does not match)."""
    client = csrf_client()
    reply = client.post(
        "/races/new/", race_form(csrfmiddlewaretoken=token(client)), HTTP_ORIGIN=EVIL
    )
    assert reply.status_code == 403
    assert not Race.objects.exists()


def test_the_same_form_with_the_token_and_origin_is_accepted():
    """The control case: token and matching origin create the race (so the refusals above
    are about the token and the origin, nothing else)."""
    client = csrf_client()
    reply = client.post(
        "/races/new/",
        race_form(csrfmiddlewaretoken=token(client)),
        HTTP_ORIGIN="http://testserver",
    )
    assert reply.status_code == 302
    assert Race.objects.count() == 1


@pytest.mark.parametrize("path", ["join/", "rematch/"])
def test_race_forms_without_the_token_are_refused(lobby, path):
    """Joining or asking for a rematch without the token: 403, the race is unchanged."""
    client = csrf_client()
    reply = client.post(f"/races/{lobby.code}/{path}", {"name": "Eve"})
    assert reply.status_code == 403
    assert Racer.objects.filter(race=lobby).count() == 1
    assert Race.objects.count() == 1


def test_changing_the_nickname_without_the_token_is_refused():
    client = csrf_client()
    reply = client.post("/accounts/nickname/", {"nickname": "Mallory"})
    assert reply.status_code == 403
    assert not Player.objects.filter(nickname="Mallory").exists()


@pytest.mark.parametrize(
    "method, path",
    [("post", "/"), ("post", "/races/"), ("get", "/races/{code}/join/"), ("put", "/races/new/")],
)
def test_the_wrong_method_is_refused(lobby, method, path):
    """Each page takes only its methods: 405 otherwise."""
    client = Client()
    reply = getattr(client, method)(path.format(code=lobby.code))
    assert reply.status_code == 405


text_or_number = (
    st.text(max_size=30)
    | st.integers(-(2**70), 2**70).map(str)
    | st.sampled_from(["", " ", "0", "9" * 40, "1e9", "NaN", "-1", "8", "2", "<script>"])
)


@FUZZ
@given(
    variant=st.sampled_from(["penguin", "queenie", "PENGUIN", "../etc", ""]) | st.text(max_size=20),
    deal=st.sampled_from(["random", "seed", "", "winnable!", "solver"]) | st.text(max_size=10),
    seed=text_or_number,
    max_players=text_or_number,
    time_limit=st.sampled_from([value for value, _ in TIME_LIMITS]) | text_or_number,
    visibility=st.sampled_from(["public", "link", "secret"]) | st.text(max_size=10),
    name=st.text(max_size=40),
    extra=st.dictionaries(
        st.sampled_from(["finish_ms", "elapsed_ms", "place", "host"]), text_or_number
    ),
)
def test_any_race_form_gets_the_form_back_or_a_valid_race(
    variant, deal, seed, max_players, time_limit, visibility, name, extra
):
    """Bad parameters give the form again (200) with nothing created; a 302 only ever creates a
    race whose settings are ones the form offers. Extra fields (times, places) are ignored."""
    client = csrf_client()
    races_before = Race.objects.count()
    fields = race_form(
        variant=variant,
        deal=deal,
        seed=seed,
        max_players=max_players,
        time_limit=time_limit,
        visibility=visibility,
        name=name,
        csrfmiddlewaretoken=token(client),
        **extra,
    )
    reply = client.post("/races/new/", fields)
    assert reply.status_code in (200, 302)
    if reply.status_code == 200:
        assert Race.objects.count() == races_before
        return
    race = Race.objects.latest("created_at")
    assert race.variant in ("penguin", "queenie")
    assert 2 <= race.max_players <= 8
    assert race.time_limit_s in {int(v) for v, _ in TIME_LIMITS if v} | {None}
    assert race.racers.get().finish_ms is None and race.racers.get().place is None


@FUZZ
@given(
    variant=st.text(alphabet="abcdefghijklmnopqrstuvwxyz-_0123456789", min_size=1, max_size=20),
    seed=st.text(min_size=1, max_size=25).filter(
        lambda s: "/" not in s and "?" not in s and "#" not in s
    ),
    code=st.text(min_size=1, max_size=12).filter(
        lambda s: "/" not in s and "?" not in s and "#" not in s
    ),
)
def test_bad_url_parameters_are_404s_not_crashes(variant, seed, code):
    """Unknown variants, seeds that are not deal numbers and codes of no race: 404 (or a
    redirect to the canonical address), never a server error, and no game is made for them."""
    client = Client()
    games_before = Game.objects.count()
    for path in (f"/play/{variant}/{seed}/", f"/races/{code}/", f"/races/{code}/results/"):
        reply = client.get(path)
        assert reply.status_code in (200, 301, 302, 404), (path, reply.status_code)
    if variant not in ("penguin", "queenie", "spiderweb", "eighty-thieves", "penelopes-web"):
        assert Game.objects.count() == games_before
    reply = client.get("/races/join/", {"code": code})
    assert reply.status_code == 302


ADDRESSES = [
    "/play/penguin/{}/",
    "/play/{}/",
    "/play/penguin/winnable/status/?since={}",
    "/play/penguin/1/?proved={}",
    "/races/{}/",
    "/races/{}/results/",
    "/races/join/?code={}",
    "/replay/race/{}/",
    "/api/races/{}/replay/",
    "/arenas/{}/",
    "/api/arenas/{}/",
    "/arenas/{arena}/players/{}/",
    "/api/arenas/{arena}/players/{}/",
    "/api/arenas/?page={}",
    "/daily/play/{}/",
    "/daily/{}/",
    "/daily/penguin/{}/",
    "/players/{}/",
    "/api/players/{}/",
    "/api/players/{}/ratings/",
    "/replay/{}/",
    "/api/replays/{}/",
    "/ghost/{}/",
    "/fairplay/report/{}/",
    "/leaderboards/{}/penguin/",
    "/leaderboards/wins/penguin/?page={}",
    "/api/daily/?{}=1",
    "/api/leaderboards/{}/penguin/",
    "/api/leaderboards/daily/penguin/{}/",
    "/api/leaderboards/daily/penguin/2026-01-01/?page={}",
    "/api/leaderboards/wins/penguin/?player={}",
    "/api/leaderboards/rating/penguin/?per_page={}",
    "/api/leaderboards/races/?page={}",
    "/api/leaderboards/races/?variant={}",
]
"""Every page and API address with a part a visitor types: ids, codes, variants, days, seeds,
players' numbers and the query's page, per_page, player, since, proved and variant."""


@pytest.fixture
def arena(db):
    return harness.running_arena("Addresses")


@FUZZ
@given(value=harness.edge_url_parts)
def test_edge_values_in_addresses_get_an_answer_not_a_crash(arena, value):
    """NULs, bytes that are no UTF-8, emoji, Unicode digits, numbers at and past 32 and 64 bits,
    floats and long strings in every part of an address: a page, a redirect, 400 or 404, never
    a server error."""
    client = Client()
    for address in ADDRESSES:
        path = address.replace("{arena}", arena.public_id).format(value)
        reply = client.get(path)
        assert reply.status_code in (200, 301, 302, 400, 403, 404), (path, reply.status_code)
