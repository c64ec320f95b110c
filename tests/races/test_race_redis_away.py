"""Race standings while Redis is away: the sorted set is only an index of the racer rows, so a
move, a resignation or the close goes on with the order read from the rows, and the set is
rebuilt from them once Redis answers again (docs/reliability.md, "Redis restarted empty")."""

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from games.rankstore import RankStore, get_rank_store
from races import actions
from races import index as race_index
from races import play as race_play
from races.models import Race, RaceEvent, Racer

pytestmark = pytest.mark.django_db


class AwayStore(RankStore):
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
def redis(monkeypatch):
    """`redis.away()` makes every sorted-set call of the race actions fail; `redis.back()`
    restores the real store."""

    class Switch:
        def away(self):
            for module in (actions, race_index):
                monkeypatch.setattr(module, "get_rank_store", AwayStore)

        def back(self):
            for module in (actions, race_index):
                monkeypatch.setattr(module, "get_rank_store", get_rank_store)

    yield Switch()
    race_index._stale_indexes.clear()


def first_move(racer_client, race: Race) -> str:
    game = Racer.objects.get(race=race, player=racer_client.player).game
    return actions.EngineGame.from_dict(game.state).legal_moves()[0]


def test_a_move_while_redis_is_away_is_played_and_recorded(running_race, redis):
    """Its live progress frame is lost with the channel layer; the record has the move, and the
    standings read once Redis is back are the rows' order."""
    race, ann = running_race.race, running_race.ann
    move = first_move(ann, race)
    redis.away()
    update = race_play.do_race_move(race, ann.player, move, 0)
    assert move in update.played
    assert Racer.objects.get(race=race, player=ann.player).moves == 1
    redis.back()
    rows = sorted(race.racers.all(), key=lambda r: (race_index.progress_of(r).score, r.pk))
    assert race_index.standings(race) == [r.public_id for r in rows]


def test_a_set_that_missed_a_write_is_rebuilt_when_redis_is_back(running_race, redis):
    """Even when the set still holds every racer (only a score is stale), its next read after
    a missed write rebuilds it from the rows."""
    race = running_race.race
    redis.away()
    race_index.rebuild(race)  # a missed write, not an error
    redis.back()
    store, key = get_rank_store(), race_index.standings_key(race)
    racers = list(race.racers.order_by("pk"))
    store.delete(key)  # every racer present, in the wrong order
    store.set_many(key, {race_index.standing_member(r): -i for i, r in enumerate(racers)})
    assert race_index.standings(race) == [r.public_id for r in racers]  # joined first, as rows say
    assert {m: s for m, s in store.range(key, 0, -1)} == {
        race_index.standing_member(r): race_index.progress_of(r).score for r in racers
    }


def test_the_race_closes_while_redis_is_away(running_race, redis):
    race, ann, bob = running_race.race, running_race.ann, running_race.bob
    redis.away()
    actions.do_resign(race, ann.player)
    actions.do_resign(race, bob.player)
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    places = dict(race.racers.values_list("player__nickname", "place"))
    assert sorted(places.values()) == [1, 2]
    finished = RaceEvent.objects.get(race=race, kind="finished")
    assert len(finished.data["standings"]) == 2
