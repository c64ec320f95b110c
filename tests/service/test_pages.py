"""Pages: the home page, practice deals and their addresses, 404s, the health check."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from games.engine import VARIANT_INFO, VARIANTS
from games.models import MAX_SEED, Game

pytestmark = pytest.mark.django_db


def board_config(response) -> dict:
    """The JSON the page hands to the board script (json_script, id "board-config")."""
    match = re.search(
        r'<script id="board-config" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, "no board-config script on the page"
    return json.loads(match.group(1))


def test_home_lists_the_five_variants(client):
    """The home page names each variant with its summary and a link to a new deal."""
    response = client.get(reverse("home"))
    assert response.status_code == 200
    page = response.content.decode()
    for variant in VARIANTS:
        info = VARIANT_INFO[variant]
        assert info["name"].replace("'", "&#x27;") in page
        assert info["summary"].replace("'", "&#x27;") in page
        assert f'href="/play/{variant}/"' in page


def test_every_page_links_the_sections(client):
    """The header links practice, races, the daily challenge and the leaderboards."""
    page = client.get(reverse("home")).content.decode()
    for name in ("home", "races:list", "daily:home", "daily:leaderboards"):
        assert f'href="{reverse(name)}"' in page


def test_home_creates_no_guest(client):
    """Looking at the home page makes no Player: guests are made when they play."""
    client.get(reverse("home"))
    assert not Game.objects.exists()
    from games.models import Player

    assert not Player.objects.exists()


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_variant_redirects_to_a_random_deal(client, variant):
    """/play/<variant>/ sends you to a deal's own address /play/<variant>/<seed>/."""
    response = client.get(f"/play/{variant}/")
    assert response.status_code == 302
    match = re.fullmatch(rf"/play/{variant}/(\d+)/", response["Location"])
    assert match and 0 <= int(match.group(1)) <= MAX_SEED


def test_random_deals_differ(client):
    """Two new deals are (almost surely) different deals."""
    locations = {client.get("/play/penguin/")["Location"] for _ in range(5)}
    assert len(locations) > 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_page_starts_a_practice_game(client, variant):
    """A deal's page starts a practice game for a new guest and hands the board its config."""
    response = client.get(f"/play/{variant}/42/")
    assert response.status_code == 200
    game = Game.objects.get()
    assert (game.variant, game.seed, game.kind, game.status) == (variant, 42, "practice", "playing")
    assert response.context["game"] == game
    assert response.context["variant_info"] == VARIANT_INFO[variant]
    assert board_config(response) == {
        "game": game.public_id,
        "variant": variant,
        "seed": 42,
        "kind": "practice",
        "ws_path": "/ws/game/",
        "variant_name": VARIANT_INFO[variant]["name"],
        "layout": json.loads(json.dumps(VARIANT_INFO[variant])),
    }


def test_reloading_a_deal_resumes_the_same_game(client):
    """Reloading the page resumes the unfinished game on that deal, for the same guest."""
    first = board_config(client.get("/play/queenie/7/"))
    second = board_config(client.get("/play/queenie/7/"))
    assert first["game"] == second["game"]
    assert Game.objects.count() == 1


def test_another_deal_is_another_game(client):
    """Each deal is its own game."""
    first = board_config(client.get("/play/queenie/7/"))
    second = board_config(client.get("/play/queenie/8/"))
    assert first["game"] != second["game"]


def test_another_player_gets_their_own_game_on_the_same_deal(client, django_user_model):
    """Two people on the same deal never share a game."""
    from django.test import Client

    mine = board_config(client.get("/play/penguin/3/"))
    theirs = board_config(Client().get("/play/penguin/3/"))
    assert mine["game"] != theirs["game"]


def test_a_won_deal_deals_a_fresh_game(client):
    """After a win, the deal's page starts a new game on it."""
    first = board_config(client.get("/play/penguin/3/"))
    Game.objects.filter(public_id=first["game"]).update(status=Game.Status.WON)
    second = board_config(client.get("/play/penguin/3/"))
    assert first["game"] != second["game"]


def test_a_seed_with_leading_zeros_redirects_to_its_address(client):
    """/play/penguin/007/ is deal 7: one address per deal."""
    response = client.get("/play/penguin/007/")
    assert response.status_code == 302 and response["Location"] == "/play/penguin/7/"


def test_the_largest_seed_is_playable(client):
    """Seeds run up to 2**63 - 1."""
    assert client.get(f"/play/spiderweb/{MAX_SEED}/").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/play/freecell/",
        "/play/freecell/1/",
        "/play/Penguin/1/",
        f"/play/penguin/{MAX_SEED + 1}/",
        "/play/penguin/-1/",
        "/play/penguin/abc/",
        "/play/penguin/1e5/",
        "/play/penguin/99999999999999999999999/",
        "/no/such/page/",
    ],
)
def test_unknown_variants_and_seeds_are_not_found(client, path):
    """Unknown variants, seeds out of range or not numbers: the 404 page, and no game."""
    response = client.get(path)
    assert response.status_code == 404
    assert b"This page is not in the deck" in response.content
    assert not Game.objects.exists()


def test_healthz(client):
    """The health check answers when the database does."""
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"ok": True}
