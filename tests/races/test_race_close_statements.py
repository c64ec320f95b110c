"""A race's close at its time limit ends every game still playing where its moves left it, in a
number of statements that does not grow with its racers (a crowd's races end together)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game, Player
from games.play import load
from races import actions, play
from races.lifecycle import RacerStatus
from races.models import Race, Racer
from tests.race_support import out_of_time

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]

SEED = 7318420953371  # a Penelope's Web deal with moves to make


def race_played(racers: int) -> Race:
    """A started race of `racers` players, the n-th of whom has made n % 3 moves."""
    players = [Player.objects.create(nickname=f"Racer {racers}-{n}") for n in range(racers)]
    race = actions.do_create_race(
        players[0], variant="penelopes-web", seed=SEED, max_players=8, time_limit_s=600
    )
    for player in players[1:]:
        actions.do_join_race(race, player)
    actions.do_start_race(race, players[0])
    race.refresh_from_db()
    for n, player in enumerate(players):
        game = Racer.objects.get(race=race, player=player).game
        for seq in range(n % 3):
            play.do_race_move(race, player, load(game).engine.legal_moves()[0], seq)
    return race


def closed_at_time_limit(race: Race) -> int:
    """Close the race as if its time were up; the statements the close took."""
    out_of_time(race)
    with CaptureQueriesContext(connection) as queries:
        assert actions.do_close_if_due(race)
    return len(queries)


def test_a_close_at_the_time_limit_ends_every_game_where_its_moves_left_it():
    race = race_played(5)
    closed_at_time_limit(race)
    racers = list(Racer.objects.select_related("game").filter(race=race))
    assert {r.status for r in racers} == {RacerStatus.OUT_OF_TIME}
    for racer in racers:
        assert racer.game.status == Game.Status.RESIGNED and racer.game.finished_at
        assert racer.game.state == load(racer.game).engine.to_dict()
    assert sorted(r.game.state["moves"] for r in racers) == [0, 0, 1, 1, 2]


def test_a_close_at_the_time_limit_costs_as_many_statements_for_eight_racers_as_for_two():
    assert closed_at_time_limit(race_played(8)) == closed_at_time_limit(race_played(2))


def test_what_follows_a_close_reads_no_racer_again(settings):
    """The racers are read twice in a close, before and after it ends the games still playing;
    what follows it (fair play's assessments, the losing-move search, an arena's points) takes
    them from the close instead of reading them again."""
    settings.FAIRPLAY_ASSESSMENT = settings.REPLAY_ANALYSIS = True
    race = race_played(3)
    Race.objects.filter(pk=race.pk).update(rated=True)
    out_of_time(race)
    with CaptureQueriesContext(connection) as queries:
        assert actions.do_close_if_due(race)
    sql = [q["sql"] for q in queries.captured_queries]
    assert len([s for s in sql if s.startswith("SELECT") and 'FROM "races_racer"' in s]) == 2
