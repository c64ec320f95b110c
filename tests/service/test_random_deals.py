"""A fresh random deal always has a move to make: dead deals are drawn again."""

from __future__ import annotations

import pytest

from games import deals
from games.engine import VARIANTS, new_game
from races.actions import do_create_race

DEAD = 10
"""Penelope's Web deal 10 has no move at all (about one deal in a hundred is like it)."""
LIVE = 11


@pytest.fixture
def draws(monkeypatch):
    """The OS's draw made to give the dead deal first, then a live one."""
    queue = [DEAD, LIVE]
    monkeypatch.setattr(deals.secrets, "randbelow", lambda bound: queue.pop(0))
    return queue


def test_the_dead_deal_is_really_dead():
    assert new_game("penelopes-web", DEAD).legal_moves() == []
    assert new_game("penelopes-web", LIVE).legal_moves()


def test_a_dead_deal_is_drawn_again(draws):
    assert deals.random_seed("penelopes-web") == LIVE


def test_practice_never_deals_a_dead_deal(client, draws):
    response = client.get("/play/penelopes-web/")
    assert response.status_code == 302
    assert response["Location"].endswith(f"/play/penelopes-web/{LIVE}/")


def test_a_race_never_starts_on_a_dead_deal(draws, player):
    race = do_create_race(player, variant="penelopes-web")
    assert race.seed == LIVE


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_random_seed_stays_below_its_bound(variant):
    assert 0 <= deals.random_seed(variant, 1000) < 1000
