"""Row locks hold up writers of the same row, not transactions that only refer to it: every
`select_for_update` is `FOR NO KEY UPDATE` (docs/architecture.md, "Row locks"). With a plain
`FOR UPDATE`, PostgreSQL's check of a new row's foreign key (`FOR KEY SHARE` on the row it
points to, at the commit) waited for the lock: in a 1,000-player arena every race's results and
every join queued behind the placement holding the arena's row."""

import threading

import pytest
from django.db import connection

from arenas import actions, placement
from arenas.models import ArenaPlayer
from games.models import Player
from tests.required import unavailable

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_countdown")]


@pytest.fixture(autouse=True)
def on_postgres():
    if connection.vendor != "postgresql":
        unavailable("row locks need PostgreSQL (CI runs it)")


def test_a_join_commits_while_a_placement_holds_the_arena_s_row(arena, here, monkeypatch):
    here("Ann"), here("Bob")
    cat = Player.objects.create(nickname="Cat")
    joined, errors = threading.Event(), []
    open_races = placement.open_races

    def opening_while_cat_joins(*args):
        """Inside the placement's transaction, the arena's row locked: Cat joins meanwhile."""
        worker = threading.Thread(target=join, args=(cat,))
        worker.start()
        errors.append(None if joined.wait(10) else "Cat's join waited for the placement")
        worker.join(30)
        return open_races(*args)

    def join(player):
        try:
            actions.do_join(arena, player)
            joined.set()
        finally:
            connection.close()

    monkeypatch.setattr(placement, "open_races", opening_while_cat_joins)
    [race] = placement.place(arena.pk)
    assert errors == [None]
    assert race.racers.count() == 2
    assert ArenaPlayer.objects.filter(arena=arena, player=cat).exists()
