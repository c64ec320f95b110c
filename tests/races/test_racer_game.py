"""A racer and their game: read together, they are freed as soon as nobody holds them, without the
cyclic garbage collector (whose pauses hold every socket of a server process)."""

import pytest

from games.models import Game
from races.models import Racer
from tests.support import left_for_the_collector


@pytest.fixture
def race(running_race):
    return Racer.objects.first().race


def test_racers_read_with_their_games_leave_nothing_for_the_collector(race):
    with left_for_the_collector(Racer, Game) as left:
        list(race.racers.select_related("game", "player"))
    assert left == []


def test_a_racer_s_game_read_on_demand_leaves_nothing_for_the_collector(race):
    with left_for_the_collector(Racer, Game) as left:
        [racer.game.state for racer in race.racers.all()]
    assert left == []


def test_a_game_still_finds_its_racer(race, django_assert_num_queries):
    racer = race.racers.select_related("game").first()
    with django_assert_num_queries(1):  # read from the database: the game does not keep it
        assert racer.game.racer == racer


def test_a_game_without_a_racer_says_so(make_game, player):
    game = make_game(player)
    assert getattr(game, "racer", None) is None
