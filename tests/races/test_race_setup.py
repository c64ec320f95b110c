"""Setting races up: winnable deals from the race pool (searched in the background worker, never
in a request), and closing overdue races by command."""

from io import StringIO

import pytest
from django.core.management import call_command

from games import worker
from games.engine import new_game
from games.models import WinnableDeal
from games.solver import Verdict, solve
from races import actions
from races.lifecycle import RaceRuleError
from races.models import Race

pytestmark = pytest.mark.django_db


def test_a_winnable_race_gets_a_pooled_deal_at_once(make_client, no_search):
    """With a deal in the race pool the race is made on it, proved: no search at all."""
    WinnableDeal.objects.create(variant="penguin", use=WinnableDeal.Use.RACE, seed=4242)
    race = actions.do_create_race(make_client("Ann").player, variant="penguin", winnable=True)
    assert race.winnable and race.wants_winnable and race.ranked and race.seed == 4242


def test_no_request_of_a_winnable_race_runs_the_solver(
    make_client, held_worker, solver_off_the_request
):
    """Setting a winnable race up on an empty pool, looking at it, joining it, a quick race and
    the start never ask the solver: the race opens at once on a random deal ("being found"),
    the background worker fills the race pool meanwhile, and the start puts the race on a deal
    from it, which the solver wins."""
    ann, bob, cy = make_client("Ann"), make_client("Bob"), make_client("Cy")
    form = {"variant": "penguin", "deal": "winnable", "max_players": 8, "visibility": "link"}
    assert ann.post("/races/new/", form).status_code == 302
    race = Race.objects.get()
    assert race.wants_winnable and not race.winnable
    assert 'id="winnable-pending"' in bob.get(race.get_absolute_url()).content.decode()
    assert bob.post(f"/races/{race.code}/join/", {"name": "Bob"}).status_code == 302
    assert cy.post("/races/quick/", {"variant": "queenie"}).status_code == 302
    assert not solver_off_the_request, "the worker was busy with another job"
    held_worker.set()
    worker.drain()
    pooled = set(WinnableDeal.objects.filter(use="race").values_list("variant", "seed"))
    assert {variant for variant, _ in pooled} == {"penguin", "queenie"}
    actions.do_start_race(race, ann.player)
    race.refresh_from_db()
    assert race.winnable and ("penguin", race.seed) in pooled
    assert {racer.game.seed for racer in race.racers.select_related("game")} == {race.seed}
    assert solve(new_game("penguin", race.seed), max_seconds=5).verdict == Verdict.WON
    assert 'id="winnable-pending"' not in bob.get(race.get_absolute_url()).content.decode()


def test_a_winnable_race_whose_search_proves_nothing_starts_on_its_random_deal(
    make_client, background_searches, solver_proves_nothing
):
    """The fallback: no deal proved by the start, so the race runs on the random deal it opened
    with, and says it is not a winnable deal (`winnable: false`)."""
    ann = make_client("Ann")
    race = actions.do_create_race(ann.player, variant="penguin", winnable=True)
    opened_on = race.seed
    worker.drain()
    actions.do_start_race(race, ann.player)
    race.refresh_from_db()
    assert race.seed == opened_on and not race.winnable and race.wants_winnable
    assert race.racers.get().game.seed == opened_on


def test_a_rematch_of_a_winnable_race_wants_a_winnable_deal_too(
    make_client, no_search, no_countdown
):
    """Even when the first race fell back to a random deal: the rematch asks again."""
    ann = make_client("Ann")
    race = actions.do_create_race(ann.player, variant="penguin", winnable=True)
    actions.do_start_race(race, ann.player)
    actions.do_resign(race, ann.player)
    rematch = actions.do_rematch(Race.objects.get(pk=race.pk), ann.player)
    assert rematch.wants_winnable and not rematch.winnable


def test_a_winnable_race_of_a_never_proved_variant_is_refused_without_a_search(
    make_client, no_search, monkeypatch
):
    """A variant never proved winnable: `no_winnable_deal` at once, no solver run, no race."""
    monkeypatch.setattr("games.winnable.NEVER_PROVED", frozenset({"spiderweb"}))
    with pytest.raises(RaceRuleError) as info:
        actions.do_create_race(make_client("Ann").player, variant="spiderweb", winnable=True)
    assert info.value.code == "no_winnable_deal"
    assert not Race.objects.exists()


def test_a_winnable_eighty_thieves_race_gets_a_secret_built_deal(make_client, no_search):
    """At once, no search: a built deal (won by its construction's line) that is not one of the
    open deals, whose numbers and lines are public."""
    from games.engine.built_deals import is_built, open_numbers
    from games.solver.proofs import known_line

    race = actions.do_create_race(
        make_client("Ann").player, variant="eighty-thieves", winnable=True
    )
    assert race.winnable and is_built(race.seed) and race.seed not in open_numbers()
    game = new_game("eighty-thieves", race.seed)
    for move in known_line("eighty-thieves", race.seed):
        game.play(move)
    assert game.is_won()


def test_the_command_closes_overdue_races_only(make_client, make_race, no_countdown):
    """close_overdue_races finishes races past their end and leaves running ones alone."""
    ann = make_client("Ann")
    overdue, running = make_race(ann, time_limit_s=60), make_race(ann, time_limit_s=60)
    for race in (overdue, running):
        actions.do_start_race(race, ann.player)
    Race.objects.filter(pk=overdue.pk).update(ends_at=overdue.created_at)
    out = StringIO()
    call_command("close_overdue_races", stdout=out)
    assert (
        out.getvalue().strip()
        == "closed 1 race, resigned 0 racers who left or idled, started 0 quick races"
    )
    statuses = dict(Race.objects.values_list("pk", "status"))
    assert statuses == {overdue.pk: "finished", running.pk: "started"}
