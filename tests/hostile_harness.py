"""What the hostile-input and security suites share: hypothesis strategies for hostile frames,
a socket session that sends a batch of frames and gathers each one's answers, and fingerprints
of everything a frame could change (so a test can say "nothing changed")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone
from hypothesis import strategies as st

from games.models import Game, Move
from races import actions as race_actions
from races.models import Race, RaceEvent, Racer

ORIGIN = b"http://localhost"

ERROR_CODES = frozenset(
    {
        # docs/protocol.md, both sockets
        "bad_json",
        "bad_message",
        "unknown_type",
        "too_large",
        "not_found",
        "forbidden",
        "no_game",
        "illegal_move",
        "stale_seq",
        "game_over",
        "rate_limited",
        # races
        "not_in_race",
        "not_started",
        "race_over",
        "already_finished",
        "race_started",
        "race_full",
        "not_host",
        "race_not_over",
        "no_rematch",
        "bad_name",
        "still_racing",
        "no_next_race",
    }
)
"""Every refusal a client may get. `server_error` is not among them: it means a crash."""


# ------------------------------------------------------------------ hostile frames

MESSAGE_TYPES = ["open", "move", "undo", "autoplay", "ping", "sync", "join", "leave", "ready"]
MESSAGE_TYPES += ["start", "rematch", "resign", "wait", "snapshot", "ack", "state", "__proto__", ""]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()  # json.dumps writes NaN and Infinity, which JSON does not have
    | st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
move_like = st.from_regex(r"\A(deal|[tfcswd][0-9]{1,22}(-[tfcswd][0-9]{0,22}(:[0-9]{1,22})?)?)\Z")
huge_numbers = st.sampled_from([2**31, 2**53 + 1, 2**63, 2**64, 10**30, -1, -(2**63), 1e308])
field_values = json_values | move_like | huge_numbers | st.text(min_size=30, max_size=200)

hostile_messages = st.builds(
    lambda kind, fields, extra: {**extra, **fields, "type": kind},
    st.sampled_from(MESSAGE_TYPES) | st.text(max_size=12) | json_values,
    st.dictionaries(
        st.sampled_from(["move", "seq", "game", "since", "ready", "name", "t"]),
        field_values,
        max_size=4,
    ),
    st.dictionaries(st.text(max_size=10), json_values, max_size=3),
)


def as_text(message: dict) -> str:
    return json.dumps(message)


hostile_frames = st.one_of(
    hostile_messages.map(lambda m: ("text", as_text(m))),
    json_values.map(lambda v: ("text", json.dumps(v))),
    st.text(max_size=120).map(lambda t: ("text", t)),
    st.binary(max_size=120).map(lambda b: ("bytes", b)),
    st.integers(4000, 9000).map(lambda n: ("text", json.dumps({"type": "ping", "pad": "x" * n}))),
)
"""(kind, payload) pairs: text frames of JSON with wrong types, huge numbers, unknown fields and
junk, non-JSON text, binary frames, and frames just over or under the size limit."""


# ------------------------------------------------------------------ sockets


def cookie_header(client: Client | None) -> list[tuple[bytes, bytes]]:
    if client is None:
        return []
    cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
    if cookie is None:
        return []
    return [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode())]


@dataclass(eq=False)
class Session:
    """One socket through the real ASGI application; `log` keeps every frame it received."""

    path: str
    client: Client | None = None
    origin: bytes | None = ORIGIN
    log: list[str] = field(default_factory=list)
    communicator: WebsocketCommunicator | None = None
    marker: int = 0

    async def open(self) -> bool:
        from solitaire_site.asgi import application

        headers = cookie_header(self.client)
        if self.origin is not None:
            headers.append((b"origin", self.origin))
        self.communicator = WebsocketCommunicator(application, self.path, headers=headers)
        # Channels' 1 s for the accept ran out on a loaded machine (tests/support.py).
        connected, _ = await self.communicator.connect(timeout=10)
        return connected

    async def receive(self, timeout: float = 3) -> dict:
        text = await self.communicator.receive_from(timeout)
        self.log.append(text)
        return json.loads(text)

    async def until(self, frame_type: str, timeout: float = 5) -> dict:
        """The next frame of this type (the ones before it are only logged)."""
        while True:
            frame = await self.receive(timeout)
            if frame["type"] == frame_type:
                return frame

    async def drain(self, quiet: float = 0.3) -> list[dict]:
        """Everything that arrives until the socket is quiet for `quiet` seconds."""
        frames = []
        while not await self.communicator.receive_nothing(quiet):
            frames.append(await self.receive())
        return frames

    async def answers(self, kind: str, payload) -> list[dict]:
        """Send one frame, then a numbered ping: every frame before that ping's pong."""
        # send_input, not send_to: empty frames are frames too.
        key = "bytes" if kind == "bytes" else "text"
        await self.communicator.send_input({"type": "websocket.receive", key: payload})
        self.marker += 1
        await self.communicator.send_json_to({"type": "ping", "t": self.marker})
        replies = []
        while True:
            frame = await self.receive()
            if frame.get("type") == "pong" and frame.get("t") == self.marker:
                return replies
            replies.append(frame)

    async def close(self) -> None:
        if self.communicator is not None:
            await self.communicator.disconnect()


# ------------------------------------------------------------------ races and fingerprints


@dataclass
class RunningRace:
    race: Race
    ann: Client
    bob: Client


def start_running_race(make_client, make_race, variant: str = "penelopes-web") -> RunningRace:
    """Ann's race with Bob in it, started, its countdown already over."""
    ann, bob = make_client("Ann"), make_client("Bob")
    race = make_race(ann, variant=variant, time_limit_s=600)
    race_actions.do_join_race(race, bob.player)
    race_actions.do_start_race(race, ann.player)
    earlier = timezone.now() - timedelta(seconds=1)
    Race.objects.filter(pk=race.pk).update(starts_at=earlier)
    Game.objects.filter(racer__race=race).update(started_at=earlier)
    race.refresh_from_db()
    return RunningRace(race, ann, bob)


def game_fingerprint(game: Game) -> tuple:
    game = Game.objects.get(pk=game.pk)
    moves = list(Move.objects.filter(game=game).order_by("seq").values_list("seq", "move"))
    return (game.seq, game.move_count, game.status, json.dumps(game.state), moves)


def race_fingerprint(race: Race) -> tuple:
    """Everything about a race a frame could change: the row, its racers and their games."""
    race = Race.objects.get(pk=race.pk)
    racers = [
        (r.public_id, r.status, r.ready, r.cards, r.moves, r.done_ms, game_fingerprint(r.game))
        for r in Racer.objects.filter(race=race).select_related("game")
    ]
    events = RaceEvent.objects.filter(race=race).count()
    return (race.status, race.event_seq, race.host_id, race.rematch_id, events, racers)


def check_refusal(frame: dict) -> None:
    """An error frame names a documented code, says why, and is not a crash."""
    assert frame["type"] == "error", frame
    assert frame["code"] in ERROR_CODES, frame
    assert isinstance(frame["reason"], str) and frame["reason"], frame
