"""A racer who leaves an arena's race without resigning (their page closed, their connection
gone) does not hold it open until its time limit: once no page of theirs has been seen for
`RACER_GONE_AFTER_S` and nobody else of the race still plays, they are resigned, the race closes, and the
racers done in it are placed again. Their servers say which racers' pages are open
(races/presence.py), so a second tab on another server keeps a racer in the race."""

import asyncio
import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from arenas import actions, holdups, placement, rooms
from arenas.models import Arena, ArenaPlayer, ArenaResult
from games.actions import get_game_update
from games.rows import touch
from races import actions as race_actions
from races import holdups as race_holdups
from races import play as race_play
from races import presence, results
from races.lifecycle import RacerStatus
from races.models import Race, RaceEvent, Racer
from tests.required import unavailable
from tests.threads import ConnectionThread

GONE = int(settings.RACER_GONE_AFTER_S)


def started_long_ago(race: Race, seconds: int = GONE + 30) -> None:
    """The race started this long ago (its time limit still far off)."""
    Race.objects.filter(pk=race.pk).update(starts_at=timezone.now() - timedelta(seconds=seconds))


def last_seen(race: Race, player, seconds_ago: float | None) -> None:
    """A page of the player's in the race was last seen this long ago (None: never)."""
    when = None if seconds_ago is None else timezone.now() - timedelta(seconds=seconds_ago)
    Racer.objects.filter(race=race, player=player).update(seen_at=when)


def status_of(race: Race, player) -> str:
    return Racer.objects.get(race=race, player=player).status


def placed_three(arena, here) -> tuple[Race, list]:
    players = [here(name) for name in ("Ann", "Bob", "Cat")]
    [race] = placement.place(arena.pk)
    started_long_ago(race)
    return race, players


def test_racers_who_left_a_race_nobody_still_plays_are_resigned_and_it_closes(arena, here):
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)  # Ann is done, and waits for the race to end
    last_seen(race, bob, GONE + 5)  # Bob's page closed
    last_seen(race, cat, None)  # Cat's page never opened

    assert holdups.resign_holdups(arena) == 2
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    assert {status_of(race, p) for p in (bob, cat)} == {RacerStatus.RESIGNED}
    assert ArenaResult.objects.filter(race=race).count() == 3  # leaving counts as it stands
    # Not paused: back on the arena's page, they are placed again.
    assert not ArenaPlayer.objects.filter(arena=arena, paused=True).exists()


def test_a_racer_resigned_for_leaving_is_told_apart_from_one_who_resigned(arena, here):
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)
    last_seen(race, bob, GONE + 5)
    last_seen(race, cat, None)
    holdups.resign_holdups(arena)

    said = {}  # each racer as the race's numbered events last gave them
    for event in RaceEvent.objects.filter(race=race).order_by("seq"):
        said.update({r["name"]: r for r in event.data.get("racers", [])})
    assert [said[name]["resigned_for"] for name in ("Ann", "Bob", "Cat")] == [None, "left", "left"]
    assert {said[name]["status"] for name in ("Ann", "Bob", "Cat")} == {"resigned"}
    shown = {row.name: row.status for row in results.rows(race)}
    assert shown == {"Ann": "Resigned", "Bob": "Left the race", "Cat": "Left the race"}


def test_a_race_in_which_someone_still_plays_is_left_alone(arena, here):
    """Bob left, but Cat plays on: the race is not over anyway, and Bob may come back to it."""
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)
    last_seen(race, bob, GONE + 5)
    last_seen(race, cat, 2)

    assert holdups.resign_holdups(arena) == 0
    assert status_of(race, bob) == RacerStatus.PLAYING
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_a_page_seen_within_the_absence_keeps_its_racer_in_the_race(arena, here):
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)
    last_seen(race, bob, GONE - 5)  # a dropped connection, back in time
    last_seen(race, cat, GONE + 5)

    assert holdups.resign_holdups(arena) == 0
    assert status_of(race, bob) == status_of(race, cat) == RacerStatus.PLAYING


def test_nobody_counts_as_gone_in_a_race_s_first_seconds(arena, here):
    """The pages of a race just placed are still loading: never seen is not yet gone."""
    race, (ann, bob, cat) = placed_three(arena, here)
    started_long_ago(race, seconds=GONE - 10)
    for player in (ann, bob, cat):
        last_seen(race, player, None)

    assert holdups.resign_holdups(arena) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_only_the_arena_s_own_races_are_looked_at(arena, here, make_arena):
    other = make_arena(name="Another arena")
    race, players = placed_three(arena, here)
    for player in players:
        last_seen(race, player, None)

    assert holdups.resign_holdups(other) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_the_servers_own_looks_leave_an_arena_s_races_to_the_arena(arena, here):
    """Every server looks for holdups in the races its pages show, and the scheduler's minute in
    every race (races/holdups.py); the arena looks at its own, in the tick that places."""
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)
    for player in (bob, cat):
        last_seen(race, player, GONE + 5)

    assert race_holdups.resign_in({race.pk}) == race_holdups.resign_in(None) == 0
    assert holdups.resign_holdups(arena) == 2


def test_the_rooms_presence_tick_frees_the_done_racers_of_a_race_the_others_left(arena, here):
    """The done racer waits on the arena's room, whose tick says who is present every few
    seconds: with it, the others who left are resigned, and the waiting racer is placed."""
    race, (ann, bob, cat) = placed_three(arena, here)
    dan = here("Dan")  # free in the lobby since: the next race is Ann's and Dan's
    race_actions.do_resign(race, ann)
    for player in (bob, cat):
        last_seen(race, player, GONE + 5)

    since = timezone.now() - timedelta(minutes=5)
    found = rooms.tick_work(arena, [ann.pk, dan.pk], say_seen=True, since=since)
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    assert found[ann.pk][0] == found[dan.pk][0] != race.get_absolute_url()


def test_after_the_arena_s_end_the_scheduler_s_minute_resigns_who_left(arena, here, capsys):
    """No room places after the end, but a race under way then still counts: the minute ends
    it for its done racers' sake (and the arena's final standings')."""
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)
    for player in (bob, cat):
        last_seen(race, player, GONE + 5)
    Arena.objects.filter(pk=arena.pk).update(ends_at=timezone.now() - timedelta(seconds=5))

    call_command("run_arenas", hours=0)
    assert "resigned 2 racers who left or idled" in capsys.readouterr().out
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED


def test_a_server_says_the_racers_its_pages_show_who_still_race(arena, here):
    race, (ann, bob, cat) = placed_three(arena, here)
    race_actions.do_resign(race, ann)
    racers = {r.player_id: r.pk for r in Racer.objects.filter(race=race)}

    assert presence.say_seen(list(racers.values())) == 2  # a done racer holds nothing
    seen = dict(Racer.objects.filter(race=race).values_list("player_id", "seen_at"))
    assert seen[ann.pk] is None and seen[bob.pk] and seen[cat.pk]


def test_a_move_says_its_racer_is_seen(arena, here):
    """The beat passes over a row a move batch holds: the batch says it itself."""
    race, (ann, bob, cat) = placed_three(arena, here)
    racer = Racer.objects.get(race=race, player=ann)
    race_play.do_race_move(race, ann, get_game_update(racer.game).legal[0], 0)
    seen = dict(Racer.objects.filter(race=race).values_list("player_id", "seen_at"))
    assert seen[ann.pk] is not None and seen[bob.pk] is None


@pytest.mark.django_db(transaction=True)
def test_a_beat_passes_over_a_row_another_transaction_holds_and_does_not_wait_for_it(arena, here):
    """A move batch or a close holds racers' rows: the beat writes the others at once, and the
    next beat says the held one (`games.rows.touch`)."""
    if connection.vendor != "postgresql":
        unavailable("row locks need PostgreSQL (CI runs it)")
    race, (ann, bob, cat) = placed_three(arena, here)
    held = Racer.objects.get(race=race, player=bob)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            Racer.objects.select_for_update().filter(pk=held.pk).update(moves=1)
            holding.set()
            release.wait(10)

    thread = ConnectionThread(hold)
    thread.start()
    try:
        assert holding.wait(10)
        wrote = touch(Racer.objects.filter(race=race), seen_at=timezone.now())
    finally:
        release.set()
        thread.join(10)
    assert thread.error is None and wrote == 2
    assert Racer.objects.get(pk=held.pk).seen_at is None


async def test_two_tabs_keep_a_racer_shown_until_both_close():
    shown = presence.Presence()
    shown.add(7, 1)
    shown.add(7, 1)
    shown.discard(7)
    assert shown.due() == [7]  # new, and still shown by the other tab
    shown.discard(7)
    shown.said_at = -presence.seen_every_s()
    assert shown.due() == [] and shown.race_of == {}
    shown.task.cancel()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("no_countdown")
async def test_an_open_race_page_is_said_seen_and_a_closed_one_no_longer(
    arena, arena_socket, race_socket, run, make_client, monkeypatch, settings
):
    """Over a real socket: the race's page, opened, is seen within a beat; closed, it is said no
    more, so its racer's `seen_at` grows old."""
    settings.RACER_GONE_AFTER_S = 0.6  # a beat every 0.2 s
    monkeypatch.setattr(presence, "NEW_WITHIN_S", 0.1)
    ann, bob = await run(make_client, "Ann"), await run(make_client, "Bob")
    for client in (ann, bob):
        await run(actions.do_join, arena, client.player)
        await run(actions.do_present, arena, client.player, True)
    [race] = await run(placement.place, arena.pk)

    async def seen_at(client):
        return await run(lambda: Racer.objects.get(race=race, player=client.player).seen_at)

    socket = await race_socket(ann, race.code)
    await socket.expect("snapshot")
    for _ in range(50):
        if await seen_at(ann) is not None:
            break
        await asyncio.sleep(0.05)
    first = await seen_at(ann)
    assert first is not None and await seen_at(bob) is None  # Bob's page never opened
    await asyncio.sleep(0.5)
    later = await seen_at(ann)
    assert later > first  # said again every beat while open
    await socket.disconnect()
    await asyncio.sleep(0.5)
    assert await seen_at(ann) - later < timedelta(seconds=0.35)  # at most a beat in flight
