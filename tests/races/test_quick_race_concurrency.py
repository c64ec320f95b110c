"""One player pressing Quick race for two games at once (two tabs: two threads, each with its own
connection, on PostgreSQL) is seated in one race, not two: the placement locks the player's row
first, so the second press waits for the first and finds the player already waiting."""

import pytest
from django.db import connection

from games.models import Player
from races import quick
from races.models import Racer
from tests.required import unavailable
from tests.threads import all_at_once

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 5


@pytest.fixture(autouse=True)
def on_postgres():
    if connection.vendor != "postgresql":
        # The in-memory test SQLite locks tables instead of queueing writers.
        unavailable("two writers at once need PostgreSQL (CI runs it)")


def press_at_once(player: Player, variants: list[str]) -> tuple[list[int], list[Exception]]:
    """Each variant's Quick race pressed by the player in a thread of its own, all at once: the
    races they were placed in, and the errors."""
    threads = all_at_once(quick.do_quick_race, [(player, variant) for variant in variants])
    errors = [thread.error for thread in threads if thread.error is not None]
    return [thread.result.pk for thread in threads if thread.error is None], errors


def test_two_presses_at_once_for_two_games_seat_the_player_once():
    """Penguin and Queenie pressed at the same moment, five times over: one race each time."""
    for round_ in range(ROUNDS):
        player = Player.objects.create(nickname=f"Tabs{round_}")
        races, errors = press_at_once(player, ["penguin", "queenie"])
        assert not errors
        assert len(races) == 2 and len(set(races)) == 1, races
        assert Racer.objects.filter(player=player).count() == 1
