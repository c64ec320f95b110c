"""A race keeps nothing in the rank store: its standings are sorted from its racer rows (at most
eight), so with every sorted-set call failing as it does while Redis is away, a race still
joins, starts, takes moves, resigns and closes, in the rows' order (docs/reliability.md)."""

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from games import rankstore
from races import actions
from races import play as race_play
from races.models import Race, RaceEvent, Racer
from races.standings import progress_of

pytestmark = pytest.mark.django_db


class AwayStore(rankstore.RankStore):
    """Every call fails as redis-py does when the server cannot be reached."""

    def __getattribute__(self, name):
        if name.startswith("__"):
            return object.__getattribute__(self, name)

        def away(*args, **kwargs):
            raise RedisConnectionError(
                "Error 111 connecting to 127.0.0.1:6379. Connection refused."
            )

        return away


@pytest.fixture
def redis_away(monkeypatch):
    """The process's rank store, whoever asks for it, fails every call."""
    monkeypatch.setattr(rankstore, "_store", AwayStore())


def rows_order(race: Race) -> list[str]:
    rows = sorted(race.racers.all(), key=lambda r: (progress_of(r).score, r.pk))
    return [r.public_id for r in rows]


def first_move(racer_client, race: Race) -> str:
    game = Racer.objects.get(race=race, player=racer_client.player).game
    return actions.EngineGame.from_dict(game.state).legal_moves()[0]


def test_a_move_needs_no_rank_store(running_race, redis_away):
    race, ann = running_race.race, running_race.ann
    move = first_move(ann, race)
    update = race_play.do_race_move(race, ann.player, move, 0)
    assert move in update.played
    assert Racer.objects.get(race=race, player=ann.player).moves == 1


def test_a_resignation_is_announced_in_the_rows_order(running_race, redis_away):
    race, ann = running_race.race, running_race.ann
    actions.do_resign(race, ann.player)
    event = RaceEvent.objects.filter(race=race, kind="progress").latest("seq")
    assert event.data["standings"] == rows_order(race)
    assert event.data["racers"][0]["status"] == "resigned"


def test_the_race_closes_in_the_rows_order(running_race, redis_away):
    race, ann, bob = running_race.race, running_race.ann, running_race.bob
    actions.do_resign(race, ann.player)
    actions.do_resign(race, bob.player)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    places = dict(race.racers.values_list("player__nickname", "place"))
    assert sorted(places.values()) == [1, 2]
    finished = RaceEvent.objects.get(race=race, kind="finished")
    assert finished.data["standings"] == rows_order(race)
