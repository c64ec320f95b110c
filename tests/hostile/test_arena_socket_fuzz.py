"""Random hostile frames on an arena's socket (hypothesis): a spectator's socket and a player's
socket in a running arena get, for every frame, the documented refusal or its ordinary answer
(docs/protocol.md, "Arenas"), stay up, and nothing an arena keeps changes.

Each example opens /ws/arena/<id>/ through the real ASGI application (origin check, session),
sends a short batch of frames, each followed by a ping, and checks the answers frame by frame.
The frames are the harness's hostile ones mixed with arena-looking messages: every type the
socket knows (`sync`, `ping`, `player`) with fields of the wrong type or none, and `player`
with tickets that are junk, forged, expired, another arena's or another socket's; the pages'
POSTs (`join`, `pause`, `resume`, `leave`) and the server's own frames sent back, which the
socket does not know. The only good ticket kept is the player's own on their present socket,
whose answer is the board with nothing written; a good ticket for anyone else is a legal change
of the socket's player and is taken out first. Nothing a frame could change changes: the
arena's players (paused, presence, lobby, points), its races and results, the board in the rank
store, and another arena's.
"""

from __future__ import annotations

import asyncio
import json
import time
from unittest import mock

import hostile_harness as harness
import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core import signing
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arenas import actions, board, rooms
from arenas.consumers import MESSAGES, AsPlayer, Sync
from arenas.models import Arena, ArenaPlayer, ArenaRace, ArenaResult
from games.identity import socket_ticket, ticket_player_id
from games.models import Player
from games.rankstore import get_rank_store
from games.sockets import BadFrame, Ping, parse
from races.models import Race

pytestmark = pytest.mark.django_db(transaction=True)

FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

OWN, FORGED, EXPIRED = "@own-ticket", "@forged-ticket", "@expired-ticket"
OTHER_ARENA, OTHER_SOCKET = "@other-arena-ticket", "@race-socket-ticket"
TICKETS = [OWN, FORGED, EXPIRED, OTHER_ARENA, OTHER_SOCKET]
ARENA_TYPES = ["sync", "ping", "player", "join", "pause", "resume", "leave", "wait"]
ARENA_TYPES += ["standings", "placed", "Player", "SYNC", "player "]
MARKER = 10**15
"""The harness's pings count from here: a hostile `ping` (whose `t` is a small number more
often than not) is not taken for the harness's own."""

arena_messages = st.builds(
    lambda kind, fields, extra: {**extra, **fields, "type": kind},
    st.sampled_from(ARENA_TYPES),
    st.fixed_dictionaries(
        {},
        optional={
            "ticket": st.sampled_from(TICKETS) | harness.field_values,
            "t": harness.field_values,
            "paused": harness.json_values,
        },
    ),
    st.dictionaries(st.text(max_size=10), harness.json_values, max_size=2),
)
batches = st.lists(
    harness.hostile_frames
    | harness.sharp_frames(ticket=st.sampled_from(TICKETS))
    | arena_messages.map(lambda m: ("text", json.dumps(m))),
    min_size=1,
    max_size=8,
)


def player_frame(ticket) -> tuple[str, str]:
    return ("text", json.dumps({"type": "player", "ticket": ticket}))


EVERY_KIND = [
    ("text", '{"type": "sync"}'),
    ("text", '{"type": "ping", "t": 7}'),
    ("text", '{"type": "ping", "t": "7"}'),
    *(player_frame(ticket) for ticket in TICKETS),
    player_frame("not-a-ticket"),
    player_frame(42),
    player_frame("x" * 201),
    ("text", '{"type": "pause", "paused": true}'),
    ("text", '{"type": "resume"}'),
    ("text", '{"type": "leave"}'),
]
"""One frame of each kind the batches mix in (an explicit example: each is sent every run; with
the pings, no more than the socket's 30 frames in 5 s)."""


# ------------------------------------------------------------------ the arena and its tickets


def tickets(arena: Arena, other: Arena, player: Player) -> dict[str, str]:
    """Each ticket the batches name, the player's: good for this arena's socket, forged from
    that, an hour old, another arena's, another socket's."""
    good = socket_ticket(player, arena.socket_path)
    with mock.patch.object(signing.time, "time", return_value=time.time() - 3600):
        old = socket_ticket(player, arena.socket_path)
    return {
        OWN: good,
        FORGED: f"{good[:-3]}{'abc' if good[-3:] != 'abc' else 'xyz'}",
        EXPIRED: old,
        OTHER_ARENA: socket_ticket(player, other.socket_path),
        OTHER_SOCKET: socket_ticket(player, "/ws/race/ABCDEF/"),
    }


def with_tickets(frames: list, made: dict[str, str]) -> list:
    """The frames with each ticket's name replaced by the ticket."""
    for name, ticket in made.items():
        frames = [
            (kind, payload.replace(json.dumps(name), json.dumps(ticket)))
            if kind == "text"
            else (kind, payload)
            for kind, payload in frames
        ]
    return frames


# ------------------------------------------------------------------ what each frame is due


def message_of(kind: str, payload):
    """The message the frame holds; BadFrame when the arena socket's parser refuses it."""
    return parse(
        payload if kind == "text" else None, payload if kind == "bytes" else None, MESSAGES
    )


def due(kind: str, payload, arena: Arena, own: Player | None) -> str:
    """What the frame is due: an error's code, `pong`, `standings` (the board, nothing
    written), or `change` (a good ticket of another player: a legal change of the socket's
    player)."""
    try:
        message = message_of(kind, payload)
    except BadFrame as exc:
        return exc.code
    if isinstance(message, Ping):
        return "pong"
    if isinstance(message, Sync):
        return "standings"
    assert isinstance(message, AsPlayer)
    found = ticket_player_id(message.ticket, arena.socket_path)
    if found is None:
        return "bad_ticket"
    return "standings" if own is not None and found == own.pk else "change"


def kept(frames: list, made: dict[str, str], arena: Arena, own: Player | None) -> list:
    """The batch with its tickets made, less the legal changes."""
    frames = with_tickets(frames, made)
    return [f for f in frames if due(*f, arena, own) != "change"]


def pong_t(payload: str):
    return json.loads(payload).get("t")


def check_answers(frame: tuple, replies: list[dict], wanted: str, you) -> None:
    """The frame's answer is what it is due, and nothing else comes but the room's boards,
    each with the socket's own row (`you`: the player's id and pause, or None)."""
    errors = [r for r in replies if r["type"] == "error"]
    boards = [r for r in replies if r["type"] == "standings"]
    pongs = [r for r in replies if r["type"] == "pong"]
    assert len(errors) + len(boards) + len(pongs) == len(replies), (frame, replies)
    for reply in boards:
        own = reply["you"]
        assert (own if own is None else (own["player"], own["paused"])) == you, (frame, reply)
    if wanted == "pong":
        assert not errors and [p.get("t") for p in pongs] == [pong_t(frame[1])], (frame, replies)
    elif wanted == "standings":
        assert not errors and not pongs and boards, (frame, replies)
    else:
        assert not pongs and [e["code"] for e in errors] == [wanted], (frame, replies)
        assert isinstance(errors[0]["reason"], str) and errors[0]["reason"], (frame, errors)


# ------------------------------------------------------------------ what a frame could change


def arena_fingerprint(arena: Arena) -> tuple:
    """Everything of an arena a socket's frame could change but its players' presence: their
    rows (but `seen_at`, the room's heartbeat), its races and results, and its board in the rank
    store."""
    players = ArenaPlayer.objects.filter(arena=arena).order_by("player_id")
    rows = players.values_list(
        "player_id",
        "paused",
        "free_since",
        "points",
        "races",
        "place_sum",
        "podiums_in_a_row",
        "last_scored_s",
    )
    races = ArenaRace.objects.filter(arena=arena).values_list("race_id", flat=True)
    results = ArenaResult.objects.filter(arena=arena).count()
    on_board = (get_rank_store().range(board.key(arena), 0, -1), board.is_built(arena))
    return (list(rows), list(races), results, on_board)


def presence(arena: Arena) -> dict[int, int]:
    """Each of the arena's players' open pages, by the record."""
    return dict(ArenaPlayer.objects.filter(arena=arena).values_list("player_id", "sockets"))


def fingerprint(*arenas: Arena) -> dict:
    """The arenas as a frame could change them, and every race."""
    return {
        "races": Race.objects.count(),
        "arenas": [arena_fingerprint(arena) for arena in arenas],
        "presence": [presence(arena) for arena in arenas],
    }


async def rooms_closed() -> None:
    """The rooms' last ticks over (a tick in a query on its thread met the next example)."""
    for room in list(rooms.ROOMS.get().rooms.values()):
        if room.task is not None:
            await asyncio.wait_for(room.task, 10)


def play_batch(path: str, client, frames: list, arenas: tuple) -> tuple:
    """Open the socket, send the frames (each with its ping), close it: each frame with its
    answers, and the arenas' fingerprints with the socket open before and after the frames."""
    session = harness.Session(path, client, marker=MARKER)
    read = sync_to_async(fingerprint)

    async def play():
        assert await session.open()
        await session.until("standings")
        open_before = await read(*arenas)
        results = [(frame, await session.answers(*frame)) for frame in frames]
        open_after = await read(*arenas)
        await session.close()
        await rooms_closed()
        return results, open_before, open_after

    return async_to_sync(play)()


@pytest.fixture
def arena_with_ann(make_client, monkeypatch):
    """A running arena that Ann joined (not on its page), another arena, Ann's browser and
    her tickets."""
    monkeypatch.setattr(rooms, "TICK_S", 0.1)  # a closed room ends within a tenth of a second
    arena, other = harness.running_arena("Fuzzed"), harness.running_arena("Other")
    ann = make_client("Ann")
    actions.do_join(arena, ann.player)
    actions.do_join(other, ann.player)
    return arena, other, ann, tickets(arena, other, ann.player)


# ------------------------------------------------------------------ the tests


@FUZZ
@given(frames=batches)
@example(frames=EVERY_KIND)
def test_hostile_frames_on_a_spectator_s_arena_socket_change_nothing(arena_with_ann, frames):
    """A visitor's socket: every frame gets its refusal or its ordinary answer, every board
    has no own row (no ticket made the socket anyone's), and neither arena changes."""
    arena, other, ann, made = arena_with_ann
    frames = kept(frames, made, arena, None)
    before = fingerprint(arena, other)
    answered, open_before, open_after = play_batch(arena.socket_path, None, frames, (arena, other))
    for frame, replies in answered:
        check_answers(frame, replies, due(*frame, arena, None), None)
    assert before["presence"] == [{ann.player.pk: 0}, {ann.player.pk: 0}]
    assert open_before == open_after == before
    assert fingerprint(arena, other) == before


@FUZZ
@given(frames=batches)
@example(frames=EVERY_KIND)
@pytest.mark.parametrize("paused", [False, True], ids=["playing", "sitting out"])
def test_hostile_frames_on_a_player_s_arena_socket_change_nothing(arena_with_ann, paused, frames):
    """Ann's own socket, her playing or sitting out: every frame gets its refusal or its
    ordinary answer (her own ticket: the board again, nothing written), every board has her own
    row as it was, and neither arena changes: her presence counts this one socket while it is
    open and none after, and no race is placed."""
    arena, other, ann, made = arena_with_ann
    if paused:
        actions.do_pause(arena, ann.player, True)
    frames = kept(frames, made, arena, ann.player)
    before = fingerprint(arena, other)
    answered, open_before, open_after = play_batch(arena.socket_path, ann, frames, (arena, other))
    for frame, replies in answered:
        check_answers(frame, replies, due(*frame, arena, ann.player), (ann.player.pk, paused))
    assert before["presence"] == [{ann.player.pk: 0}, {ann.player.pk: 0}]
    here = {**before, "presence": [{ann.player.pk: 1}, {ann.player.pk: 0}]}
    assert open_before == open_after == here  # the open socket is Ann's presence, no more
    assert fingerprint(arena, other) == before


@pytest.mark.parametrize("t", [2**64, -(2**63) - 1, 2**80])
def test_a_ping_whose_t_is_past_64_bits_gets_its_pong_or_a_refusal(arena_with_ann, t):
    """The protocol's `ping` has an optional number `t`, echoed in the `pong`: a number the
    server cannot write back is refused as a bad field (`bad_message`), not a crash
    (`server_error`, as it was until the fuzz found it)."""
    arena = arena_with_ann[0]
    frame = ("text", json.dumps({"type": "ping", "t": t}))
    [(_, replies)], *_ = play_batch(arena.socket_path, None, [frame], (arena,))
    answers = [(r["type"], r.get("code"), r.get("t")) for r in replies if r["type"] != "standings"]
    assert answers == [("error", "bad_message", None)], replies
