"""The race over its websocket, from the lobby to the results (docs/protocol.md, "Races")."""

import time

import pytest

from games.models import Game
from races.models import Race, RaceEvent, Racer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_countdown")]


@pytest.fixture
def ann(make_client):
    return make_client("Ann")


@pytest.fixture
async def lobby(open_duo):
    """Ann's race with Ann and Bob in the lobby, each on a socket, past their snapshots."""
    duo = await open_duo()
    return duo.race, duo.sockets["ann"], duo.sockets["bob"]


@pytest.fixture
async def running(open_duo):
    """The race started and running; both racers have their boards."""
    duo = await open_duo(start=True)
    return (
        duo.race,
        (duo.sockets["ann"], duo.boards["ann"]),
        (duo.sockets["bob"], duo.boards["bob"]),
    )


async def test_the_host_gets_a_lobby_snapshot(ann, make_race, race_socket, run):
    """A new race's snapshot: the lobby, the host in it as host, no seed, event 1 (the join)."""
    race = await run(make_race, ann)
    socket = await race_socket(ann, race.code)
    snap = await socket.expect("snapshot")
    assert snap["event"] == 1
    assert snap["race"]["status"] == "lobby" and snap["race"]["code"] == race.code
    assert "seed" not in snap["race"]
    assert [r["name"] for r in snap["racers"]] == ["Ann"]
    assert snap["racers"][0]["host"] and snap["you"]["host"]
    assert snap["you"]["racer"] == snap["racers"][0]["id"]
    assert isinstance(snap["now"], int)


async def test_an_unknown_code_is_refused_and_closed(ann, race_socket):
    """A socket on a race that does not exist gets `not_found` and is closed."""
    socket = await race_socket(ann, "ZZZZZZ")
    assert (await socket.expect("error"))["code"] == "not_found"
    assert (await socket.receive_output(5))["type"] == "websocket.close"


async def test_joining_is_seen_by_everyone(lobby):
    """A join is a numbered event to every socket, with the racer's chosen name."""
    race, ann_socket, bob_socket = lobby
    joined = [f for f in ann_socket.seen if f["type"] == "joined"][-1]
    assert joined["event"] == 2 and joined["racer"]["name"] == "Bob"  # not his nickname
    assert joined["standings"] == [r["id"] for r in bob_socket.seen[0]["racers"]] + [
        joined["racer"]["id"]
    ]


async def test_ready_toggles_reach_everyone(lobby):
    """Ready on, ready off: both sockets see both events."""
    race, ann_socket, bob_socket = lobby
    on = await bob_socket.request({"type": "ready", "ready": True}, "ready")
    assert on["ready"] is True
    assert (await ann_socket.expect("ready"))["racer"] == on["racer"]
    off = await bob_socket.request({"type": "ready", "ready": False}, "ready")
    assert off["ready"] is False and off["event"] == on["event"] + 1


async def test_everyone_ready_starts_the_countdown(lobby):
    """Two racers both ready: the race counts down without the host pressing start."""
    race, ann_socket, bob_socket = lobby
    await bob_socket.request({"type": "ready"}, "ready")
    await ann_socket.request({"type": "ready"}, "countdown")
    countdown = await bob_socket.expect("countdown")
    assert countdown["race"]["status"] == "started"
    assert countdown["race"]["starts_at"] > countdown["now"] - 50


async def test_only_the_host_starts(lobby):
    """Bob may not start Ann's race."""
    race, ann_socket, bob_socket = lobby
    assert (await bob_socket.error({"type": "start"}))["code"] == "not_host"


async def test_countdown_carries_the_servers_clock(lobby):
    """`starts_at` is the server's epoch ms, and every frame carries the server's `now`."""
    race, ann_socket, bob_socket = lobby
    before = int(time.time() * 1000)
    countdown = await ann_socket.request({"type": "start"}, "countdown")
    after = int(time.time() * 1000)
    assert before <= countdown["now"] <= after
    assert before + 300 <= countdown["race"]["starts_at"] <= after + 300
    assert countdown["race"]["ends_at"] - countdown["race"]["starts_at"] == 60_000


async def test_no_board_and_no_move_before_the_start(lobby, monkeypatch):
    """During the countdown a move is refused (`not_started`) and no board has been sent."""
    from races import lifecycle

    # 2 s, not the module's 0.3: the move must arrive inside the countdown on a loaded machine
    # too (under a load of 17 it came after the start, and was refused as illegal instead).
    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 2000)
    race, ann_socket, bob_socket = lobby
    await ann_socket.request({"type": "start"}, "countdown")
    error = await ann_socket.error({"type": "move", "move": "t0-t1", "seq": 0})
    assert error["code"] == "not_started"
    assert not [f for f in ann_socket.seen if f["type"] == "state"]
    board = await ann_socket.board()
    assert board["now"] >= (await _race(race)).starts_at.timestamp() * 1000


async def test_a_racers_move_in_the_lobby_is_not_started(lobby):
    """Before the start a racer's move is `not_started` (docs/protocol.md), in the lobby as in
    the countdown, not `not_in_race`: the racer is in the race, it has not begun."""
    race, ann_socket, bob_socket = lobby
    for socket in (ann_socket, bob_socket):
        error = await socket.error({"type": "move", "move": "t0-t1", "seq": 0})
        assert error["code"] == "not_started"
        error = await socket.error({"type": "undo", "seq": 0})
        assert error["code"] == "not_started"


async def _race(race):
    from asgiref.sync import sync_to_async

    return await sync_to_async(Race.objects.get)(pk=race.pk)


async def test_both_racers_get_the_same_deal(running):
    """Everyone plays the same deal: the boards are equal at the start."""
    race, (ann_socket, ann_board), (bob_socket, bob_board) = running
    assert ann_board["view"] == bob_board["view"]
    assert ann_board["seq"] == 0 and ann_board["legal"]


async def test_a_move_is_acked_and_becomes_progress_for_everyone(running):
    """The mover gets `ack` with the new board; everyone gets a live `progress` frame."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    move = ann_board["legal"][0]
    ack = await ann_socket.request({"type": "move", "move": move, "seq": 0}, "ack")
    assert ack["seq"] == 1 and ack["played"] == [move]
    progress = await bob_socket.expect("progress")
    (ann,) = progress["racers"]
    assert ann["id"] != _bob_id(bob_socket) and ann["moves"] == 1
    assert ann["status"] in ("playing", "stuck")
    assert "view" not in progress and "game" not in ann


def _bob_id(socket) -> str:
    return next(f for f in socket.seen if f["type"] == "snapshot")["you"]["racer"] or next(
        f["racer"]["id"] for f in socket.seen if f["type"] == "joined"
    )


async def test_a_racer_never_sees_an_opponents_board(running):
    """Bob gets Ann's progress but no board of hers."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    await ann_socket.request({"type": "move", "move": ann_board["legal"][0], "seq": 0}, "ack")
    await bob_socket.expect("progress")
    await bob_socket.quiet()
    assert not [f for f in bob_socket.seen if f["type"] in ("board", "ack")]
    assert len([f for f in bob_socket.seen if f["type"] == "state"]) == 1


async def test_an_illegal_move_changes_nothing(running):
    """The engine's refusal comes back as `illegal_move`; no progress event is sent."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    bad = next(m for m in ("t0-t1", "t1-t0", "t2-t3") if m not in ann_board["legal"])
    error = await ann_socket.error({"type": "move", "move": bad, "seq": 0})
    assert error["code"] == "illegal_move" and error["ref"] == "move"
    await bob_socket.quiet()


async def test_a_resent_move_is_not_applied_twice(running):
    """The same move at the same seq again is answered with the board, not replayed."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    move = ann_board["legal"][0]
    await ann_socket.request({"type": "move", "move": move, "seq": 0}, "ack")
    again = await ann_socket.request({"type": "move", "move": move, "seq": 0}, "state")
    assert again["seq"] == 1
    await bob_socket.expect("progress")
    await bob_socket.quiet()


async def test_a_move_ahead_of_the_game_is_stale(running):
    """A seq the game has not reached is refused with `stale_seq` and the board is resent."""
    race, (ann_socket, ann_board), _ = running
    error = await ann_socket.error({"type": "move", "move": ann_board["legal"][0], "seq": 5})
    assert error["code"] == "stale_seq"
    assert (await ann_socket.expect("state"))["seq"] == 0


async def test_undo_takes_back_and_counts_as_progress(running):
    """An undo is acked and reported (moves go back down)."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    await ann_socket.request({"type": "move", "move": ann_board["legal"][0], "seq": 0}, "ack")
    ack = await ann_socket.request({"type": "undo", "seq": 1}, "ack")
    assert ack["seq"] == 2 and ack["played"] == ["undo"] and ack["moves"] == 0
    progress = await bob_socket.expect("progress")
    if progress["racers"][0]["moves"] != 0:  # the move's own, unless one tick carried both
        progress = await bob_socket.expect("progress")
    assert progress["racers"][0]["moves"] == 0


async def test_a_spectator_cannot_move(running, make_client, race_socket, run):
    """A socket that is not racing gets `not_in_race` for a move."""
    race, _, _ = running
    watcher = await race_socket(await run(make_client, "Cat"), race.code)
    await watcher.expect("snapshot")
    error = await watcher.error({"type": "move", "move": "t0-t1", "seq": 0})
    assert error["code"] == "not_in_race"


async def test_nobody_joins_a_started_race(running, make_client, race_socket, run):
    """Joining after the start is refused with `race_started`."""
    race, _, _ = running
    late = await race_socket(await run(make_client, "Dan"), race.code)
    await late.expect("snapshot")
    assert (await late.error({"type": "join"}))["code"] == "race_started"


async def test_resigning_everyone_finishes_the_race(running, run):
    """When every racer has resigned the race is finished: places, the seed, game ids."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    await ann_socket.request({"type": "move", "move": ann_board["legal"][0], "seq": 0}, "ack")
    await ann_socket.expect("progress")
    resigned = await ann_socket.request({"type": "resign"}, "progress")
    assert resigned["racers"][0]["status"] == "resigned" and resigned["racers"][0]["name"] == "Ann"
    finished = await bob_socket.request({"type": "resign"}, "finished")
    assert finished["reason"] == "all_done"
    assert finished["race"]["status"] == "finished"
    stored = await run(Race.objects.get, pk=race.pk)
    assert finished["race"]["seed"] == str(stored.seed)
    assert sorted(r["place"] for r in finished["racers"]) == [1, 2]
    assert all(r["status"] == "resigned" and r["game"] for r in finished["racers"])
    assert (await ann_socket.expect("finished"))["event"] == finished["event"]


async def test_a_racer_may_resign_in_the_countdown_and_the_race_ends_at_its_start(
    lobby, monkeypatch, run
):
    """Resign before the start (a move then is `not_started`): the racer is done at 0 ms, their
    game ended at the start; when the last one gives up too the race is over, 0:00 long."""
    from races import lifecycle

    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", 5000)  # the resignations come well inside it
    race, ann_socket, bob_socket = lobby
    await ann_socket.request({"type": "start"}, "countdown")
    assert (await ann_socket.error({"type": "move", "move": "t0-t1", "seq": 0}))["code"] == (
        "not_started"
    )
    resigned = await ann_socket.request({"type": "resign"}, "progress")
    assert resigned["racers"][0]["status"] == "resigned" and resigned["racers"][0]["done_ms"] == 0
    assert (await ann_socket.error({"type": "resign"}))["code"] == "already_finished"
    finished = await bob_socket.request({"type": "resign"}, "finished")
    assert finished["reason"] == "all_done"
    stored = await run(Race.objects.get, pk=race.pk)
    assert stored.status == "finished" and stored.finished_at == stored.starts_at
    games = await run(lambda: list(Game.objects.filter(racer__race=race)))
    assert [g.status for g in games] == ["resigned", "resigned"]
    assert all(g.finished_at == g.started_at == stored.starts_at for g in games)


async def test_moves_after_the_finish_are_refused(running):
    """Once the race is over nobody moves (`race_over`)."""
    race, (ann_socket, ann_board), (bob_socket, _) = running
    await ann_socket.request({"type": "resign"}, "progress")
    await bob_socket.request({"type": "resign"}, "finished")
    error = await ann_socket.error({"type": "move", "move": ann_board["legal"][0], "seq": 0})
    assert error["code"] == "race_over"


async def test_a_resignation_whose_event_the_channel_layer_lost_is_answered_all_the_same(
    running, monkeypatch
):
    """The resigning socket is answered with its resignation's numbered event directly, not only
    through the race's group: with that message lost (a Redis restart) the page still learns at
    once that its racer is done (an arena's race page then waits for the next race). The other
    racer's socket, which only the group reaches, hears of it at the next event."""
    from races import events as race_events

    real_broadcast, lost = race_events.broadcast, []

    def losing_everything(group, message):
        lost.append(message)

    race, (ann_socket, _), (bob_socket, _) = running
    monkeypatch.setattr(race_events, "broadcast", losing_everything)
    await ann_socket.send_json_to({"type": "resign"})
    resigned = await ann_socket.expect("progress", timeout=5)
    assert resigned["event"] == lost[0]["frames"][0]["event"]
    assert resigned["racers"][0]["status"] == "resigned" and resigned["racers"][0]["name"] == "Ann"
    monkeypatch.setattr(race_events, "broadcast", real_broadcast)
    finished = await bob_socket.request({"type": "resign"}, "finished")
    assert finished["event"] == resigned["event"] + 2  # Bob's own `progress`, then the close
    heard = [f["event"] for f in bob_socket.seen if isinstance(f.get("event"), int)]
    assert heard[-3:] == [resigned["event"], resigned["event"] + 1, finished["event"]]


async def test_a_resigned_racer_cannot_play_on(running):
    """After resigning, moves are refused with `already_finished`; the others play on."""
    race, (ann_socket, ann_board), (bob_socket, bob_board) = running
    await ann_socket.request({"type": "resign"}, "progress")
    error = await ann_socket.error({"type": "move", "move": ann_board["legal"][0], "seq": 0})
    assert error["code"] == "already_finished"
    await bob_socket.request({"type": "move", "move": bob_board["legal"][0], "seq": 0}, "ack")


async def test_a_resigner_gets_the_progress_event_and_their_board_as_resigned_on_sync(
    running, race_socket, run
):
    """The answer to `resign` is the `progress` event (status `resigned`, `done_ms`), no board;
    the next `state` (a `sync`, a reconnect) shows the game ended at the resignation: status
    `resigned`, no legal move, no undo, `finished_at` and `elapsed_ms` at that moment. A
    spectator's `board` says the same."""
    race, (ann_socket, ann_board), _ = running
    ack = await ann_socket.request({"type": "move", "move": ann_board["legal"][0], "seq": 0}, "ack")
    await ann_socket.expect("progress")
    progress = await ann_socket.request({"type": "resign"}, "progress")
    resigned = progress["racers"][0]
    assert resigned["status"] == "resigned" and resigned["done_ms"] >= 0
    assert resigned["finish_ms"] is None
    await ann_socket.quiet()  # no `state`: the board keeps its last frame until a resync

    state = await ann_socket.request({"type": "sync", "since": progress["event"]}, "state")
    assert (state["status"], state["legal"], state["can_undo"]) == ("resigned", [], False)
    assert (state["seq"], state["view"], state["moves"]) == (ack["seq"], ack["view"], ack["moves"])
    game = await run(Game.objects.get, public_id=state["game"])
    assert state["finished_at"] is not None and game.status == Game.Status.RESIGNED
    assert state["elapsed_ms"] == resigned["done_ms"]

    watcher = await race_socket(None, race.code)
    await watcher.expect("snapshot")
    boards = {}
    while resigned["id"] not in boards:
        board = await watcher.expect("board")
        boards[board["racer"]] = board
    assert boards[resigned["id"]]["status"] == "resigned"


async def test_the_time_limit_closes_the_race_on_the_servers_clock(
    ann, make_race, race_socket, run, monkeypatch
):
    """At `ends_at` the server closes the race by itself: unfinished racers ran out of time."""
    from races import lifecycle

    monkeypatch.setattr(lifecycle, "MIN_TIME_LIMIT_S", 1)
    race = await run(make_race, ann, time_limit_s=1)
    socket = await race_socket(ann, race.code)
    await socket.expect("snapshot")
    await socket.request({"type": "start"}, "countdown")
    board = await socket.board()
    await socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    finished = await socket.expect("finished", timeout=15)
    assert finished["reason"] == "time_limit"
    [racer] = finished["racers"]
    assert racer["status"] == "out_of_time" and racer["place"] == 1
    assert racer["done_ms"] == 1000
    game = await run(Game.objects.get, public_id=racer["game"])
    assert game.status == Game.Status.RESIGNED


async def test_a_race_s_sockets_that_reach_its_end_together_ask_for_its_close_once(
    ann, make_race, race_socket, run, monkeypatch
):
    """Every socket of a race asks for its close at its time limit; those of one process that
    come while the close is on wait for it instead of queueing on the race's row (each holding a
    thread and a connection): one close, and every socket hears it. (On SQLite the sockets'
    database calls take turns on one thread, so the others hear the close before they ask; on
    PostgreSQL they ask at once, as in production.)"""
    from races import actions, lifecycle

    monkeypatch.setattr(lifecycle, "MIN_TIME_LIMIT_S", 1)
    real_close, closes = actions.do_close_if_due, []

    def slow_close(race):
        closes.append(race.pk)
        time.sleep(0.3)  # a close under load: the other sockets' timers fire meanwhile
        return real_close(race)

    monkeypatch.setattr(actions, "do_close_if_due", slow_close)
    race = await run(make_race, ann, time_limit_s=1)
    tabs = [await race_socket(ann, race.code) for _ in range(4)]
    for tab in tabs:
        await tab.expect("snapshot")
    await tabs[0].request({"type": "start"}, "countdown")
    for tab in tabs:
        finished = await tab.expect("finished", timeout=15)
        assert finished["reason"] == "time_limit"
    assert closes == [race.pk]


async def test_a_close_whose_event_was_lost_reaches_the_socket_from_the_record(
    ann, make_race, race_socket, run, monkeypatch
):
    """The channel layer lost the close's `finished` event (a Redis restart, a full channel) and
    nothing comes after it: a moment after the race's end the socket reads it from the record,
    so the page does not wait on a race that is over."""
    from races import consumers, lifecycle
    from races import events as race_events

    monkeypatch.setattr(lifecycle, "MIN_TIME_LIMIT_S", 1)
    monkeypatch.setattr(consumers, "END_GRACE_S", 0.5)
    real_broadcast, lost = race_events.broadcast, []

    def losing_the_close(group, message):
        if any(frame["type"] == "finished" for frame in message["frames"]):
            lost.append(message)
            return
        real_broadcast(group, message)

    monkeypatch.setattr(race_events, "broadcast", losing_the_close)
    _, finished = await played_to_the_time_limit(ann, make_race, race_socket, run)
    assert lost and finished["event"] == lost[0]["frames"][0]["event"]


async def played_to_the_time_limit(ann, make_race, race_socket, run) -> tuple[Race, dict]:
    """Ann's race of one second (`MIN_TIME_LIMIT_S` lowered), started on a socket: the race, and
    the `finished` frame the socket heard, a close at the time limit."""
    race = await run(make_race, ann, time_limit_s=1)
    socket = await race_socket(ann, race.code)
    await socket.expect("snapshot")
    await socket.request({"type": "start"}, "countdown")
    await socket.board()
    finished = await socket.expect("finished", timeout=15)
    assert finished["reason"] == "time_limit"
    return race, finished


async def test_a_close_at_the_time_limit_that_the_database_refused_is_asked_again(
    ann, make_race, race_socket, run, monkeypatch
):
    """The close at the time limit failed once (PostgreSQL broke a deadlock by failing it, or the
    database restarted): the socket asks again at once, and the race closes. A close that failed
    had left the race open past its time, its racers waiting on it until the minute's sweep."""
    from django.db import OperationalError

    from races import actions, consumers, lifecycle

    monkeypatch.setattr(lifecycle, "MIN_TIME_LIMIT_S", 1)
    monkeypatch.setattr(consumers, "END_GRACE_S", 60)  # not the late read: the close's own ask
    real_close, tries = actions.do_close_if_due, []

    def refused_once(race):
        tries.append(race.pk)
        if len(tries) == 1:
            raise OperationalError("deadlock detected")
        return real_close(race)

    monkeypatch.setattr(actions, "do_close_if_due", refused_once)
    race, _ = await played_to_the_time_limit(ann, make_race, race_socket, run)
    assert tries == [race.pk, race.pk]
    assert (await run(Race.objects.get, pk=race.pk)).status == Race.Status.FINISHED


async def test_events_are_numbered_and_stored(running, run):
    """Every event a socket got is stored with the same number and content."""
    race, (ann_socket, ann_board), _ = running
    await ann_socket.request({"type": "move", "move": ann_board["legal"][0], "seq": 0}, "ack")
    await ann_socket.expect("progress")
    frames = [f for f in ann_socket.seen if "event" in f and f["type"] != "snapshot"]
    numbers = [f["event"] for f in frames]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    stored = await run(lambda: list(RaceEvent.objects.filter(race=race).order_by("seq")))
    assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
    by_seq = {e.seq: e for e in stored}
    for frame in frames:
        event = by_seq[frame["event"]]
        assert event.kind == frame["type"]
        assert {k: v for k, v in frame.items() if k not in ("type", "event", "now")} == event.data


async def test_racer_rows_track_progress(running, run):
    """The racer's row holds the moves and cards the last progress event showed."""
    race, (ann_socket, ann_board), _ = running
    await ann_socket.request({"type": "move", "move": ann_board["legal"][0], "seq": 0}, "ack")
    progress = await ann_socket.expect("progress")
    row = await run(Racer.objects.get, public_id=progress["racers"][0]["id"])
    assert (row.moves, row.cards, row.status) == (
        progress["racers"][0]["moves"],
        progress["racers"][0]["cards"],
        progress["racers"][0]["status"],
    )


async def test_a_countdown_handled_after_the_start_still_brings_the_board(lobby, monkeypatch):
    """A socket that takes in the countdown only after the start time (a busy server) still gets
    its board straight away: no timer is left to bring it."""
    from races import lifecycle

    monkeypatch.setattr(lifecycle, "COUNTDOWN_MS", -1000)
    race, ann_socket, bob_socket = lobby
    await ann_socket.request({"type": "start"}, "countdown")
    await bob_socket.expect("countdown")
    assert (await ann_socket.board())["seq"] == 0
    assert (await bob_socket.board())["seq"] == 0
