"""Nothing lost, nothing twice: reconnects, second tabs, gaps and restarts."""

import asyncio
import copy
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from games import play as game_play
from games.models import Move
from games.play import forget
from races import actions, lifecycle
from races.consumers import RaceConsumer
from races.models import RaceEvent, Racer
from tests.race_support import FAST_COUNTDOWN_MS
from tests.required import unavailable

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_countdown")]

ROOT = Path(__file__).resolve().parents[2]


def apply_event(model: dict, frame: dict) -> None:
    """The protocol's rule for each event, applied to a snapshot-shaped dict (docs/protocol.md)."""
    racers = {r["id"]: r for r in model["racers"]}
    kind = frame["type"]
    if kind == "joined":
        racers[frame["racer"]["id"]] = frame["racer"]
    elif kind == "progress":
        racers.update({racer["id"]: racer for racer in frame["racers"]})
    elif kind == "left":
        racers.pop(frame["racer"])
    elif kind == "host":
        racers = {i: {**r, "host": i == frame["racer"]} for i, r in racers.items()}
    elif kind == "ready":
        racers[frame["racer"]] = {**racers[frame["racer"]], "ready": frame["ready"]}
    elif kind in ("countdown", "finished"):
        model["race"] = frame["race"]
        racers = {r["id"]: r for r in frame["racers"]}
    elif kind == "cancelled":
        model["race"] = frame["race"]
    elif kind == "rematch":
        model["race"] = {**model["race"], "rematch": frame["code"]}
    model["racers"] = list(racers.values())
    if "standings" in frame:
        model["standings"] = frame["standings"]
    model["event"] = frame["event"]


FINAL = ("won", "resigned", "out_of_time")


def apply_live_progress(model: dict, frame: dict) -> None:
    """The protocol's rule for a live `progress` frame (not numbered): each racer's progress,
    unless their play has ended or a later live frame said it already (a racer's own `at_ms`
    counting instead of the frame's); the standings follow from the racers (docs/protocol.md)."""
    racers = {r["id"]: r for r in model["racers"]}
    live_at = model.setdefault("live_at", {})
    for figures in frame["racers"]:
        live = {k: v for k, v in figures.items() if k != "at_ms"}
        at = figures.get("at_ms", frame["at_ms"])
        racer = racers.get(live["id"])
        if racer is None or racer["status"] in FINAL or at < live_at.get(live["id"], -1):
            continue
        racers[live["id"]] = {**racer, **live}
        live_at[live["id"]] = at
    model["racers"] = list(racers.values())
    order = {r["id"]: i for i, r in enumerate(model["racers"])}  # joining order breaks ties

    def key(racer: dict):
        if racer["status"] == "won":
            return (0, racer["finish_ms"], 0, order[racer["id"]])
        return (1, -racer["cards"], racer["cards_at_ms"], order[racer["id"]])

    model["standings"] = [r["id"] for r in sorted(model["racers"], key=key)]


def comparable(snapshot: dict) -> dict:
    return {
        "event": snapshot["event"],
        "race": snapshot["race"],
        "racers": sorted(snapshot["racers"], key=lambda r: r["id"]),
        "standings": snapshot["standings"],
    }


async def play_a_short_race(ann_socket, bob_socket) -> None:
    """Ann starts the race and makes one move, then Bob and Ann resign: every kind of event."""
    await ann_socket.request({"type": "start"}, "countdown")
    board = await ann_socket.board()
    await ann_socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    await ann_socket.expect("progress")
    await bob_socket.request({"type": "resign"}, "progress")
    await ann_socket.request({"type": "resign"}, "finished")


@pytest.fixture
async def lobby(open_duo):
    duo = await open_duo()
    ann, bob = (duo.clients[n] for n in ("ann", "bob"))
    return duo.race, (ann, duo.sockets["ann"]), (bob, duo.sockets["bob"])


@pytest.fixture
async def running(open_duo):
    duo = await open_duo(start=True)
    return duo.race, *((duo.clients[n], duo.sockets[n], duo.boards[n]) for n in ("ann", "bob"))


async def test_snapshot_plus_events_equals_a_fresh_snapshot(lobby, race_socket):
    """A socket that kept its first snapshot and applied every event since sees what a new one sees."""
    race, (ann, ann_socket), (bob, bob_socket) = lobby
    first = comparable(next(f for f in ann_socket.seen if f["type"] == "snapshot"))
    await bob_socket.request({"type": "ready"}, "ready")
    await bob_socket.request({"type": "ready", "ready": False}, "ready")
    await play_a_short_race(ann_socket, bob_socket)
    for frame in ann_socket.seen:
        if "event" in frame and frame["type"] != "snapshot" and frame["event"] > first["event"]:
            apply_event(first, frame)
    fresh = await race_socket(ann, race.code)
    assert comparable(first) == comparable(await fresh.expect("snapshot"))


def phase_at(model: dict, now_ms: int) -> str:
    """The race's phase at `now_ms`, by the protocol's rule: the status, then the clock."""
    race = model["race"]
    return lifecycle.phase(race["status"], race["starts_at"], race["ends_at"], now_ms)


def applied(snapshot: dict, frames: list[dict]) -> dict:
    """The snapshot with every numbered event and live progress frame after it among `frames`
    applied."""
    model = copy.deepcopy(snapshot)
    after = frames[frames.index(snapshot) + 1 :] if snapshot in frames else frames
    for frame in after:
        if frame["type"] == "progress" and "event" not in frame:
            apply_live_progress(model, frame)
        elif frame["type"] != "snapshot" and frame.get("event", 0) > model["event"]:
            apply_event(model, frame)
    return model


def moves_of(model: dict) -> dict[str, int]:
    return {racer["name"]: racer["moves"] for racer in model["racers"]}


async def events_until(socket, snapshot: dict, moves: dict[str, int], event: int = 0) -> dict:
    """Read the socket's frames until the racers' move counts they make are `moves` (and the
    last event is at least `event`)."""
    while moves_of(model := applied(snapshot, socket.seen)) != moves or model["event"] < event:
        await socket.expect("progress", timeout=10)
    return model


@pytest.mark.slow
async def test_mid_race_a_snapshot_plus_the_events_after_it_equals_a_fresh_snapshot(
    make_client, make_race, race_socket, run, settings
):
    """Three racers, progress on a 100 ms tick: a watcher from the lobby and one who came
    mid-race, each applying every event and live progress frame after their snapshot, hold
    what a fresh snapshot shows (the race and its phase, the racers, the standings) once the
    last move's tick has gone out."""
    settings.RACE_PROGRESS_TICK_MS = 100
    ann, bob, cid = [await run(make_client, name) for name in ("Ann", "Bob", "Cid")]
    race = await run(make_race, ann, time_limit_s=300)
    for client in (bob, cid):
        await run(actions.do_join_race, race, client.player)
    early = await race_socket(None, race.code)
    from_lobby = await early.expect("snapshot")
    sockets = [await race_socket(client, race.code) for client in (ann, bob, cid)]
    ann_socket, bob_socket, cid_socket = sockets
    await ann_socket.request({"type": "start"}, "countdown")
    for socket in sockets:
        await socket.board()
    # The fixed Penelope's Web deal of make_race: t1-t3 sends no card home, t6-f0 the A♠.
    await ann_socket.request({"type": "move", "move": "t1-t3", "seq": 0}, "ack")
    await bob_socket.request({"type": "move", "move": "t6-f0", "seq": 0}, "ack")
    await events_until(early, from_lobby, {"Ann": 1, "Bob": 1, "Cid": 0})

    late = await race_socket(None, race.code)
    mid_race = await late.expect("snapshot")
    assert moves_of(mid_race) == {"Ann": 1, "Bob": 1, "Cid": 0}
    undo = await ann_socket.request({"type": "undo", "seq": 1}, "ack")
    assert undo["moves"] == 0

    await cid_socket.send_json_to({"type": "resign"})
    while "event" not in await cid_socket.expect("progress"):  # the resignation, not a live frame
        pass
    settled = {"Ann": 0, "Bob": 1, "Cid": 0}
    fresh = await (await race_socket(None, race.code)).expect("snapshot")
    models = [
        await events_until(early, from_lobby, settled, fresh["event"]),
        await events_until(late, mid_race, settled, fresh["event"]),
    ]
    assert next(r for r in fresh["racers"] if r["name"] == "Cid")["status"] == "resigned"
    for model in models:
        assert comparable(model) == comparable(fresh)
        assert phase_at(model, fresh["now"]) == phase_at(fresh, fresh["now"]) == "running"


async def test_a_reconnect_with_since_gets_only_the_missed_events(lobby, race_socket, run):
    """?since=N answers with the events after N, in order, and no snapshot."""
    race, (ann, ann_socket), (bob, bob_socket) = lobby
    seen = max(f.get("event", 0) for f in bob_socket.seen)
    await bob_socket.disconnect()
    await ann_socket.request({"type": "ready"}, "ready")
    await ann_socket.request({"type": "ready", "ready": False}, "ready")
    back = await race_socket(bob, race.code, since=seen)
    frames = [await back.next(), await back.next()]
    assert [f["type"] for f in frames] == ["ready", "ready"]
    assert [f["event"] for f in frames] == [seen + 1, seen + 2]
    await back.quiet()


async def test_a_reconnect_too_far_behind_gets_a_snapshot(lobby, race_socket):
    """A `since` from the future (another server's numbers) is answered with a snapshot."""
    race, (ann, _), _ = lobby
    back = await race_socket(ann, race.code, since=999)
    assert (await back.next())["type"] == "snapshot"


async def test_sync_mid_connection_resends_the_missed_events(lobby):
    """`sync` with an older number gets the events after it again."""
    race, (ann, ann_socket), _ = lobby
    again = await ann_socket.request({"type": "sync", "since": 0}, "joined")
    assert again["event"] == 1


async def test_a_reload_mid_race_resumes_the_board_exactly(running, race_socket):
    """A new socket of the same racer gets their board at the same seq and position."""
    race, (ann, ann_socket, board), _ = running
    ack = await ann_socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    await ann_socket.disconnect()
    forget()  # as if another process served the reconnect
    back = await race_socket(ann, race.code)
    await back.expect("snapshot")
    state = await back.expect("state")
    assert (state["seq"], state["view"], state["moves"]) == (ack["seq"], ack["view"], ack["moves"])


async def test_a_second_tab_follows_the_first(running, race_socket):
    """Two tabs of one racer: a move in one shows in the other, once."""
    race, (ann, ann_socket, board), _ = running
    tab = await race_socket(ann, race.code)
    await tab.expect("snapshot")
    await tab.expect("state")
    ack = await ann_socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    followed = await tab.expect("state")
    assert followed["seq"] == ack["seq"] and followed["view"] == ack["view"]
    me = next(f for f in tab.seen if f["type"] == "snapshot")["you"]["racer"]

    def moved(frame: dict) -> bool:
        racers = frame["racers"] if frame["type"] == "progress" else []
        return any(r["id"] == me and r["moves"] == 1 for r in racers)

    if not any(moved(f) for f in tab.seen):  # live: before or after the board (another way)
        assert moved(await tab.expect("progress"))
    await tab.quiet()


async def test_a_tab_opened_mid_race_is_sent_its_board_first_and_misses_no_move(
    running, race_socket, monkeypatch
):
    """A socket opened after the start is sent the board as first read, before it joins its
    game's group (in a crowd each join waits its turn); a move the other tab makes meanwhile,
    which the group cannot bring it, follows from the board read again once it is joined."""
    race, (ann, ann_socket, board), _ = running
    follow = RaceConsumer.follow
    made: list[dict] = []

    async def a_move_before_the_group_is_joined(self, view):
        if not made:
            move = {"type": "move", "move": board["legal"][0], "seq": 0}
            made.append(await ann_socket.request(move, "ack"))
        return await follow(self, view)

    monkeypatch.setattr(RaceConsumer, "follow", a_move_before_the_group_is_joined)
    tab = await race_socket(ann, race.code)
    await tab.expect("snapshot")
    assert (await tab.expect("state"))["seq"] == 0
    followed = await tab.expect("state")
    (ack,) = made
    assert (followed["seq"], followed["view"]) == (ack["seq"], ack["view"])
    # Nothing else but the move's live progress, which the relay may bring before or after.
    while not await tab.receive_nothing(0.2):
        assert (await tab.next())["type"] == "progress"


async def test_a_tab_opened_mid_race_with_no_move_meanwhile_reads_its_game_s_log_once(
    running, race_socket, monkeypatch
):
    """Once its game's group is joined, the socket asks only whether the game moved since its
    board was read: with no move meanwhile it sends that board once and replays no log again
    (Ann's first tab has moved, so her game has a log to read)."""
    race, (ann, ann_socket, board), _ = running
    board = await ann_socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    logs_read: list[str] = []
    move_log = game_play.move_log
    monkeypatch.setattr(
        game_play, "move_log", lambda game: logs_read.append(game.public_id) or move_log(game)
    )
    tab = await race_socket(ann, race.code)
    await tab.expect("snapshot")
    state = await tab.expect("state")
    assert (state["seq"], state["view"]) == (board["seq"], board["view"])
    await tab.request({"type": "ping", "t": 1}, "pong")  # the connect has ended
    assert logs_read == [state["game"]]


async def test_a_tab_read_in_the_countdown_whose_group_joins_late_still_gets_its_board(
    lobby, race_socket, monkeypatch
):
    """A socket opened in the countdown is read before the start; its game's group is joined
    only well after the start (in a crowd each join waits its turn). The start's timer, set
    after the join, still fires at once and brings the board."""
    race, (ann, ann_socket), _ = lobby
    await ann_socket.request({"type": "start"}, "countdown")
    follow = RaceConsumer.follow

    async def joined_late(self, view):
        joined = await follow(self, view)
        await asyncio.sleep(FAST_COUNTDOWN_MS / 1000 + 1.5)  # past the start by over a second
        return joined

    monkeypatch.setattr(RaceConsumer, "follow", joined_late)
    tab = await race_socket(ann, race.code)
    snapshot = await tab.expect("snapshot")
    assert snapshot["now"] < snapshot["race"]["starts_at"]  # read in the countdown
    assert (await tab.expect("state"))["seq"] == 0


async def test_a_move_resent_from_a_second_tab_is_not_applied_twice(running, race_socket, run):
    """Both tabs send the same move at the same seq: one applies it, the other gets the board."""
    race, (ann, ann_socket, board), (bob, bob_socket, _) = running
    tab = await race_socket(ann, race.code)
    await tab.expect("snapshot")
    await tab.expect("state")
    move = board["legal"][0]
    await ann_socket.request({"type": "move", "move": move, "seq": 0}, "ack")
    answer = await tab.request({"type": "move", "move": move, "seq": 0}, "state")
    assert answer["seq"] == 1
    assert (await bob_socket.expect("progress"))["racers"][0]["moves"] == 1
    await bob_socket.quiet()
    racer = await run(
        lambda: Racer.objects.select_related("game").get(race=race, player=ann.player)
    )
    logged = await run(lambda: Move.objects.filter(game=racer.game).count())
    assert (racer.moves, racer.game.seq, logged) == (1, 1, 1)


async def test_a_restarted_process_loses_nothing(running, race_socket, run):
    """With the engine cache gone, a new socket resumes the same race (nothing of a race is
    kept anywhere else but the rows)."""
    race, (ann, ann_socket, board), (bob, bob_socket, _) = running
    ack = await ann_socket.request({"type": "move", "move": board["legal"][0], "seq": 0}, "ack")
    await ann_socket.expect("progress")
    before = await (await race_socket(None, race.code)).expect("snapshot")
    await ann_socket.disconnect()
    forget()
    back = await race_socket(ann, race.code)
    snap = await back.expect("snapshot")
    assert (snap["standings"], snap["event"]) == (before["standings"], before["event"])
    assert comparable(snap)["racers"] == comparable(before)["racers"]
    assert (await back.expect("state"))["seq"] == ack["seq"]


async def test_a_dropped_group_message_is_filled_in_from_the_record(lobby, run):
    """A socket that misses event N (a full channel) still gets it, before N+1."""
    from races import events as race_events

    race, (ann, ann_socket), (bob, bob_socket) = lobby
    real_broadcast = race_events.broadcast
    dropped = []

    def lossy(group, message):
        if not dropped:
            dropped.append(message)
            return
        real_broadcast(group, message)

    race_events.broadcast = lossy
    try:
        await bob_socket.send_json_to({"type": "ready"})
        await bob_socket.send_json_to({"type": "ready", "ready": False})
        first = await ann_socket.expect("ready")
        second = await ann_socket.expect("ready")
    finally:
        race_events.broadcast = real_broadcast
    assert dropped and [first["event"], second["event"]] == [3, 4]
    assert (first["ready"], second["ready"]) == (True, False)


async def test_the_event_numbers_survive_in_the_database(lobby):
    """Events are rows: numbered 1, 2, … with nothing missing."""
    race, _, _ = lobby
    seqs = await sync_to_async(list)(
        RaceEvent.objects.filter(race=race).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, len(seqs) + 1))


APPLY_IN_THE_PAGE = """
import { readFileSync } from "node:fs";
import { RaceModel } from "%s";
const { frames } = JSON.parse(readFileSync(process.argv[1], "utf8"));
const model = new RaceModel();
const gaps = frames.filter((frame) => !model.apply(frame)).length;
process.stdout.write(JSON.stringify({
  gaps, event: model.event, race: model.race, standings: model.standings,
  racers: [...model.racers.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
}));
"""


async def test_the_pages_model_ends_where_a_fresh_snapshot_starts(lobby, race_socket, tmp_path):
    """race-state.js (the page's model), fed one socket's frames, equals a fresh snapshot."""
    if shutil.which("node") is None:
        unavailable("Node.js is not installed (apt-get install nodejs)")
    race, (ann, ann_socket), (bob, bob_socket) = lobby
    await bob_socket.request({"type": "ready"}, "ready")
    await play_a_short_race(ann_socket, bob_socket)
    frames = tmp_path / "frames.json"
    frames.write_text(json.dumps({"frames": ann_socket.seen}))
    script = APPLY_IN_THE_PAGE % (ROOT / "frontend/static/js/race-state.js").as_uri()
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, str(frames)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    model = json.loads(done.stdout)
    assert model.pop("gaps") == 0
    fresh = await race_socket(ann, race.code)
    assert model == comparable(await fresh.expect("snapshot"))
