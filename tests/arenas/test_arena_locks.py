"""Row locks hold up writers of the same row, not transactions that only refer to it: every
`select_for_update` is `FOR NO KEY UPDATE` (docs/architecture.md, "Row locks"). With a plain
`FOR UPDATE`, PostgreSQL's check of a new row's foreign key (`FOR KEY SHARE` on the row it
points to, at the commit) waited for the lock: in a 1,000-player arena every race's results and
every join queued behind the placement holding the arena's row."""

import threading

import pytest
from django.db import connection, transaction

from arenas import actions, placement
from arenas.models import ArenaPlayer
from games.models import Player
from tests.required import unavailable
from tests.threads import ConnectionThread

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


def test_the_room_s_heartbeat_passes_over_a_row_a_race_s_close_holds(arena, here):
    """A race's close locks its racers' arena rows (in id order) to add their points; the room's
    heartbeat says that its present players are still there. One `UPDATE` of them all locked rows
    in its own order and waited for the close's row while holding others the close was about to
    lock: PostgreSQL broke the deadlock by failing the close, and the race stayed open past its
    time (a crowd of 1,000). The heartbeat now passes over a held row (its next round says it
    again) and never waits."""
    ann, bob, cat = here("Ann"), here("Bob"), here("Cat")
    seen_at = dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "seen_at"))
    held, release = threading.Event(), threading.Event()

    def a_close_holding(player):
        with transaction.atomic():
            rows = ArenaPlayer.objects.select_for_update(no_key=True)
            list(rows.filter(arena=arena, player=player))
            held.set()
            release.wait(30)

    holder = ConnectionThread(a_close_holding, bob)
    holder.start()
    try:
        assert held.wait(10)
        heartbeat = ConnectionThread(actions.do_seen, arena, [ann.pk, bob.pk, cat.pk])
        heartbeat.start()
        heartbeat.join(5)
        waited = heartbeat.is_alive()
    finally:
        release.set()
        holder.join(30)
        heartbeat.join(30)
    assert not waited, "the heartbeat waited for the row the close holds"
    assert heartbeat.error is None and holder.error is None
    now = dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "seen_at"))
    assert now[ann.pk] > seen_at[ann.pk] and now[cat.pk] > seen_at[cat.pk]
    assert now[bob.pk] == seen_at[bob.pk]
