"""Live progress: a race move reaches the race's sockets as a `progress` frame that is neither
numbered nor stored (the racer's row, written with the move, is the record), at most once a tick
(settings.RACE_PROGRESS_TICK_MS) per socket, each carrying every racer who moved since the last,
on this server process or another. A finish is a numbered event, stored with the move that made
it."""

import asyncio
from types import SimpleNamespace

import pytest

from games.groups import GROUPS, group_send
from races import actions
from races import play as race_play
from races.models import Race, RaceEvent, Racer
from races.results import series
from tests.support import slow_group_discard

pytestmark = pytest.mark.django_db(transaction=True)

# A fixed Penelope's Web deal (tests/races/conftest.py's make_race): t6 holds the Ace of spades.
QUIET, HOME = "t1-t3", "t6-f0"
LIVE_KEYS = {"id", "cards", "cards_at_ms", "moves", "status"}


@pytest.fixture
def duel(make_client, make_race, no_countdown):
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


def test_a_move_is_recorded_on_the_racers_row_not_as_an_event(duel):
    race, ann = duel
    play(race, ann, QUIET)
    racer = Racer.objects.get(race=race, player=ann)
    assert (racer.moves, racer.cards) == (1, 0)
    assert progress_events(race) == []


def test_each_change_of_cards_home_is_a_point_of_the_racers_curve(duel):
    race, ann = duel
    play(race, ann, QUIET)
    play(race, ann, HOME)
    race_play.do_race_undo(race, ann, 2)
    curve = Racer.objects.get(race=race, player=ann).curve
    assert [cards for _, cards in curve] == [1, 0]
    assert curve[0][0] <= curve[1][0]


def test_the_results_chart_draws_the_curves(duel):
    race, ann = duel
    play(race, ann, HOME)
    ann_id = Racer.objects.get(race=race, player=ann).public_id
    assert [cards for _, cards in series(race)[ann_id]] == [0, 1]  # the start, then the card


def test_a_resignation_is_a_numbered_progress_event(duel):
    race, ann = duel
    play(race, ann, QUIET)
    actions.do_resign(race, ann)
    (event,) = progress_events(race)
    assert event.data["racers"][0]["status"] == "resigned"


@pytest.mark.usefixtures("fast_countdown")
async def test_live_progress_is_not_numbered_and_says_only_where_racers_are(open_duo):
    duo = await open_duo(start=True)
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    await ann.request({"type": "move", "move": HOME, "seq": 0}, "ack")
    progress = await bob.expect("progress", timeout=5)
    assert "event" not in progress and "standings" not in progress
    (racer,) = progress["racers"]
    assert set(racer) == LIVE_KEYS
    assert (racer["id"], racer["cards"], racer["moves"]) == (duo.ids["ann"], 1, 1)


@pytest.mark.usefixtures("fast_countdown")
async def test_one_tick_carries_every_racer_who_moved(open_duo, settings):
    """Moves of two racers within one tick reach the race as one `progress` frame that lists
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


@pytest.mark.usefixtures("fast_countdown")
async def test_a_reconnect_with_since_gets_where_everyone_is(open_duo, race_socket):
    """Live progress is not among the events a reconnect catches up on: after them comes one
    `progress` frame with every racer still playing, read from the rows."""
    duo = await open_duo(start=True)
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    seen = max(f.get("event", 0) for f in bob.seen)
    await bob.disconnect()
    await ann.request({"type": "move", "move": HOME, "seq": 0}, "ack")
    back = await race_socket(duo.clients["bob"], duo.race.code, since=seen)
    progress = await back.expect("progress", timeout=5)
    assert {r["id"]: (r["cards"], r["moves"]) for r in progress["racers"]} == {
        duo.ids["ann"]: (1, 1),
        duo.ids["bob"]: (0, 0),
    }


@pytest.mark.usefixtures("fast_countdown")
async def test_another_servers_figures_ride_in_this_servers_next_tick(open_duo, settings):
    """Figures another server process hands over (`race.live` to the race's live group) reach
    this process's sockets folded into its own next frame, each with its own `at_ms`: a socket
    gets one frame a tick, not one per process."""
    duo = await open_duo(start=True)
    settings.RACE_PROGRESS_TICK_MS = 1000
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    await ann.request({"type": "move", "move": QUIET, "seq": 0}, "ack")
    first = await bob.expect("progress", timeout=5)  # the first of a while goes at once
    elsewhere = {"id": duo.ids["bob"], "cards": 0, "cards_at_ms": 0, "moves": 7}
    elsewhere |= {"status": "playing", "at_ms": first["at_ms"] + 10}
    part = {"type": "race.live", "race": duo.race.pk, "from": "another", "racers": [elsewhere]}
    await group_send(race_play.live_group(duo.race), part)
    await ann.request({"type": "move", "move": HOME, "seq": 1}, "ack")
    both = await bob.expect("progress", timeout=5)
    assert both["at_ms"] - first["at_ms"] >= 900
    by_id = {r["id"]: r for r in both["racers"]}
    own = by_id[duo.ids["ann"]]
    assert (own["cards"], own["moves"]) == (1, 2) and "at_ms" not in own  # the frame's time
    assert by_id[duo.ids["bob"]] == elsewhere
    progress = [f for f in bob.seen if f["type"] == "progress"]
    assert progress[progress.index(first) :] == [first, both]


@pytest.mark.usefixtures("fast_countdown")
async def test_of_two_figures_of_a_racer_from_elsewhere_the_newest_is_sent(open_duo, settings):
    """Figures of one racer handed over twice within a tick, the newer first (channel messages
    from two processes may cross): the next frame carries the newer, not the last to arrive."""
    duo = await open_duo(start=True)
    settings.RACE_PROGRESS_TICK_MS = 1000
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    await ann.request({"type": "move", "move": QUIET, "seq": 0}, "ack")
    first = await bob.expect("progress", timeout=5)  # the first of a while goes at once
    figures = {"id": duo.ids["bob"], "cards": 0, "cards_at_ms": 0, "status": "playing"}
    newer = {**figures, "moves": 9, "at_ms": first["at_ms"] + 20}
    older = {**figures, "moves": 7, "at_ms": first["at_ms"] + 10}
    for racers in ([newer], [older]):
        part = {"type": "race.live", "race": duo.race.pk, "from": "another", "racers": racers}
        await group_send(race_play.live_group(duo.race), part)
    await ann.request({"type": "move", "move": HOME, "seq": 1}, "ack")
    both = await bob.expect("progress", timeout=5)
    assert {r["id"]: r for r in both["racers"]}[duo.ids["bob"]] == newer


@pytest.mark.usefixtures("fast_countdown")
async def test_a_racer_who_wins_within_a_tick_is_left_out_of_it(open_duo, near_win_for, settings):
    """Ann moves and then wins within one tick: her win reaches Bob as a numbered `progress`
    event, and that tick's live frame (which carries Bob's move too) leaves her out."""
    duo = await open_duo(start=True, before_start=lambda d: near_win_for(d.clients["ann"].player))
    settings.RACE_PROGRESS_TICK_MS = 2000
    ann, bob = duo.sockets["ann"], duo.sockets["bob"]
    await ann.request({"type": "move", "move": "t0-t1", "seq": 0}, "ack")
    await bob.expect("progress", timeout=5)  # the first of a while goes at once
    await ann.request({"type": "move", "move": "t1-t2", "seq": 1}, "ack")  # in the next tick
    await ann.request({"type": "move", "move": "t2-f3", "seq": 2}, "ack")  # won, before it
    await bob.request({"type": "move", "move": QUIET, "seq": 0}, "ack")
    frames = [await bob.expect("progress", timeout=5)]
    while not [f for f in frames if "event" not in f and duo.ids["bob"] in ids(f)]:
        frames.append(await bob.expect("progress", timeout=5))
    if not [f for f in frames if "event" in f]:
        frames.append(await bob.expect("progress", timeout=5))
    (won,) = [f for f in frames if "event" in f]
    assert [(r["id"], r["status"]) for r in won["racers"]] == [(duo.ids["ann"], "won")]
    live = [r for f in frames if "event" not in f for r in f["racers"]]
    assert [r["status"] for r in live if r["id"] == duo.ids["ann"]] in ([], ["playing"])


def ids(frame: dict) -> list[str]:
    return [racer["id"] for racer in frame["racers"]]


async def test_a_socket_that_comes_and_goes_while_the_last_one_leaves_leaves_no_relay_behind(
    monkeypatch,
):
    """The last socket leaves while the channel layer's discard is a slow round trip (Redis);
    meanwhile another socket of the race joins and leaves (a page reconnecting). The relay goes
    once, and so does the loop's channel's place in the race's live group."""
    slow_group_discard(monkeypatch, 0.01)
    relays = race_play.Relays()
    race = Race(pk=10**6, code="LEAVE2")
    first, second = object(), object()
    await relays.join(race, first)
    relays.leave(race, first)
    await relays.join(race, second)
    relays.leave(race, second)
    await asyncio.sleep(0.05)
    assert race.pk not in relays.races
    assert race_play.live_group(race) not in GROUPS.get().members


async def test_a_relay_whose_last_tick_has_only_finished_racers_goes_with_its_last_socket(
    settings,
):
    """The last socket leaves while a tick is due, and the only racer that tick had marked has
    finished since (a finish is an event, not live progress): the tick sends nothing, and the
    relay is gone all the same, not left behind with no socket and no timer."""
    settings.RACE_PROGRESS_TICK_MS = 1000
    relays = race_play.Relays()
    race = Race(pk=10**6, code="DONE01")
    socket = object()
    relay = await relays.join(race, socket)
    racer = SimpleNamespace(pk=1, public_id="r1", cards=0, cards_at_ms=0, moves=1)
    racer.status = "playing"
    seat = SimpleNamespace(race=race, starts_ms=0, racer=racer)
    relay.mark(seat)
    await asyncio.sleep(0.05)  # the first tick of a while goes at once
    relay.mark(seat)  # the next is due a tick later
    racer.status = "won"
    relays.leave(race, socket)
    assert relay.timer is not None and race.pk in relays.races
    relay.timer.cancel()
    relay.tick()
    assert race.pk not in relays.races


async def test_a_socket_closed_during_a_tick_costs_the_others_nothing():
    """A tick's frame goes to every socket of the process; one closed meanwhile (its page left:
    the send raises) is passed over, and the sockets after it still get the frame."""
    sent = []

    class Socket:
        def __init__(self, closed: bool) -> None:
            self.closed = closed

        async def base_send(self, message: dict) -> None:
            if self.closed:
                raise ConnectionError("Attempt to send on a closed protocol")
            sent.append((self, message["text"]))

    relay = race_play.RaceRelay(race_play.Relays(), Race(pk=10**6, code="CLOSED"))
    first, gone, last = Socket(False), Socket(True), Socket(False)
    await relay.send('{"type":"progress"}', [first, gone, last], None)
    assert [socket for socket, _ in sent] == [first, last]
