"""`games.rows`: `update_rows` writes some fields of a few rows in one statement, as Django's
`bulk_update` writes them, on SQLite and PostgreSQL alike; `one_or_none` reads the row of a
unique key as `.first()` does, without sorting."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, Player
from games.rows import one_or_none, update_rows

pytestmark = pytest.mark.django_db


def games(count: int) -> list[Game]:
    player = Player.objects.create(nickname="Ann")
    return [
        Game.objects.create(player=player, variant="penguin", seed=seed) for seed in range(count)
    ]


def test_each_row_gets_its_own_values_in_one_statement():
    rows = games(3)
    at = timezone.now().replace(microsecond=0)
    for n, game in enumerate(rows):
        game.status, game.move_count = Game.Status.WON, 10 + n
        game.finished_at = at + dt.timedelta(seconds=n)
    with CaptureQueriesContext(connection) as queries:
        assert update_rows(rows, ["status", "move_count", "finished_at"]) == 3
    assert len(queries) == 1 and queries[0]["sql"].startswith('UPDATE "games_game"')
    stored = Game.objects.order_by("seed").values_list("status", "move_count", "finished_at")
    assert list(stored) == [
        (Game.Status.WON, 10 + n, at + dt.timedelta(seconds=n)) for n in range(3)
    ]


def test_only_the_fields_named_are_written():
    [game] = games(1)
    Game.objects.filter(pk=game.pk).update(move_count=7)
    game.status, game.move_count = Game.Status.RESIGNED, 99
    update_rows([game], ["status"])
    assert Game.objects.values_list("status", "move_count").get() == (Game.Status.RESIGNED, 7)


def test_a_null_and_a_json_value_are_stored_as_such():
    [game] = games(1)
    game.finished_at, game.state = None, {"piles": [["AS", "2S"]], "seq": 3}
    update_rows([game], ["finished_at", "state"])
    stored = Game.objects.get(pk=game.pk)
    assert (stored.finished_at, stored.state) == (None, {"piles": [["AS", "2S"]], "seq": 3})


def test_no_rows_is_no_statement():
    with CaptureQueriesContext(connection) as queries:
        assert update_rows([], ["status"]) == 0
    assert len(queries) == 0


@pytest.mark.parametrize("fields", [["id"], ["status", "status"]])
def test_the_primary_key_or_a_field_twice_is_refused(fields):
    with pytest.raises(ValueError):
        update_rows(games(1), fields)


def test_an_expression_or_an_unsaved_row_is_refused_and_writes_nothing():
    from django.db.models import F

    [game] = games(1)
    game.move_count = F("move_count") + 1
    with pytest.raises(TypeError):
        update_rows([game], ["move_count"])
    with pytest.raises(ValueError):
        update_rows([Game(variant="penguin", seed=1)], ["status"])
    assert Game.objects.get().move_count == 0


def test_one_or_none_is_the_row_of_a_unique_key_or_none_read_unsorted():
    [game] = games(1)
    with CaptureQueriesContext(connection) as queries:
        assert one_or_none(Game.objects.filter(public_id=game.public_id)) == game
        assert one_or_none(Game.objects.filter(public_id="nothing")) is None
    assert len(queries) == 2
    assert not any("ORDER BY" in q["sql"] for q in queries), [q["sql"] for q in queries]
    assert Game._meta.ordering  # what `.first()` would have sorted by
