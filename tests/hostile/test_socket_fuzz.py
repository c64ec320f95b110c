"""Random hostile frames on both sockets (hypothesis): each gets a documented refusal or its
ordinary answer, the socket stays up, and no game or race changes.

Each example opens a socket through the real ASGI application (origin check, session, auth),
sends a short batch of frames (JSON of wrong types, huge numbers, unknown fields, junk text,
binary frames, frames around the size limit), each followed by a ping, and checks the answers
frame by frame. Frames that are by chance a legal state change are taken out first.
"""

from __future__ import annotations

import itertools
import json

import hostile_harness as harness
import pytest
from asgiref.sync import async_to_sync
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import sockets as game_messages
from games.actions import do_create_game, get_game_update
from games.sockets import BadFrame
from races import consumers as race_messages
from races.models import Racer

pytestmark = pytest.mark.django_db(transaction=True)

FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
OWN, OTHER = "@own", "@other"
batches = st.lists(
    harness.hostile_frames
    | harness.sharp_frames(game=st.sampled_from([OWN, OTHER]))
    | st.builds(
        lambda kind, game, seq: ("text", json.dumps({"type": kind, "game": game, "seq": seq})),
        st.sampled_from(["open", "move", "undo", "autoplay"]),
        st.sampled_from([OWN, OTHER, "", "x" * 33]),
        st.integers(-1, 3),
    ),
    min_size=1,
    max_size=6,
)


def race_parse(text, data=None):
    return game_messages.parse(text, data, race_messages.MESSAGES)


def parsed(kind: str, payload, parse):
    """The message the frame holds, or None when the parser refuses it."""
    try:
        return parse(payload) if kind == "text" else parse(None, payload)
    except BadFrame:
        return None


def refusal_code(kind: str, payload, parse) -> str | None:
    """The error code the parser gives the frame (None if it is a well-formed message)."""
    try:
        parse(payload) if kind == "text" else parse(None, payload)
    except BadFrame as exc:
        return exc.code
    return None


def check_malformed_refused(frame, replies, parse) -> None:
    """A frame the parser refuses gets exactly one error, with the parser's code."""
    code = refusal_code(*frame, parse)
    if code is not None:
        assert [(r["type"], r.get("code")) for r in replies] == [("error", code)], (frame, replies)


# ------------------------------------------------------------------ /ws/race/


def changes_race(kind: str, payload, legal: set[str]) -> bool:
    """Would this frame (by chance) be a legal change to the race: a legal move or a resign?"""
    message = parsed(kind, payload, race_parse)
    if isinstance(message, race_messages.Resign):
        return True
    return (
        isinstance(message, race_messages.RaceMove) and message.seq == 0 and message.move in legal
    )


@FUZZ
@given(frames=batches)
def test_hostile_frames_on_the_race_socket_change_nothing(running_race, check_hidden_cards, frames):
    """Every hostile frame from a racer gets a refusal or a harmless answer; the race and both
    games are unchanged, and the socket keeps answering."""
    race = running_race.race
    racer = Racer.objects.select_related("game").get(race=race, player=running_race.ann.player)
    legal = set(get_game_update(racer.game).legal)
    frames = [f for f in frames if not changes_race(*f, legal)]
    before = harness.race_fingerprint(race)
    session = harness.Session(f"/ws/race/{race.code}/", running_race.ann)

    async def play() -> list[tuple[tuple, list[dict]]]:
        assert await session.open()
        await session.until("state")  # the snapshot, then the racer's board
        results = [(frame, await session.answers(*frame)) for frame in frames]
        await session.close()
        return results

    for frame, replies in async_to_sync(play)():
        check_malformed_refused(frame, replies, race_parse)
        for reply in replies:
            kind = reply["type"]
            if kind == "error":
                harness.check_refusal(reply)
            elif kind == "state":
                assert reply["seq"] == 0, (frame, reply)
            elif kind == "progress" and "event" not in reply:
                # A `sync` catch-up's live frame (docs/protocol.md, "Live progress"): nobody moved.
                assert [r["moves"] for r in reply["racers"]] == [0, 0], (frame, reply)
            elif kind != "snapshot" and kind != "pong":
                # `sync` may replay old events; nothing new may happen.
                assert reply.get("event", 10**9) <= before[1], (frame, reply)
    assert harness.race_fingerprint(race) == before
    for text in session.log:
        check_hidden_cards(text)


# ------------------------------------------------------------------ /ws/game/


EXAMPLES = itertools.count()


def changes_game(kind: str, payload, own: str, legal: set[str]) -> bool:
    """Would this frame (by chance) change the open game: a legal move or autoplay at seq 0?"""
    message = parsed(kind, payload, game_messages.parse)
    if not isinstance(message, game_messages.PlayMove | game_messages.Autoplay):
        return False
    if message.seq != 0 or message.game not in (None, own):
        return False
    return isinstance(message, game_messages.Autoplay) or message.move in legal


@FUZZ
@given(frames=batches)
def test_hostile_frames_on_the_game_socket_change_nothing(make_client, check_hidden_cards, frames):
    """Every hostile frame on /ws/game/ gets a refusal or a harmless answer; neither the
    player's game nor anyone else's changes, and the socket keeps answering."""
    example = next(EXAMPLES)  # one database for every example: a name is one player's
    ann, mallory = make_client(f"Ann {example}"), make_client(f"Mallory {example}")
    own = do_create_game(ann.player, "spiderweb", 11)
    other = do_create_game(mallory.player, "spiderweb", 12)
    legal = set(get_game_update(own).legal)
    frames = [
        (kind, payload.replace(OWN, own.public_id).replace(OTHER, other.public_id))
        if kind == "text"
        else (kind, payload)
        for kind, payload in frames
    ]
    frames = [f for f in frames if not changes_game(*f, own.public_id, legal)]
    before = harness.game_fingerprint(own), harness.game_fingerprint(other)
    session = harness.Session("/ws/game/", ann)

    async def play():
        assert await session.open()
        await session.communicator.send_json_to({"type": "open", "game": own.public_id})
        state = await session.receive()
        assert state["type"] == "state"
        results = [(frame, await session.answers(*frame)) for frame in frames]
        await session.close()
        return results

    for frame, replies in async_to_sync(play)():
        check_malformed_refused(frame, replies, game_messages.parse)
        for reply in replies:
            if reply["type"] == "error":
                harness.check_refusal(reply)
            else:
                assert reply["type"] in ("state", "pong"), (frame, reply)
                if reply["type"] == "state":
                    assert (reply["game"], reply["seq"]) == (own.public_id, 0), (frame, reply)
    assert (harness.game_fingerprint(own), harness.game_fingerprint(other)) == before
    for text in session.log:
        check_hidden_cards(text)
