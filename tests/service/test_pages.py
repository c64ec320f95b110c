"""Pages: the home page, practice deals and their addresses, 404s, the health check."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from games.engine import VARIANT_INFO, VARIANTS, new_game
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
    for name in ("home", "races:list", "records:today", "records:leaderboards"):
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


def start(client, path: str) -> str:
    """The page's first action: POST to the deal's address, as practice.js does; the game's id."""
    reply = client.post(path, HTTP_ACCEPT="application/json")
    assert reply.status_code == 200
    return reply.json()["game"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_page_shows_the_deal_and_the_first_action_starts_the_game(client, variant):
    """A deal's page hands the board the deal as dealt (the player's view, nothing hidden
    shown); the first action's POST starts the practice game, which the page then shows."""
    response = client.get(f"/play/{variant}/42/")
    assert response.status_code == 200
    assert response.context["game"] is None
    assert response.context["variant_info"] == VARIANT_INFO[variant]
    config = board_config(response)
    deal = config.pop("deal")
    assert config == {
        "game": None,
        "variant": variant,
        "seed": 42,
        "kind": "practice",
        "ws_path": "/ws/game/",
        "variant_name": VARIANT_INFO[variant]["name"],
        "layout": json.loads(json.dumps(VARIANT_INFO[variant])),
    }
    engine = new_game(variant, 42)
    assert deal["view"] == engine.to_dict(view="player")
    assert (deal["game"], deal["seq"], deal["moves"]) == (None, 0, 0)
    assert deal["legal"] == engine.legal_moves()

    public_id = start(client, f"/play/{variant}/42/")
    game = Game.objects.get()
    assert game.public_id == public_id
    assert (game.variant, game.seed, game.kind, game.status) == (variant, 42, "practice", "playing")
    response = client.get(f"/play/{variant}/42/")
    assert response.context["game"] == game
    assert "deal" not in board_config(response)
    assert board_config(response)["game"] == public_id


def test_a_form_post_starts_the_game_and_comes_back_to_the_page(client):
    """Without the JSON ask, the POST answers as a form's does: back to the deal's page."""
    reply = client.post("/play/queenie/7/")
    assert reply.status_code == 302 and reply["Location"] == "/play/queenie/7/"
    assert board_config(client.get("/play/queenie/7/"))["game"] == Game.objects.get().public_id


def test_reloading_a_deal_resumes_the_same_game(client):
    """Reloading the page (or starting again from a second tab) resumes the unfinished game on
    that deal, for the same guest."""
    first = start(client, "/play/queenie/7/")
    assert board_config(client.get("/play/queenie/7/"))["game"] == first
    assert start(client, "/play/queenie/7/") == first
    assert Game.objects.count() == 1


def test_another_deal_is_another_game(client):
    """Each deal is its own game."""
    assert start(client, "/play/queenie/7/") != start(client, "/play/queenie/8/")


def test_another_player_gets_their_own_game_on_the_same_deal(client):
    """Two people on the same deal never share a game; a second visitor's page shows the deal."""
    from django.test import Client

    mine = start(client, "/play/penguin/3/")
    assert board_config(Client().get("/play/penguin/3/"))["game"] is None
    assert start(Client(), "/play/penguin/3/") != mine


def test_a_won_deal_deals_a_fresh_game(client):
    """After a win, the deal's page shows the deal again, and the next action starts a new game."""
    first = start(client, "/play/penguin/3/")
    Game.objects.filter(public_id=first).update(status=Game.Status.WON)
    assert board_config(client.get("/play/penguin/3/"))["game"] is None
    assert start(client, "/play/penguin/3/") != first


def test_a_deal_without_a_legal_move_is_shown_stuck_without_a_game(client):
    """Penelope's Web deal 10 has no legal move: the page says so from the deal itself."""
    deal = board_config(client.get("/play/penelopes-web/10/"))["deal"]
    assert (deal["status"], deal["legal"]) == ("stuck", [])
    assert not Game.objects.exists()


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
