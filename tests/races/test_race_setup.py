"""Setting races up: winnable deals from the solver, and closing overdue races by command."""

from io import StringIO

import pytest
from django.core.management import call_command

from games.engine import new_game
from games.solver import Verdict, solve
from races import actions
from races.lifecycle import RaceRuleError
from races.models import Race

pytestmark = pytest.mark.django_db


def test_a_winnable_race_gets_a_deal_the_solver_wins(make_client):
    """The winnable option keeps only a deal the solver proves won (Penguin: proved fast)."""
    race = actions.do_create_race(make_client("Ann").player, variant="penguin", winnable=True)
    assert race.winnable and race.ranked
    assert solve(new_game("penguin", race.seed), max_seconds=5).verdict == Verdict.WON


def test_no_winnable_deal_in_time_is_a_clear_refusal(make_client, monkeypatch):
    """When the solver proves nothing within the budget, the race is refused with a reason."""
    monkeypatch.setattr("races.deals.WINNABLE_BUDGET_S", 0.0)
    with pytest.raises(RaceRuleError) as info:
        actions.do_create_race(make_client("Ann").player, variant="penguin", winnable=True)
    assert info.value.code == "no_winnable_deal"
    assert not Race.objects.exists()


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
    assert out.getvalue().strip() == "closed 1 race, started 0 quick races"
    statuses = dict(Race.objects.values_list("pk", "status"))
    assert statuses == {overdue.pk: "finished", running.pk: "started"}
