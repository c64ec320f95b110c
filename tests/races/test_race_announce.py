"""Throttled progress: a quiet move is announced to the race at most once an interval
(settings.RACE_PROGRESS_INTERVAL_MS), cards home and status changes with the race's next tick
(settings.RACE_PROGRESS_TICK_MS), which carries every racer who changed since the last."""

from datetime import timedelta

import pytest
from django.utils import timezone

from races import actions
from races import clock as race_clock
from races import play as race_play
from races.models import Race, RaceEvent, Racer

pytestmark = pytest.mark.django_db(transaction=True)

INTERVAL_MS = 2000
# A fixed Penelope's Web deal (tests/races/conftest.py's make_race): t6 holds the Ace of spades.
QUIET, HOME = "t1-t3", "t6-f0"


@pytest.fixture
def throttled(settings):
    settings.RACE_PROGRESS_INTERVAL_MS = INTERVAL_MS


@pytest.fixture
def duel(make_client, make_race, no_countdown, throttled):
    """A running race of Ann and Bob; (race, Ann's player)."""
    ann, bob = make_client("Ann"), make_client("Bob")
    race = make_race(ann, time_limit_s=600)
    actions.do_join_race(race, bob.player)
    actions.do_start_race(race, ann.player)
    race.refresh_from_db()
    return race, ann.player


def progress_events(race: Race) -> list[RaceEvent]:
    return list(RaceEvent.objects.filter(race=race, kind="progress").order_by("seq"))


def play(race: Race, player, move: str):
    racer = Racer.objects.select_related("game").get(race=race, player=player)
    return race_play.do_race_move(race, player, move, racer.game.seq)


def age_the_race(race: Race, ms: int) -> None:
    """Move the race's start back: every stored ms-from-start moment gets `ms` older."""
    Race.objects.filter(pk=race.pk).update(
        starts_at=race.starts_at - timedelta(milliseconds=ms),
        ends_at=race.ends_at - timedelta(milliseconds=ms),
    )
    race.refresh_from_db()


def test_a_racers_first_move_is_announced(duel):
    race, ann = duel
    update = play(race, ann, QUIET)
    assert update.announced
    assert progress_events(race)[-1].data["racers"][0]["moves"] == 1


def test_a_quiet_move_soon_after_an_announcement_is_held_back(duel):
    race, ann = duel
    play(race, ann, QUIET)
    before = len(progress_events(race))
    update = race_play.do_race_undo(race, ann, 1)
    assert not update.announced
    assert len(progress_events(race)) == before
    assert Racer.objects.get(race=race, player=ann).moves == 0  # recorded all the same


def test_a_card_home_is_announced_at_once(duel):
    race, ann = duel
    play(race, ann, QUIET)
    update = play(race, ann, HOME)
    assert update.announced
    last = progress_events(race)[-1].data["racers"][0]
    assert last["cards"] == 1 and last["moves"] == 2


def test_a_quiet_move_after_the_interval_is_announced(duel):
    race, ann = duel
    play(race, ann, QUIET)
    age_the_race(race, INTERVAL_MS)
    assert race_play.do_race_undo(race, ann, 1).announced


def test_held_back_moves_are_announced_when_asked(duel):
    race, ann = duel
    play(race, ann, QUIET)
    race_play.do_race_undo(race, ann, 1)
    held_ms = race_clock.epoch_ms(timezone.now())
    assert race_play.do_announce(race, ann, held_ms)
    assert progress_events(race)[-1].data["racers"][0]["moves"] == 0


def test_an_announcement_since_covers_held_back_moves(duel):
    race, ann = duel
    play(race, ann, QUIET)
    race_play.do_race_undo(race, ann, 1)
    held_ms = race_clock.epoch_ms(timezone.now())
    age_the_race(race, INTERVAL_MS)
    play(race, ann, HOME)  # announced: cards home changed
    count = len(progress_events(race))
    assert not race_play.do_announce(race, ann, held_ms)
    assert len(progress_events(race)) == count


def test_nothing_is_announced_for_a_racer_who_has_finished(duel):
    race, ann = duel
    play(race, ann, QUIET)
    actions.do_resign(race, ann)
    count = len(progress_events(race))
    age_the_race(race, INTERVAL_MS)
    assert not race_play.do_announce(race, ann, race_clock.epoch_ms(timezone.now()))
    assert len(progress_events(race)) == count


@pytest.mark.usefixtures("fast_countdown")
async def test_the_socket_announces_a_held_back_move_itself(open_duo, settings):
    """A held-back move reaches the other racer as a `progress` event about an interval later,
    sent by its racer's socket with no further move."""
    duo = await open_duo(start=True)
    settings.RACE_PROGRESS_INTERVAL_MS = 1000
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    await ann.request({"type": "move", "move": QUIET, "seq": 0}, "ack")
    assert (await bob.expect("progress", timeout=5))["racers"][0]["moves"] == 1
    await ann.request({"type": "undo", "seq": 1}, "ack")
    late = await bob.expect("progress", timeout=5)
    assert late["racers"][0]["moves"] == 0
    assert late["at_ms"] >= 1000  # sent by the timer, an interval after the first announcement


@pytest.mark.usefixtures("fast_countdown")
async def test_one_tick_carries_every_racer_who_changed(open_duo, settings):
    """Moves of two racers within one tick reach the race as one `progress` event that lists
    both, a tick after the previous one."""
    duo = await open_duo(start=True)
    settings.RACE_PROGRESS_TICK_MS = 1000
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    await ann.request({"type": "move", "move": QUIET, "seq": 0}, "ack")
    first = await bob.expect("progress", timeout=5)  # the first of a while goes at once
    assert [r["moves"] for r in first["racers"]] == [1]
    await ann.request({"type": "move", "move": HOME, "seq": 1}, "ack")
    await bob.request({"type": "move", "move": QUIET, "seq": 0}, "ack")
    both = await bob.expect("progress", timeout=5)
    assert sorted((r["moves"], r["cards"]) for r in both["racers"]) == [(1, 0), (2, 1)]
    assert both["at_ms"] - first["at_ms"] >= 900
