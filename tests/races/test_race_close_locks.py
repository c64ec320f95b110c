"""A resignation and a race's close hold the race's row no longer than they must (in an arena of
a thousand players they queue on it): the resigning racer's game ends before the race's row is
locked, a close someone else has made is not queued for, and the close writes its racers in one
statement each way, whatever their number."""

from types import SimpleNamespace

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import actions as game_actions
from games.actions import get_game_update
from games.models import Game
from games.play import load
from races import actions, events
from races import play as race_play
from races.lifecycle import RacerStatus
from races.models import Race
from tests.threads import ConnectionThread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]


def first_move(race: Race, player) -> str:
    return get_game_update(race.racers.get(player=player).game).legal[0]


def test_a_resignation_ends_the_game_before_it_locks_the_race(running_race, monkeypatch):
    race, ann = running_race.race, running_race.ann
    race_play.do_race_move(race, ann.player, first_move(race, ann.player), 0)
    order = []
    loaded, ended, locked = actions.load, actions.do_end_game, actions._locked
    monkeypatch.setattr(
        actions, "load", lambda game, **kw: order.append("load") or loaded(game, **kw)
    )
    monkeypatch.setattr(
        actions, "do_end_game", lambda *a, **kw: order.append("end") or ended(*a, **kw)
    )
    monkeypatch.setattr(actions, "_locked", lambda race: order.append("lock") or locked(race))
    monkeypatch.setattr(game_actions, "load", lambda game: order.append("load again") or load(game))
    actions.do_resign(race, ann.player)
    assert order == ["load", "end", "lock"]
    assert race.racers.get(player=ann.player).status == RacerStatus.RESIGNED


def test_a_move_stored_between_the_load_and_the_resignation_is_in_the_game_s_last_state(
    running_race, monkeypatch
):
    """Another tab's move lands after the resignation loaded the game: the game is loaded again
    when it ends, and its final state has the move."""
    race, ann = running_race.race, running_race.ann
    before = load(race.racers.get(player=ann.player).game)
    race_play.do_race_move(race, ann.player, first_move(race, ann.player), 0)
    monkeypatch.setattr(actions, "load", lambda game, **kw: before)
    actions.do_resign(race, ann.player)
    game = race.racers.get(player=ann.player).game
    assert game.state == load(game).engine.to_dict()
    assert game.state != before.engine.to_dict()
    assert game.move_count == 1


def test_a_resignation_whose_server_died_after_the_game_ended_is_finished_by_the_next(
    running_race,
):
    """The first part committed (the game ended resigned), the second never did (the racer is
    still racing): resigning again marks the racer and, the last one, closes the race."""
    race, ann, bob = running_race.race, running_race.ann, running_race.bob
    actions.do_resign(race, ann.player)
    game = race.racers.get(player=bob.player).game
    assert game_actions.do_end_game(game, timezone.now())  # the part that committed
    actions.do_resign(race, bob.player)
    assert race.racers.get(player=bob.player).status == RacerStatus.RESIGNED
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    with pytest.raises(actions.RaceRuleError) as refused:
        actions.do_resign(race, bob.player)
    assert refused.value.code in ("already_finished", "race_over")


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor == "sqlite", reason="SQLite has no row locks: this runs on PostgreSQL"
)
def test_a_resignation_waiting_for_its_game_leaves_the_race_free(running_race):
    """A move batch holds the racer's game row: the resignation waits for it without the race's
    row, which the race's other racers (their resignations, a finish, the close) can take."""
    race, ann = running_race.race, running_race.ann
    game = race.racers.get(player=ann.player).game
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=game.pk)  # the batch's hold
        resigning = ConnectionThread(actions.do_resign, race, ann.player)
        resigning.start()
        resigning.join(1.0)
        assert resigning.is_alive(), "the resignation waits for the game's row"

        def lock_race() -> None:
            with transaction.atomic():
                Race.objects.select_for_update(nowait=True).get(pk=race.pk)

        other = ConnectionThread(lock_race)
        other.start()
        other.join(10)
        assert not other.is_alive() and other.error is None, (
            "the race's row was held while the resignation waited",
            other.error,
        )
    resigning.join(10)
    assert resigning.error is None
    assert race.racers.get(player=ann.player).status == RacerStatus.RESIGNED
    assert Game.objects.get(pk=game.pk).status == Game.Status.RESIGNED


def test_a_race_closed_already_is_not_locked_by_the_sockets_that_ask_after(
    running_race, monkeypatch
):
    race = running_race.race
    Race.objects.filter(pk=race.pk).update(ends_at=timezone.now())
    assert actions.do_close_if_due(race)
    locks = []
    locked = actions._locked
    monkeypatch.setattr(actions, "_locked", lambda race: locks.append(race) or locked(race))
    assert not actions.do_close_if_due(race)
    assert locks == []


def test_a_close_writes_its_racers_in_one_statement_for_their_ends_and_one_for_their_places(
    make_client, make_race
):
    host = make_client("Ann")
    race = make_race(host, time_limit_s=300, max_players=8)
    for name in ["Bob", "Cat", "Dan", "Eve", "Fay"]:
        actions.do_join_race(race, make_client(name).player)
    actions.do_start_race(race, host.player)
    Race.objects.filter(pk=race.pk).update(ends_at=timezone.now())
    with CaptureQueriesContext(connection) as queries:
        assert actions.do_close_if_due(race)
    writes = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "races_racer"')]
    assert len(writes) == 2
    assert sorted(race.racers.values_list("place", flat=True)) == [1, 2, 3, 4, 5, 6]
    assert set(race.racers.values_list("status", flat=True)) == {"out_of_time"}


def test_a_batch_locks_the_races_it_announces_finishes_to_in_id_order(make_client, make_race):
    """Every writer of several rows locks them in id order, or two can deadlock; the races a
    move batch announces finishes to were locked in the model's order, newest first (and a
    batch of races placed together is created at one moment)."""
    host = make_client("Ann")
    races = [make_race(host) for _ in range(3)]
    finishing = [SimpleNamespace(race_pk=race.pk) for race in reversed(races)]
    with transaction.atomic():
        assert list(events.lock_races(finishing)) == [race.pk for race in races]
