"""An arena removed under a player's press. An admin's edit of a standing schedule removes its
coming arenas that nobody joined and whose start is gone, holding their rows' locks until it
commits; a Join pressed at that moment waits for the edit, then finds its arena gone. Every write
of a player that can meet a removed arena answers as an unknown arena does (the views' 404
`not_found`, the socket's `not_found` and 4004 close) and changes nothing."""

import asyncio
import threading
import time

import pytest
from django.db import IntegrityError, connection

from arenas import actions, schedule
from arenas.models import Arena, ArenaPlayer, ArenaSchedule
from games.identity import socket_ticket
from tests.required import unavailable
from tests.threads import ConnectionThread

# A join's insert checks its arena's key at the commit: only a transaction that commits meets it.
pytestmark = pytest.mark.django_db(transaction=True)

NOT_FOUND = {"error": "not_found", "note": "there is no arena with this link"}


def press(client, arena: Arena, button: str, script: bool = True, **form):
    """A button of the arena's page, as its script sends it (or as a form without scripts)."""
    accept = {"HTTP_ACCEPT": "application/json"} if script else {}
    return client.post(f"/arenas/{arena.public_id}/{button}/", form, **accept)


def a_lock_is_waited_for(within_s: float = 10) -> bool:
    """Whether, within `within_s`, a connection of this database waits for a lock."""
    deadline = time.monotonic() + within_s
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


def test_a_join_that_waited_for_the_edit_removing_its_arena_is_not_found(make_client, monkeypatch):
    """The admin moves an hourly schedule's starts by a quarter: its next arena, nobody in it,
    is removed. Ann, whose page showed it, presses Join while the edit holds the arena's row:
    her insert waits for the edit's commit, then the arena is gone. She is told there is no such
    arena (not a server error), and nothing is written."""
    if connection.vendor != "postgresql":
        unavailable("row locks need PostgreSQL (CI runs it)")
    hourly = ArenaSchedule.objects.create(variant="penguin", every_minutes=60, length_minutes=30)
    schedule.make_coming(hours=2)
    arena = Arena.objects.filter(schedule=hourly).earliest("starts_at")
    ann = make_client("Ann")
    removed, release = threading.Event(), threading.Event()
    make_coming = schedule.make_coming

    def making_after_a_pause(*args, **kwargs):
        """Inside the edit's transaction, its arenas removed and their rows' locks held."""
        removed.set()
        release.wait(30)
        return make_coming(*args, **kwargs)

    def edit() -> schedule.Remade:
        hourly.offset_minutes = 15
        hourly.save()
        return schedule.remake_coming(hourly)

    monkeypatch.setattr(schedule, "make_coming", making_after_a_pause)
    admin = ConnectionThread(edit)
    admin.start()
    try:
        assert removed.wait(10)
        join = ConnectionThread(press, ann, arena, "join")
        join.start()
        assert a_lock_is_waited_for(), "the join did not wait for the edit"
    finally:
        release.set()
    admin.join(30)
    join.join(30)
    assert admin.error is None and admin.result.removed >= 1
    assert join.error is None, join.error
    assert (join.result.status_code, join.result.json()) == (404, NOT_FOUND)
    assert not Arena.objects.filter(pk=arena.pk).exists()
    assert not ArenaPlayer.objects.filter(player=ann.player).exists()


@pytest.fixture
def removed_on_the_way(monkeypatch):
    """removed_on_the_way(name): the arena is removed after the view found it, just before the
    action `name` writes (as an admin's edit committed in between)."""

    def remove_before(name: str) -> None:
        action = getattr(actions, name)

        def removing_first(arena, *args):
            Arena.objects.filter(pk=arena.pk).delete()
            return action(arena, *args)

        monkeypatch.setattr(actions, name, removing_first)

    return remove_before


def test_a_join_meeting_a_removed_arena_is_not_found_for_the_page_s_script(
    make_arena, make_client, removed_on_the_way
):
    arena, ann = make_arena(starts_in_s=600), make_client("Ann")
    removed_on_the_way("do_join")
    answer = press(ann, arena, "join")
    assert (answer.status_code, answer.json()) == (404, NOT_FOUND)
    assert not ArenaPlayer.objects.exists()


def test_a_join_meeting_a_removed_arena_is_the_missing_arena_s_page_for_a_form(
    make_arena, make_client, removed_on_the_way
):
    """Without scripts: the page an unknown arena's link gets, saying so."""
    arena, ann = make_arena(starts_in_s=600), make_client("Ann")
    removed_on_the_way("do_join")
    answer = press(ann, arena, "join", script=False)
    assert answer.status_code == 404
    assert "There is no arena with this link." in answer.content.decode()
    assert not ArenaPlayer.objects.exists()


@pytest.mark.parametrize(
    ("button", "form", "action"),
    [
        ("pause", {"paused": "1"}, "do_pause"),
        ("pause", {"paused": "0"}, "do_pause"),
        ("leave", {}, "do_leave"),
    ],
)
def test_pause_resume_and_leave_meeting_a_removed_arena_are_not_found(
    make_arena, make_client, removed_on_the_way, button, form, action
):
    """Not `not_in_arena`: there is no arena left to be in."""
    arena, ann = make_arena(starts_in_s=600), make_client("Ann")
    actions.do_join(arena, ann.player)
    removed_on_the_way(action)
    answer = press(ann, arena, button, **form)
    assert (answer.status_code, answer.json()) == (404, NOT_FOUND)
    answer = press(ann, arena, button, script=False, **form)
    assert answer.status_code == 404


@pytest.mark.parametrize("paused", [True, False])
def test_a_pause_whose_entry_goes_with_its_arena_before_its_write_is_not_found(
    make_arena, player, monkeypatch, paused
):
    """The entry read, then the arena removed with it (its entries go with it) before the
    pause's write: the write finds nothing, and says the arena is gone."""
    arena = make_arena(starts_in_s=600)
    actions.do_join(arena, player)
    need_entry = actions.need_entry

    def found_then_removed(arena, player):
        entry = need_entry(arena, player)
        Arena.objects.filter(pk=arena.pk).delete()
        return entry

    monkeypatch.setattr(actions, "need_entry", found_then_removed)
    with pytest.raises(actions.ArenaRuleError) as refused:
        actions.do_pause(arena, player, paused)
    assert refused.value.code == "not_found"


def test_pausing_an_arena_one_never_joined_is_still_not_in_arena(make_arena, make_client):
    arena, ann = make_arena(starts_in_s=600), make_client("Ann")
    answer = press(ann, arena, "pause", paused="1")
    assert (answer.status_code, answer.json()["error"]) == (409, "not_in_arena")


def test_an_arena_that_exists_is_not_taken_for_removed_on_another_integrity_error(
    make_arena, player, monkeypatch
):
    """Only a missing arena is `not_found`: any other failed insert is the error it was."""
    arena = make_arena(starts_in_s=600)

    def failing(*args, **kwargs):
        raise IntegrityError("something else")

    monkeypatch.setattr(ArenaPlayer.objects, "get_or_create", failing)
    with pytest.raises(IntegrityError):
        actions.do_join(arena, player)
    assert not ArenaPlayer.objects.exists()


@pytest.mark.usefixtures("fast_ticks")
async def test_a_ticket_sent_over_the_socket_of_a_removed_arena_is_not_found(
    make_arena, arena_socket, run, make_client
):
    """The page's socket was open when its arena was removed; a button's ticket sent over it then
    gets what opening the socket of an unknown arena gets: `not_found`, then the 4004 close."""
    arena = await run(make_arena, 600)
    ann = await run(make_client, "Ann")
    socket = await arena_socket(ann, arena.public_id)
    await socket.expect("standings")
    ticket = await run(socket_ticket, ann.player, arena.socket_path)
    await run(lambda: Arena.objects.filter(pk=arena.pk).delete())
    async with asyncio.timeout(10):  # the boards come every few seconds meanwhile
        error = await socket.request({"type": "player", "ticket": ticket}, "error")
    assert (error["code"], error["reason"]) == ("not_found", "there is no arena with this link")
    assert error["ref"] == "player"
    closed = await socket.receive_output(10)
    while closed["type"] != "websocket.close":
        closed = await socket.receive_output(10)
    assert closed["code"] == 4004
    assert not await run(lambda: ArenaPlayer.objects.exists())
