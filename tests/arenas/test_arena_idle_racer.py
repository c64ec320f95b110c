"""An arena's race ends when its last racer is done, and its done racers wait for that end
before their next race. So the last racer still racing, everyone else done, who makes no move
for `RACE_IDLE_AFTER_S` (60 s), counted from their last move or from the last of the others'
ends if that came later, is resigned as idle: the race closes, it counts as it stands, and its
racers are placed again. Two or more still racing are resigned together once none of them has
moved for as long; one of them who keeps moving keeps the race going, as a last racer who keeps
moving does. The idle racer then sits out the arena's next races until they resume:
away from a page left open, they would be placed again, and hold each next race a minute more
(docs/arenas.md; their page: race.js counts the time to move down)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from arenas import actions, holdups, placement, rooms
from arenas.models import ArenaPlayer, ArenaResult
from games.actions import get_game_update
from games.models import Move
from races import actions as race_actions
from races import play as race_play
from races import results
from races.clock import since_start_ms
from races.models import Race, RaceEvent, Racer
from tests.arenas.test_arena_racers_who_left import placed_three, started_long_ago

IDLE = settings.RACE_IDLE_AFTER_S


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def done(race: Race, player, seconds_ago: float) -> None:
    """The player resigned this long ago."""
    race_actions.do_resign(race, player)
    race.refresh_from_db()
    at = since_start_ms(race, ago(seconds_ago))
    Racer.objects.filter(race=race, player=player).update(done_ms=at)


def moved(race: Race, player, seconds_ago: float) -> None:
    """The player made a move this long ago (their last)."""
    racer = Racer.objects.select_related("game").get(race=race, player=player)
    update = get_game_update(racer.game)
    race_play.do_race_move(race, player, update.legal[0], racer.game.seq)
    Move.objects.filter(game=racer.game).update(at=ago(seconds_ago))


def race_of_three(arena, here) -> tuple[Race, list]:
    """Ann, Bob and Cat race, their pages open; it started long enough ago for any of the
    clocks below."""
    race, players = placed_three(arena, here)
    started_long_ago(race, seconds=int(4 * IDLE))
    Racer.objects.filter(race=race).update(seen_at=timezone.now())
    race.refresh_from_db()
    return race, players


def resigned_for(race: Race, player) -> str:
    return Racer.objects.get(race=race, player=player).resigned_for


def test_the_last_racer_idle_while_the_others_wait_is_resigned_and_the_race_closes(arena, here):
    race, (ann, bob, cat) = race_of_three(arena, here)
    moved(race, cat, 2 * IDLE)
    done(race, ann, 2 * IDLE)
    done(race, bob, IDLE + 5)  # the last of the others: Cat's clock runs from here

    assert holdups.resign_holdups(arena) == 1
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    assert resigned_for(race, cat) == Racer.ResignedFor.IDLE
    assert ArenaResult.objects.filter(race=race).count() == 3  # it counts as it stands
    paused = dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "paused"))
    assert paused == {ann.pk: False, bob.pk: False, cat.pk: True}  # Cat sits out what comes
    said = {}  # each racer as the race's numbered events last gave them
    for event in RaceEvent.objects.filter(race=race).order_by("seq"):
        said.update({r["name"]: r for r in event.data.get("racers", [])})
    assert [said[name]["resigned_for"] for name in ("Ann", "Bob", "Cat")] == [None, None, "idle"]
    shown = {row.name: row.status for row in results.rows(race)}
    assert shown == {"Ann": "Resigned", "Bob": "Resigned", "Cat": "Resigned: idle"}


def test_the_idle_clock_starts_at_the_last_of_the_others_ends_if_that_came_after_the_move(
    arena, here
):
    race, (ann, bob, cat) = race_of_three(arena, here)
    moved(race, cat, 3 * IDLE)
    done(race, ann, 3 * IDLE)
    done(race, bob, IDLE - 10)  # Bob was done under a minute ago: Cat has time left

    assert holdups.resign_holdups(arena) == 0
    Racer.objects.filter(race=race, player=bob).update(done_ms=since_start_ms(race, ago(IDLE + 1)))
    assert holdups.resign_holdups(arena) == 1


@pytest.mark.parametrize("last_move_s", [IDLE - 10, 5])
def test_a_last_racer_who_moved_within_the_window_plays_on(arena, here, last_move_s):
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, 3 * IDLE)
    done(race, bob, 2 * IDLE)
    moved(race, cat, last_move_s)

    assert holdups.resign_holdups(arena) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_a_last_racer_who_never_moved_counts_from_the_others_ends(arena, here):
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, IDLE + 5)
    done(race, bob, IDLE - 10)
    assert holdups.resign_holdups(arena) == 0
    done_long_ago = since_start_ms(race, ago(IDLE + 2))
    Racer.objects.filter(race=race, player=bob).update(done_ms=done_long_ago)
    assert holdups.resign_holdups(arena) == 1
    assert resigned_for(race, cat) == Racer.ResignedFor.IDLE


def test_a_player_paused_since_resumes_and_is_placed_again(arena, here):
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, 2 * IDLE)
    done(race, bob, IDLE + 5)
    holdups.resign_holdups(arena)
    actions.do_pause(arena, cat, False)  # Cat is back: Resume
    assert placement.place(arena.pk)  # with Ann and Bob, free since the race closed
    assert Racer.objects.filter(player=cat).exclude(race=race).exists()


def test_two_still_racing_who_both_idle_are_both_resigned_and_sit_out(arena, here):
    """Ann is done and waits for her next race; Bob and Cat never moved, in a race four minutes
    old: both idle, both are resigned, and both sit out."""
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, IDLE + 5)

    assert holdups.resign_holdups(arena) == 2
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    assert resigned_for(race, bob) == resigned_for(race, cat) == Racer.ResignedFor.IDLE
    paused = ArenaPlayer.objects.filter(arena=arena, paused=True)
    assert sorted(paused.values_list("player__nickname", flat=True)) == ["Bob", "Cat"]


def test_two_still_racing_one_of_whom_moves_are_left_alone(arena, here):
    """Nobody waits on Cat alone while Bob may still play: the race goes on."""
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, 3 * IDLE)
    moved(race, bob, IDLE - 10)

    assert holdups.resign_holdups(arena) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_a_race_whose_racers_all_still_race_is_left_alone(arena, here):
    race, _ = race_of_three(arena, here)
    assert holdups.resign_holdups(arena) == 0


def test_the_rooms_tick_frees_the_done_racers_of_a_race_whose_last_racer_idles(arena, here):
    """The done racers wait on the arena's room: its tick resigns the idle last racer, and
    places them again, with Dan, free in the lobby."""
    race, (ann, bob, cat) = race_of_three(arena, here)
    dan = here("Dan")
    done(race, ann, 2 * IDLE)
    done(race, bob, IDLE + 5)
    Racer.objects.filter(race=race).update(seen_at=timezone.now())  # Cat's page is open

    since = timezone.now() - timedelta(minutes=5)
    found = rooms.tick_work(arena, [ann.pk, bob.pk, dan.pk], say_seen=True, since=since)
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    assert resigned_for(race, cat) == Racer.ResignedFor.IDLE
    assert found[ann.pk][0] == found[bob.pk][0] == found[dan.pk][0] != race.get_absolute_url()
    assert not Racer.objects.filter(player=cat).exclude(race=race).exists()  # paused: not placed


def test_a_racer_resigned_as_idle_is_paused_by_the_close_itself(arena, here):
    """Whoever resigns Cat as idle (the arena's look, or any other), the race's close pauses
    her in its own transaction: she is never free for a placement between the two, and the
    close's `arena` event already finds her sitting out."""
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, 2 * IDLE)
    done(race, bob, IDLE + 5)

    race_actions.do_resign(race, cat, resigned_for=Racer.ResignedFor.IDLE)
    assert Race.objects.get(pk=race.pk).status == Race.Status.FINISHED
    paused = dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "paused"))
    assert paused == {ann.pk: False, bob.pk: False, cat.pk: True}
    [next_race] = placement.place(arena.pk)
    placed = next_race.racers.values_list("player__nickname", flat=True)
    assert sorted(placed) == ["Ann", "Bob"]  # Cat sits out


def test_a_racer_who_resigns_themselves_is_not_paused(arena, here):
    race, (ann, bob, cat) = race_of_three(arena, here)
    done(race, ann, 2 * IDLE)
    done(race, bob, IDLE + 5)
    race_actions.do_resign(race, cat)
    assert not ArenaPlayer.objects.filter(arena=arena, paused=True).exists()
