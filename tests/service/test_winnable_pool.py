"""Pools of proved-winnable deals (games/winnable.py): dealt at once, once each, race deals
apart from practice ones, topped up in the background and by `stock_winnable_deals`."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games import winnable, worker
from games.engine import new_game
from games.engine.built_deals import is_built, open_numbers
from games.models import WinnableDeal
from games.solver import Verdict, solve
from races import actions as race_actions

pytestmark = pytest.mark.django_db

Use = WinnableDeal.Use


def pool(variant: str, use: str, *seeds: int) -> None:
    for seed in seeds:
        WinnableDeal.objects.create(variant=variant, use=use, seed=seed)


def test_a_pooled_deal_is_dealt_at_once(client, no_search):
    """ "A winnable deal" redirects to the practice pool's first deal, without a search."""
    pool("penguin", Use.PRACTICE, 5, 6)
    response = client.get("/play/penguin/winnable/")
    assert response.status_code == 302 and response["Location"].startswith(
        "/play/penguin/5/?proved="
    )
    assert list(WinnableDeal.objects.values_list("seed", flat=True)) == [6]


def test_a_deal_dealt_as_winnable_says_so_on_its_page(client, no_search):
    """The pool's row is gone once dealt: the address carries the deal's signed mark, and only
    that deal's page with it says "proved winnable"."""
    pool("penguin", Use.PRACTICE, 5)
    page = client.get("/play/penguin/winnable/", follow=True).content.decode()
    assert 'id="deal-proved"' in page and "proved winnable" in page
    mark = winnable.proved_mark("penguin", 5)
    assert 'id="deal-proved"' not in client.get("/play/penguin/5/").content.decode()
    assert 'id="deal-proved"' not in client.get(f"/play/penguin/6/?proved={mark}").content.decode()
    assert 'id="deal-proved"' not in client.get(f"/play/queenie/5/?proved={mark}").content.decode()
    assert 'id="deal-proved"' not in client.get("/play/penguin/5/?proved=forged").content.decode()


def test_each_pooled_deal_is_dealt_once(no_search):
    pool("queenie", Use.PRACTICE, 11)
    assert winnable.take_pooled_seeds("queenie", Use.PRACTICE, 1) == [11]
    assert winnable.take_pooled_seeds("queenie", Use.PRACTICE, 1) == []


def test_a_batch_takes_the_oldest_deals_at_most_as_many_as_asked_each_once(no_search):
    for seed in (31, 32, 33):
        pool("queenie", Use.RACE, seed)
    pool("queenie", Use.PRACTICE, 34)
    assert winnable.take_pooled_seeds("queenie", Use.RACE, 2) == [31, 32]
    assert winnable.take_pooled_seeds("queenie", Use.RACE, 5) == [33]
    assert winnable.take_pooled_seeds("queenie", Use.RACE, 5) == []
    assert winnable.take_pooled_seeds("queenie", Use.PRACTICE, 0) == []
    assert winnable.take_pooled_seeds("queenie", Use.PRACTICE, 1) == [34]


def test_pools_are_per_variant_and_use(no_search):
    pool("penguin", Use.RACE, 7)
    assert winnable.take_pooled_seeds("penguin", Use.PRACTICE, 1) == []
    assert winnable.take_pooled_seeds("queenie", Use.RACE, 1) == []
    assert winnable.take_pooled_seeds("penguin", Use.RACE, 1) == [7]


def test_a_race_takes_its_deal_from_the_race_pool(make_client, no_search):
    pool("penguin", Use.RACE, 12345)
    race = race_actions.do_create_race(make_client("Ann").player, variant="penguin", winnable=True)
    assert race.seed == 12345 and race.winnable
    assert not WinnableDeal.objects.exists()


def test_a_race_never_takes_a_practice_deal(make_client, no_search):
    """Practice deals' numbers are public: with only the practice pool stocked, a race opens on
    a random deal of its own (waiting for a race deal) and leaves the practice pool alone."""
    pool("penguin", Use.PRACTICE, 5)
    race = race_actions.do_create_race(make_client("Ann").player, variant="penguin", winnable=True)
    assert race.seed != 5 and not race.winnable and race.wants_winnable
    assert list(WinnableDeal.objects.values_list("use", "seed")) == [(Use.PRACTICE, 5)]


@pytest.mark.parametrize("use", Use.values)
def test_refill_fills_a_pool_with_deals_the_solver_wins(use):
    assert winnable.refill("penguin", use, size=3, budget_s=20) == 3
    seeds = list(
        WinnableDeal.objects.filter(variant="penguin", use=use).values_list("seed", flat=True)
    )
    assert len(set(seeds)) == 3
    if use == Use.PRACTICE:
        assert all(seed < winnable.PRACTICE_SEED_BOUND for seed in seeds)
    for seed in seeds:
        assert solve(new_game("penguin", seed), max_seconds=5).verdict == Verdict.WON
    assert winnable.refill("penguin", use, size=3) == 0  # full already


def test_refill_adds_at_most_what_it_is_allowed():
    """A background top-up adds a few deals, not a whole pool (it shares a web process)."""
    assert winnable.refill("queenie", Use.PRACTICE, size=6, budget_s=20, most=2) == 2
    assert winnable.pool_size("queenie", Use.PRACTICE) == 2


class TimedDeals:
    """A solver whose every deal is won and takes `each_s` on a clock of its own."""

    def __init__(self, each_s: float) -> None:
        self.each_s, self.now, self.seeds = each_s, 0.0, iter(range(1, 10_000))

    def monotonic(self) -> float:
        return self.now

    def find_winnable_seed(self, variant, budget_s, per_deal_s, bound):
        if self.each_s > budget_s:  # not proved within the budget it was given
            self.now += budget_s
            return None, 1
        self.now += self.each_s
        return next(self.seeds), 1


@pytest.fixture
def timed_deals(monkeypatch):
    def deals(each_s: float) -> TimedDeals:
        solver = TimedDeals(each_s)
        monkeypatch.setattr(winnable, "time", solver)
        monkeypatch.setattr(winnable, "find_winnable_seed", solver.find_winnable_seed)
        return solver

    return deals


def test_past_its_few_deals_a_search_goes_on_only_while_it_is_quick(timed_deals):
    """Quick deals (a Penguin deal is proved in some 25 ms) fill the pool in one search, as an
    arena's wave of races empties it; slow ones stop at `most`, for the worker's other jobs."""
    timed_deals(0.1)
    assert winnable.refill("penguin", Use.RACE, 10, 15, most=2, more_within_s=1.0) == 10
    WinnableDeal.objects.all().delete()
    timed_deals(0.4)
    assert winnable.refill("penguin", Use.RACE, 10, 15, most=2, more_within_s=1.0) == 2


def test_a_race_pool_is_deeper_than_a_practice_pool(timed_deals):
    """An arena places up to eight races a transaction, batch after batch."""
    timed_deals(0.01)
    for use in Use.values:
        winnable.refill("penguin", use)
        assert winnable.pool_size("penguin", use) == winnable.POOL_SIZES[use]
    assert winnable.POOL_SIZES[Use.RACE] >= 3 * 8 > winnable.POOL_SIZES[Use.PRACTICE]


@pytest.fixture
def crowd_coming(monkeypatch):
    """An app above that asks the race pools for `deals[variant]` deals (an arena's crowd)."""
    deals: dict[str, int] = {}
    monkeypatch.setattr(winnable, "RACE_DEMAND", [lambda variant: deals.get(variant, 0)])
    return deals


def test_a_race_pool_is_stocked_as_deep_as_a_coming_crowd_asks(timed_deals, crowd_coming):
    """Each of a crowd's races takes a deal of its own: the race pool holds them ahead."""
    timed_deals(0.01)
    crowd_coming["penguin"] = 40
    assert winnable.pool_target("penguin", Use.RACE) == 40
    assert winnable.pool_target("queenie", Use.RACE) == winnable.POOL_SIZES[Use.RACE]
    assert winnable.pool_target("penguin", Use.PRACTICE) == winnable.POOL_SIZES[Use.PRACTICE]
    winnable.refill("penguin", Use.RACE)
    assert winnable.pool_size("penguin", Use.RACE) == 40
    crowd_coming["penguin"] = 5  # never shallower than the pool's own depth
    assert winnable.pool_target("penguin", Use.RACE) == winnable.POOL_SIZES[Use.RACE]
    crowd_coming["penguin"] = 100_000  # nor deeper than the most any crowd may ask
    assert winnable.pool_target("penguin", Use.RACE) == winnable.RACE_POOL_MOST


def test_stock_ahead_waits_while_the_cores_are_contended(timed_deals, crowd_coming, monkeypatch):
    """Past the pool's own depth no race waits for the deals: the search stops while live play
    wants the cores, and the next one goes on. Up to that depth it never stops."""
    timed_deals(0.01)
    crowd_coming["penguin"] = 40
    monkeypatch.setattr(worker, "contended", lambda: True)
    tally: dict = {}
    winnable.refill("penguin", Use.RACE, tally=tally)
    assert winnable.pool_size("penguin", Use.RACE) == winnable.POOL_SIZES[Use.RACE]
    assert tally["yielded"]
    monkeypatch.setattr(worker, "contended", lambda: False)
    winnable.refill("penguin", Use.RACE)
    assert winnable.pool_size("penguin", Use.RACE) == 40


def test_the_command_stocks_a_race_pool_for_the_crowd_coming(timed_deals, crowd_coming):
    timed_deals(0.01)
    crowd_coming["penguin"] = 30
    out = StringIO()
    call_command("stock_winnable_deals", "penguin", stdout=out, verbosity=0)
    assert winnable.pool_size("penguin", Use.RACE) == 30
    assert winnable.pool_size("penguin", Use.PRACTICE) == winnable.POOL_SIZES[Use.PRACTICE]
    assert "| penguin | race | 30 | 30 added, full |" in out.getvalue()


def test_the_command_says_when_it_left_a_pool_short_for_live_play(
    timed_deals, crowd_coming, monkeypatch
):
    timed_deals(0.01)
    crowd_coming["penguin"] = 30
    monkeypatch.setattr(worker, "contended", lambda: True)
    out = StringIO()
    call_command("stock_winnable_deals", "penguin", stdout=out, verbosity=0)
    assert (
        "| penguin | race | 24 | 24 added, short of 30: stopped, the cores are contended"
        in out.getvalue()
    )


def test_a_never_proved_variant_is_never_pooled_or_searched(no_search, monkeypatch):
    monkeypatch.setattr(winnable, "NEVER_PROVED", frozenset({"spiderweb"}))
    assert winnable.refill("spiderweb", Use.PRACTICE, size=2) == 0
    assert winnable.winnable_seed("spiderweb", Use.RACE) is None
    assert not WinnableDeal.objects.exists()


@pytest.mark.parametrize("use", Use.values)
def test_eighty_thieves_deals_built_deals_without_a_pool_or_a_search(no_search, use):
    """Practice an open built deal (its line shipped), a race one whose number is not public."""
    seeds = {winnable.winnable_seed("eighty-thieves", use) for _ in range(20)}
    assert all(is_built(seed) for seed in seeds) and len(seeds) > 1
    assert all((seed in open_numbers()) == (use == Use.PRACTICE) for seed in seeds)
    assert winnable.refill("eighty-thieves", use, size=2) == 0
    assert not WinnableDeal.objects.exists()


@pytest.fixture
def recorded_refills(monkeypatch, settings):
    """Background searches on, with `refill` recorded instead of searching (and writing)."""
    settings.WINNABLE_POOL_REFILL = True
    calls = []
    monkeypatch.setattr(
        winnable, "refill", lambda variant, use, **kw: calls.append((variant, use)) or 0
    )
    yield calls
    worker.drain()


def test_taking_a_deal_tops_its_pool_up_in_the_background(recorded_refills, no_search):
    pool("spiderweb", Use.PRACTICE, 3)
    assert winnable.winnable_seed("spiderweb", Use.PRACTICE) == 3
    worker.drain()
    assert recorded_refills == [("spiderweb", Use.PRACTICE)]


def test_an_empty_pool_is_not_searched_by_taking(recorded_refills, no_search):
    """Taking from an empty pool gives None and starts nothing: the caller decides whether to
    wait for a search (the practice page, a race that opens)."""
    assert winnable.winnable_seed("spiderweb", Use.PRACTICE) is None
    worker.drain()
    assert recorded_refills == []


def test_no_background_search_when_switched_off(settings):
    settings.WINNABLE_POOL_REFILL = False
    assert not winnable.start_search("penguin", Use.PRACTICE)


def test_no_background_search_of_a_variant_without_a_pool(settings):
    settings.WINNABLE_POOL_REFILL = True
    assert not winnable.start_search("eighty-thieves", Use.RACE)


def test_the_command_stocks_every_pool_it_is_given():
    out = StringIO()
    call_command(
        "stock_winnable_deals", "penguin", "eighty-thieves", "--size", "2", stdout=out, verbosity=0
    )
    assert winnable.pool_size("penguin", Use.PRACTICE) == 2
    assert winnable.pool_size("penguin", Use.RACE) == 2
    table = out.getvalue()
    assert "| penguin | practice | 2 | 2 added, full |" in table
    assert "| eighty-thieves | race | 0 | no pool needed: built deals, dealt at once |" in table


@pytest.mark.parametrize(
    "args", [["klondike"], ["penguin", "--size", "0"], ["penguin", "--budget", "0"]]
)
def test_the_command_refuses_bad_arguments(args):
    with pytest.raises(CommandError):
        call_command("stock_winnable_deals", *args, stdout=StringIO())
