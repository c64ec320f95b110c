"""/play/<variant>/winnable/: a deal the solver proved winnable, from the practice pool; with the
pool empty, a page that waits for the background search (the request never searches), then the
deal, or a clear "none"."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.sessions.models import Session

from games import winnable, worker
from games.engine import new_game
from games.engine.built_deals import BUILT_FIRST, open_numbers
from games.models import Game, Player
from games.solver import Verdict, solve
from games.solver.proofs import stored_line

pytestmark = pytest.mark.django_db


def rows() -> tuple[int, int, int]:
    return Player.objects.count(), Session.objects.count(), Game.objects.count()


def waiting_page(client, path: str) -> tuple[str, str]:
    """(the address the page comes back to, its poll's address), checking it is the waiting page,
    with a meta refresh to come back for a browser without scripts."""
    response = client.get(path)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Finding a deal the solver can win" in page
    again = re.search(r'data-next-url="([^"]+)"', page).group(1)
    status = re.search(r'data-status-url="([^"]+)"', page).group(1)
    assert f'<noscript><meta http-equiv="refresh" content="2;url={again}"></noscript>' in page
    return again, status


@pytest.mark.parametrize("variant", ["penguin", "queenie"])
def test_an_empty_pool_waits_for_the_background_search_then_deals_what_it_proved(
    client, variant, held_worker, solver_off_the_request
):
    """The address answers at once with the waiting page (the solver runs in the worker only);
    its poll says `searching` until the search has put a deal in the pool, then `ready`; coming
    back then deals that deal, which the solver wins. Looking, waiting and taking it write no
    player, session or game."""
    before = rows()
    again, status = waiting_page(client, f"/play/{variant}/winnable/")
    assert again.startswith(f"/play/{variant}/winnable/?since=")
    assert client.get(status).json() == {"status": "searching"}
    waiting_page(client, again)  # a reload (the meta refresh) while it searches: still waiting
    assert not solver_off_the_request, "the worker was busy with another job"
    held_worker.set()
    worker.drain()
    assert solver_off_the_request, "the worker searched"
    assert client.get(status).json() == {"status": "ready"}
    response = client.get(again)
    assert response.status_code == 302
    match = re.fullmatch(rf"/play/{variant}/([0-9]+)/\?proved=[\w-]+", response["Location"])
    assert match, response["Location"]
    assert solve(new_game(variant, int(match.group(1))), max_seconds=5).verdict == Verdict.WON
    assert rows() == before


def test_a_search_that_proves_nothing_says_so_with_a_random_deal_one_click_away(
    client, background_searches, solver_proves_nothing
):
    """The search ends with no deal proved: the poll says `none`, and coming back shows how many
    deals were tried, "try again" (a new search) and a plain random deal."""
    again, status = waiting_page(client, "/play/penguin/winnable/")
    worker.drain()
    assert client.get(status).json() == {"status": "none"}
    response = client.get(again)
    assert response.status_code == 200
    page = response.content.decode()
    assert "No winnable deal found in time" in page
    assert re.search(r"The solver tried [1-9][0-9]* random Penguin deal", page)
    assert 'href="/play/penguin/"' in page
    assert 'href="/play/penguin/winnable/"' in page
    waiting_page(client, "/play/penguin/winnable/")  # trying again: a new search, a new wait


def test_a_burst_of_waiters_queues_one_search_per_variant_and_use(client, held_worker, monkeypatch):
    """However many ask while a search of a pool is queued or running, it is the only one: a
    burst queues one job per variant and use, never one a request."""
    searched = []
    monkeypatch.setattr(
        winnable, "search_pool", lambda variant, use: searched.append((variant, use)) or (0, 0)
    )
    for _ in range(10):
        _, status = waiting_page(client, "/play/penguin/winnable/")
        assert client.get(status).json() == {"status": "searching"}
    waiting_page(client, "/play/queenie/winnable/")
    assert winnable.searching("penguin", "practice") and winnable.searching("queenie", "practice")
    held_worker.set()
    worker.drain()
    assert searched == [("penguin", "practice"), ("queenie", "practice")]
    assert not winnable.searching("penguin", "practice")


def test_a_wait_past_its_limit_says_none_without_a_search(client, held_worker, monkeypatch):
    """A search stuck behind the worker's other jobs: past `WAIT_LIMIT_S` the page says none
    came, with the random deal, and starts nothing."""
    long_ago = int((time.time() - winnable.WAIT_LIMIT_S - 1) * 1000)
    page = client.get(f"/play/penguin/winnable/?since={long_ago}").content.decode()
    assert "No winnable deal found in time" in page and 'href="/play/penguin/"' in page
    assert not winnable.searching("penguin", "practice")


def test_with_background_searches_off_an_empty_pool_says_none_at_once(client, no_search):
    """WINNABLE_POOL_REFILL=0 (as in the tests): only the command fills the pools, so nothing
    is waited for."""
    page = client.get("/play/penguin/winnable/").content.decode()
    assert "No winnable deal found in time" in page
    assert client.get("/play/penguin/winnable/status/").json() == {"status": "none"}


def test_winnable_deal_of_an_unknown_variant_is_not_found(client):
    """An unknown variant is a 404, as everywhere else."""
    assert client.get("/play/klondike/winnable/").status_code == 404
    assert client.get("/play/klondike/winnable/status/").status_code == 404


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
    assert client.get("/play/spiderweb/winnable/status/").json() == {"status": "none"}


def test_a_winnable_eighty_thieves_deal_is_an_open_built_deal_at_once(client, no_search):
    """No search: the redirect goes to an open built deal, whose shipped line wins it."""
    response = client.get("/play/eighty-thieves/winnable/")
    assert response.status_code == 302
    match = re.fullmatch(r"/play/eighty-thieves/([0-9]+)/\?proved=[\w-]+", response["Location"])
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
