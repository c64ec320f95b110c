"""A race ends when its last racer is done, and its done racers wait for that end: for the
results, the ratings, a rematch. So the server resigns, as the player could have, the racers
who would hold the others until the time limit, or a race without one until its two-hour cap:

- those who left, once nobody still racing in the race has had a page open for
  `RACER_GONE_AFTER_S`;
- those still racing while someone else is done, once none of them has made a move for
  `RACE_IDLE_AFTER_S` (counted from the last move of any of them, or from the last of the
  others' ends if later).

Each server looks every few seconds in the races its pages show racers of, and
`close_overdue_races` every minute in every race (races/holdups.py). An arena looks at its own
races itself, and has its idle racers sit out (tests/arenas/test_arena_idle_racer.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from games.actions import get_game_update
from games.models import Move
from races import actions, holdups, presence, results
from races import play as race_play
from races.clock import since_start_ms
from races.models import Race, Racer

GONE = settings.RACER_GONE_AFTER_S
IDLE = settings.RACE_IDLE_AFTER_S

pytestmark = pytest.mark.usefixtures("no_countdown")


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


@pytest.fixture
def friends_race(make_client, make_race):
    """friends_race(*names, time_limit_s=None): a race among friends (no time limit unless
    given) hosted by the first, all of them in it, started long enough ago for any clock
    below, every page open; the race and its players."""

    def make(*names: str, time_limit_s: int | None = None) -> tuple[Race, list]:
        clients = [make_client(name) for name in names]
        race = make_race(clients[0], time_limit_s=time_limit_s)
        for client in clients[1:]:
            actions.do_join_race(race, client.player)
        actions.do_start_race(race, clients[0].player)
        Race.objects.filter(pk=race.pk).update(starts_at=ago(4 * IDLE))
        Racer.objects.filter(race=race).update(seen_at=timezone.now())
        race.refresh_from_db()
        race.clients = clients
        return race, [client.player for client in clients]

    return make


def done(race: Race, player, seconds_ago: float) -> None:
    """The player resigned this long ago."""
    actions.do_resign(race, player)
    race.refresh_from_db()
    Racer.objects.filter(race=race, player=player).update(
        done_ms=since_start_ms(race, ago(seconds_ago))
    )


def last_seen(race: Race, player, seconds_ago: float | None) -> None:
    """A page of the player's in the race was last seen this long ago (None: never)."""
    seen = None if seconds_ago is None else ago(seconds_ago)
    Racer.objects.filter(race=race, player=player).update(seen_at=seen)


def moved(race: Race, player, seconds_ago: float) -> None:
    """The player made a move this long ago (their last)."""
    racer = Racer.objects.select_related("game").get(race=race, player=player)
    race_play.do_race_move(race, player, get_game_update(racer.game).legal[0], racer.game.seq)
    Move.objects.filter(game=racer.game).update(at=ago(seconds_ago))


def resigned_for(race: Race, player) -> str:
    return Racer.objects.get(race=race, player=player).resigned_for


def test_a_friend_who_left_is_resigned_so_the_others_have_their_results_and_rematch(
    friends_race, capsys
):
    race, (ann, bob, cat) = friends_race("Ann", "Bob", "Cat")
    done(race, ann, 20)
    done(race, bob, 10)
    last_seen(race, cat, GONE + 5)  # Cat closed her page; the race has no time limit

    call_command("close_overdue_races")
    assert "resigned 1 racer who left or idled" in capsys.readouterr().out
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    assert resigned_for(race, cat) == Racer.ResignedFor.LEFT
    shown = {row.name: row.status for row in results.rows(race)}
    assert shown == {"Ann": "Resigned", "Bob": "Resigned", "Cat": "Left the race"}
    rematch = actions.do_rematch(race, ann)  # at once, not after the two-hour cap
    assert rematch.status == Race.Status.LOBBY
    # Cat is not there: she is not taken along, and the others do not wait for her in the lobby.
    assert sorted(rematch.racers.values_list("name", flat=True)) == ["Ann", "Bob"]


def test_a_rematch_leaves_out_those_resigned_as_idle_unless_they_ask(friends_race):
    race, (ann, bob, cat) = friends_race("Ann", "Bob", "Cat")
    moved(race, cat, 3 * IDLE)
    done(race, ann, 2 * IDLE)  # Bob and Cat walked away from their pages
    assert holdups.resign_in(None) == 2

    rematch = actions.do_rematch(race, ann)
    assert list(rematch.racers.values_list("name", flat=True)) == ["Ann"]
    actions.do_join_race(rematch, cat)  # Cat is back, and joins it by its code
    assert sorted(rematch.racers.values_list("name", flat=True)) == ["Ann", "Cat"]


def test_a_racer_who_left_and_came_back_may_ask_for_the_rematch_themselves(friends_race):
    race, (ann, bob) = friends_race("Ann", "Bob")
    done(race, ann, 10)
    last_seen(race, bob, GONE + 5)
    holdups.resign_in(None)

    rematch = actions.do_rematch(race, bob)
    assert sorted(rematch.racers.values_list("name", flat=True)) == ["Ann", "Bob"]


def test_the_last_racer_idle_while_the_others_wait_is_resigned(friends_race):
    race, (ann, bob) = friends_race("Ann", "Bob", time_limit_s=600)
    moved(race, bob, 2 * IDLE)
    done(race, ann, IDLE + 5)  # Bob's clock runs from Ann's end, after his last move

    assert holdups.resign_in(None) == 1
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    assert resigned_for(race, bob) == Racer.ResignedFor.IDLE
    shown = {row.name: row.status for row in results.rows(race)}
    assert shown == {"Ann": "Resigned", "Bob": "Resigned: idle"}


def test_the_idle_clock_runs_from_the_last_move_if_it_came_after_the_others_ends(friends_race):
    race, (ann, bob) = friends_race("Ann", "Bob")
    done(race, ann, 3 * IDLE)
    moved(race, bob, IDLE - 10)

    assert holdups.resign_in(None) == 0
    Move.objects.filter(game__racer__race=race).update(at=ago(IDLE + 1))
    assert holdups.resign_in(None) == 1


def test_a_race_someone_still_plays_is_left_alone(friends_race):
    """Cat left, but Bob is there and plays: the race is not over anyway, and Cat may come
    back."""
    race, (ann, bob, cat) = friends_race("Ann", "Bob", "Cat")
    done(race, ann, 3 * IDLE)
    last_seen(race, cat, GONE + 5)
    moved(race, bob, IDLE - 10)

    assert holdups.resign_in(None) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_all_still_racing_idle_while_another_waits_are_resigned_together(friends_race):
    """Ann is done; Bob and Cat left their pages open and walked away: neither has moved for a
    minute since Ann's end, so both are resigned and Ann has her results."""
    race, (ann, bob, cat) = friends_race("Ann", "Bob", "Cat")
    moved(race, bob, 3 * IDLE)
    done(race, ann, IDLE + 5)

    assert holdups.resign_in(None) == 2
    race.refresh_from_db()
    assert race.status == Race.Status.FINISHED
    assert resigned_for(race, bob) == resigned_for(race, cat) == Racer.ResignedFor.IDLE
    assert resigned_for(race, ann) == ""


def test_one_who_still_moves_keeps_the_race_going_for_the_others_still_racing(friends_race):
    """Cat idles, but Bob moved within the minute: he may still be playing, so neither is
    resigned. Once Bob is done, Cat's minute runs from his end."""
    race, (ann, bob, cat) = friends_race("Ann", "Bob", "Cat")
    done(race, ann, 3 * IDLE)
    moved(race, bob, IDLE - 10)

    assert holdups.resign_in(None) == 0
    done(race, bob, IDLE - 10)
    assert holdups.resign_in(None) == 0
    done_at = Racer.objects.get(race=race, player=bob).done_ms
    Racer.objects.filter(race=race, player=bob).update(done_ms=done_at - 11_000)
    assert holdups.resign_in(None) == 1
    assert resigned_for(race, cat) == Racer.ResignedFor.IDLE
    assert resigned_for(race, bob) == ""


def test_nobody_done_nobody_waits_however_long_everyone_idles(friends_race):
    race, _ = friends_race("Ann", "Bob")  # started four minutes ago, no move since
    assert holdups.resign_in(None) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_only_the_races_where_someone_may_hold_the_others_are_read_further(friends_race):
    """The look's first statement: everyone still racing unseen, or racers still racing while
    someone else has been done for the idle time (whether they idle, the next statement
    reads)."""
    playing, _ = friends_race("Ann", "Bob")  # both seen, both racing
    left, (cat, dan) = friends_race("Cat", "Dan")
    last_seen(left, cat, GONE + 5)
    last_seen(left, dan, None)
    last, (eve, fay) = friends_race("Eve", "Fay")
    done(last, eve, IDLE + 5)  # Fay, the last one, may idle (or may have moved since)
    two, (gil, hal, ivy) = friends_race("Gil", "Hal", "Ivy")
    done(two, gil, IDLE + 5)  # Hal and Ivy, both still racing, likewise
    just, (jo, kim) = friends_race("Jo", "Kim")
    done(just, jo, 5)  # Kim has seen Jo's end only now: not idle yet
    alone, _ = friends_race("Lee")

    races = {playing.pk, left.pk, last.pk, two.pk, just.pk, alone.pk}
    assert sorted(holdups.held_up(races)) == sorted([left.pk, last.pk, two.pk])


def test_a_race_of_one_holds_nobody(friends_race):
    race, _ = friends_race("Ann")
    assert holdups.resign_in(None) == 0
    assert Race.objects.get(pk=race.pk).status == Race.Status.STARTED


def test_a_server_looks_only_in_the_races_its_pages_show(friends_race):
    shown, (ann, bob) = friends_race("Ann", "Bob")
    other, (cat, dan) = friends_race("Cat", "Dan")
    for race, (first, last) in ((shown, (ann, bob)), (other, (cat, dan))):
        done(race, first, 10)
        last_seen(race, last, GONE + 5)

    assert holdups.resign_in({shown.pk}) == 1
    assert Race.objects.get(pk=shown.pk).status == Race.Status.FINISHED
    assert Race.objects.get(pk=other.pk).status == Race.Status.STARTED


@pytest.mark.django_db(transaction=True)
async def test_the_page_of_a_racer_who_waits_hears_the_end_when_the_other_left(
    friends_race, race_socket, run, monkeypatch
):
    """Over a real socket: Ann is done and her page open; Bob's page never opened. Her server's
    beat looks, resigns Bob, and the close reaches her page."""
    monkeypatch.setattr(holdups, "LOOK_EVERY_S", 0.2)
    monkeypatch.setattr(presence, "NEW_WITHIN_S", 0.1)
    race, (ann, bob) = await run(friends_race, "Ann", "Bob")
    await run(done, race, ann, 5)
    await run(last_seen, race, bob, None)

    socket = await race_socket(race.clients[0], race.code)
    await socket.expect("snapshot")
    finished = await socket.expect("finished", timeout=10)
    racers = {racer["name"]: racer for racer in finished["racers"]}
    assert racers["Bob"]["resigned_for"] == "left"
    assert racers["Ann"]["resigned_for"] is None
