"""/play/<variant>/winnable/: a random deal the solver proves winnable, or a clear "none"."""

from __future__ import annotations

import re

import pytest

from games import views, winnable
from games.engine import new_game
from games.engine.built_deals import BUILT_FIRST, open_numbers
from games.solver import Verdict, solve
from games.solver.proofs import stored_line

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("variant", ["penguin", "queenie"])
def test_winnable_deal_redirects_to_a_deal_the_solver_wins(client, variant):
    """The redirect goes to a deal's own address, and the solver wins that deal."""
    response = client.get(f"/play/{variant}/winnable/")
    assert response.status_code == 302
    match = re.fullmatch(rf"/play/{variant}/([0-9]+)/", response["Location"])
    assert match, response["Location"]
    seed = int(match.group(1))
    assert solve(new_game(variant, seed), max_seconds=5).verdict == Verdict.WON


def test_no_winnable_deal_in_time_says_so_with_a_random_deal_link(client, monkeypatch):
    """With no time to prove any deal, the page says so and links a plain random deal."""
    monkeypatch.setattr(views, "WINNABLE_BUDGET_S", 0.0)
    response = client.get("/play/penguin/winnable/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "No winnable deal found in time" in page
    assert 'href="/play/penguin/"' in page
    assert 'href="/play/penguin/winnable/"' in page


def test_winnable_deal_of_an_unknown_variant_is_not_found(client):
    """An unknown variant is a 404, as everywhere else."""
    assert client.get("/play/klondike/winnable/").status_code == 404


@pytest.mark.parametrize("path", ["/", "/play/penguin/5/"])
def test_home_and_practice_page_link_a_winnable_deal(client, path):
    """The home page (for every variant) and the practice page link the winnable deal."""
    page = client.get(path).content.decode()
    assert 'href="/play/penguin/winnable/"' in page


def test_a_never_proved_variant_offers_no_winnable_deal(client, no_search, monkeypatch):
    """A variant no random deal of which was ever proved won: the page says why at once (no
    search runs) and links a random deal."""
    monkeypatch.setattr(winnable, "NEVER_PROVED", frozenset({"spiderweb"}))
    response = client.get("/play/spiderweb/winnable/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="never-proved"' in page and 'href="/play/spiderweb/"' in page
    assert 'href="/play/spiderweb/winnable/"' not in page


def test_a_winnable_eighty_thieves_deal_is_an_open_built_deal_at_once(client, no_search):
    """No search: the redirect goes to an open built deal, whose shipped line wins it."""
    response = client.get("/play/eighty-thieves/winnable/")
    assert response.status_code == 302
    match = re.fullmatch(r"/play/eighty-thieves/([0-9]+)/", response["Location"])
    seed = int(match.group(1))
    assert seed in open_numbers()
    game = new_game("eighty-thieves", seed)
    for move in stored_line("eighty-thieves", seed):
        game.play(move)
    assert game.is_won()


@pytest.mark.parametrize("path", ["/", f"/play/eighty-thieves/{BUILT_FIRST}/"])
def test_pages_link_the_winnable_eighty_thieves_deal(client, path):
    page = client.get(path).content.decode()
    assert 'href="/play/eighty-thieves/winnable/"' in page


@pytest.fixture
def solver_taken(monkeypatch):
    """Every winnable-deal search slot of the process is taken (by other requests)."""
    from games import winnable

    monkeypatch.setattr(winnable, "QUEUE_WAIT_S", 0.05)
    for _ in range(winnable.MAX_SEARCHES):
        assert winnable._searches.acquire(timeout=1)
    yield
    for _ in range(winnable.MAX_SEARCHES):
        winnable._searches.release()


def test_a_busy_solver_is_a_503_with_a_way_on(client, solver_taken):
    """With every search slot taken, the page answers at once: busy, try again or play a random
    deal (503 with Retry-After), and no search runs."""
    response = client.get("/play/penguin/winnable/")
    assert response.status_code == 503 and response["Retry-After"] == "5"
    page = response.content.decode()
    assert "The solver is busy" in page
    assert 'href="/play/penguin/"' in page and 'href="/play/penguin/winnable/"' in page


def test_a_busy_solver_refuses_a_winnable_race_with_a_reason(solver_taken):
    from races.deals import winnable_seed
    from races.lifecycle import RaceRuleError

    with pytest.raises(RaceRuleError) as refused:
        winnable_seed("penguin")
    assert refused.value.code == "solver_busy"


def test_searches_free_their_slot_when_done(client):
    """Searches one after another never run out of slots (each gives its slot back)."""
    from games import winnable

    for _ in range(winnable.MAX_SEARCHES + 2):
        assert client.get("/play/penguin/winnable/").status_code in (200, 302)
