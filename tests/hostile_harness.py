"""What the hostile-input and security suites share: hypothesis strategies for hostile frames,
a socket session that sends a batch of frames and gathers each one's answers, and fingerprints
of everything a frame could change (so a test can say "nothing changed")."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import quote

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone
from hypothesis import strategies as st

from arenas.models import Arena
from games.models import Game, Move
from races import actions as race_actions
from races.models import Race, RaceEvent, Racer
from tests.protocol_source import SOCKETS, sent_codes

ORIGIN = b"http://localhost"

ERROR_CODES = frozenset().union(*map(sent_codes, SOCKETS)) - {"server_error"}
"""Every refusal a client may get on any socket, as the sockets' source says (the reading that
docs/protocol.md's error tables are checked against: tests/protocol_source.py). `server_error`
is not among them: it means a crash."""


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


# ------------------------------------------------------------------ sharper frames: the edges

FIELDS = {
    "open": ("game",),
    "move": ("move", "seq", "game"),
    "undo": ("seq", "game"),
    "autoplay": ("seq", "game"),
    "hint": ("game",),
    "ping": ("t",),
    "sync": ("since",),
    "join": ("name",),
    "leave": (),
    "ready": ("ready",),
    "start": (),
    "resign": (),
    "rematch": (),
    "wait": (),
    "player": ("ticket",),
}
"""Every message a client may send on /ws/game/, /ws/race/<code>/ or /ws/arena/<id>/, and its
fields (docs/protocol.md)."""
FIELD_NAMES = sorted({name for names in FIELDS.values() for name in names} | {"type", "paused"})
NEAR_NAMES = [f(n) for n in FIELD_NAMES for f in (str.upper, str.title, lambda n: n + "\0")]
NEAR_NAMES += ["t ", " seq", "ſeq", "\ufeffseq", "\ud800", "__proto__", "constructor"]
"""Field names that differ from the protocol's by case, a NUL, a space or a look-alike."""

EDGE_INTS = sorted(
    {
        sign * base + step
        for base in (0, 2**31, 2**32, 2**53, 2**63, 2**64)
        for sign in (1, -1)
        for step in (-1, 0, 1)
    }
)
"""0, 2^31, 2^32, 2^53, 2^63 and 2^64, each with its neighbours and its negatives: where an
int32, a double's exact integers, an int64 and a uint64 end."""
EDGE_FLOATS = [1.0, -1.0, 0.0, -0.0, 0.5, 1e16, -1e16, 2.0**53, 2.0**63, 2.0**64, 1e308, -1e308]
EDGE_FLOATS += [1.7976931348623157e308, 5e-324, -5e-324, 2.2250738585072014e-308]
RAW_NUMBERS = ["1e400", "-1e400", "1E+999", "1e-400", "-0", "-0.0", "0e0", "1.0", "1E2", "0.1e1"]
RAW_NUMBERS += ["1.7976931348623159e308", "9007199254740993", "1" + "0" * 40, "-" + "9" * 400]
"""Number literals as a client may write them but json.dumps never does: past a double
(1e400 reads as infinity), under it (as 0.0), -0, exponents, integers of hundreds of digits."""
EDGE_STRINGS = ["", " ", "\0", "a\0b", "\ud800", "\udfff", "a\udc00b", "\udc00\ud800"]
EDGE_STRINGS += [
    "\u202eevil",
    "\u200b",
    "\ufeff",
    "😀",
    "👩\u200d👩\u200d👧",
    "e\u0301",
    "\n",
    "\\",
]
EDGE_STRINGS += ["0", "-1", "1.0", "1e400", "NaN", "Infinity", "-0", "9223372036854775808"]
EDGE_STRINGS += ["١٢", "²", " 7", "7\n", "0x10", "true", "null", "</script>", "%00", "../"]
"""Empty, NUL, lone surrogates (JSON's "\\ud800" reads as one), right-to-left override, zero
width, emoji, combining marks, and strings that look like numbers or keywords."""
edge_text = st.text(
    st.characters() | st.characters(categories=["Cs"]) | st.sampled_from("\0\u202e\ufeff"),
    max_size=40,
)
edge_strings = (
    st.sampled_from(EDGE_STRINGS)
    | edge_text
    | st.sampled_from([23, 24, 25, 31, 32, 33, 199, 200, 201, 1000]).map(lambda n: "x" * n)
    | st.sampled_from(EDGE_STRINGS).map(lambda s: "é" * 31 + s)
)
"""The edge strings, random text with lone surrogates and NULs, and strings at and past every
field's length limit (a nickname's 24, a move's and game's 32, a ticket's 200)."""
edge_scalars = (
    st.sampled_from(EDGE_INTS)
    | st.sampled_from(EDGE_FLOATS)
    | edge_strings
    | st.none()
    | st.booleans()
)
edge_tokens = st.one_of(
    edge_scalars.map(json.dumps),  # ensure_ascii: surrogates and NUL written as escapes
    st.sampled_from(RAW_NUMBERS),
    st.lists(edge_scalars, max_size=3).map(json.dumps),
    st.dictionaries(st.sampled_from(FIELD_NAMES), edge_scalars, max_size=2).map(json.dumps),
    st.sampled_from([2, 100, 1500]).map(lambda n: "[" * n + "]" * n),
)
"""JSON text of a value: an edge scalar, a raw number, a scalar nested in a list or an object,
or arrays nested deeper than the parser recurses."""


def raw_object(pairs: list[tuple[str, str]]) -> str:
    """A JSON object's text from (key, value's JSON text) pairs, duplicate keys kept."""
    return "{" + ", ".join(f"{json.dumps(key)}: {value}" for key, value in pairs) + "}"


GOOD_VALUES = {
    "move": move_like,
    "seq": st.integers(0, 3),
    "game": st.text(max_size=12),
    "since": st.integers(0, 5),
    "ready": st.booleans(),
    "name": st.sampled_from(["Ann", "Zoë", "x" * 24]),
    "t": st.integers(0, 10**6),
    "ticket": st.text(max_size=12),
    "paused": st.booleans(),
}


def sharp_frames(**good) -> st.SearchStrategy:
    """("text", JSON) frames of the protocol's messages, each with every field good (`good`
    overrides `GOOD_VALUES`: a test's own game ids or tickets) but one or two edits: a field
    (`type` too) at an edge (`edge_tokens`), or dropped, or given twice (the parser keeps the
    last), or a near-miss name beside them; the keys in any order."""
    values = {**GOOD_VALUES, **good}

    def message(kind: str) -> st.SearchStrategy:
        names = ("type", *FIELDS[kind])
        fields = st.fixed_dictionaries({name: values[name].map(json.dumps) for name in names[1:]})
        where = st.one_of(
            st.sampled_from(names), st.sampled_from(names), st.sampled_from(NEAR_NAMES)
        )
        how = st.sampled_from(["edge", "edge", "twice", "drop"])
        edits = st.lists(st.tuples(where, edge_tokens, how), min_size=1, max_size=2)

        def edited(fields: dict, edits: list) -> list[tuple[str, str]]:
            pairs, extra = {"type": json.dumps(kind), **fields}, []
            for name, token, how in edits:
                if how == "edge" and name in pairs:
                    pairs[name] = token
                elif how == "drop":
                    pairs.pop(name, None)
                else:
                    extra.append((name, token))
            return [*pairs.items(), *extra]

        return st.builds(edited, fields, edits).flatmap(st.permutations)

    return st.sampled_from(sorted(FIELDS)).flatmap(message).map(lambda p: ("text", raw_object(p)))


hostile_frames = st.one_of(
    hostile_messages.map(lambda m: ("text", as_text(m))),
    json_values.map(lambda v: ("text", json.dumps(v))),
    st.text(max_size=120).map(lambda t: ("text", t)),
    st.binary(max_size=120).map(lambda b: ("bytes", b)),
    st.integers(4000, 9000).map(lambda n: ("text", json.dumps({"type": "ping", "pad": "x" * n}))),
    sharp_frames(),
)
"""(kind, payload) pairs: text frames of JSON with wrong types, huge numbers, unknown fields and
junk, non-JSON text, binary frames, frames just over or under the size limit, and the
protocol's messages with every field at its edges (`sharp_frames`)."""


# ------------------------------------------------------------------ URLs: the edges

EDGE_URL_PARTS = ["%00", "a%00b", "%ED%A0%80", "%FF", "%F0%9F%98%80", "%E2%80%AEevil", "%D9%A3"]
EDGE_URL_PARTS += ["%C2%B2", "%20", "%0A", "%2E%2E", "-1", "0", "1.0", "1e16", "NaN", "9" * 40]
EDGE_URL_PARTS += [str(n) for n in EDGE_INTS] + ["x" * 300, "%25", "%3Cscript%3E"]
"""A path segment or query value, percent-encoded: NUL, bytes that are no UTF-8 (a lone
surrogate's, 0xFF), emoji, right-to-left, Unicode digits, the edge integers and floats."""
edge_url_parts = st.sampled_from(EDGE_URL_PARTS) | edge_text.filter(bool).map(
    lambda text: quote(text.encode("utf-8", "surrogatepass"), safe="")
)

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
NUL_ID_PAGES = ("/arenas/", "/api/arenas/", "/daily/play/", "/replay/", "/api/replays/")
NUL_ID_PAGES += ("/fairplay/report/",)


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
        """The next frame; if the application ends first (a crash), its exception at once
        rather than after the timeout."""
        communicator = self.communicator
        getter = asyncio.ensure_future(communicator.output_queue.get())
        waited = {getter, communicator.future}
        await asyncio.wait(waited, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if getter.done():
            message = getter.result()
        else:
            getter.cancel()  # nothing came: the application's exception, or a timeout
            message = await communicator.receive_output(0.01)
        assert message["type"] == "websocket.send", message
        self.log.append(message["text"])
        return json.loads(message["text"])

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


def running_arena(name: str) -> Arena:
    """An arena that began a minute ago and runs for half an hour more."""
    now = timezone.now()
    return Arena.objects.create(
        name=name,
        variant="eighty-thieves",
        starts_at=now - timedelta(minutes=1),
        ends_at=now + timedelta(minutes=30),
    )


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
