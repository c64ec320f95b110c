"""What every playing socket shares (/ws/game/, /ws/daily/, /ws/race/): frames in (parsed into
typed messages, or a clear refusal: lila-ws's ClientOut.parse), frames out (docs/protocol.md),
the per-connection frame budget, the refusals, and the games a socket shows.

A socket shows games (its own, or the racers' a spectator watches): it holds each one's
`InPlay` entry (games/play.py) and is in its channel group `game.<public_id>`. A change is
published to that group only when someone else shows the game (another socket of this process,
or one elsewhere that said so with `game.hello` when it began to show it): the usual player
with one tab costs no publish at all.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

import orjson
from autobahn.exception import Disconnected
from channels.auth import AuthMiddleware, get_user
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.sessions import CookieMiddleware, InstanceSessionWrapper, SessionMiddleware
from channels.utils import await_many_dispatch
from django.utils.functional import SimpleLazyObject

from games import play
from games.errors import ActionError, Unavailable
from games.groups import GROUP, GROUPS, group_send
from games.models import INT64_MAX, Game
from games.storage import DATABASE_AWAY

logger = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4096
MAX_MOVE_LENGTH = 32
MAX_GAME_ID_LENGTH = 32

CLOSE_FLOOD = 4008
"""Close code for a connection that floods past FrameBudget.flood (4000-4999: application codes)."""


# ------------------------------------------------------------------ frames in


class BadFrame(Exception):
    """A frame that cannot be a message; `code` is the protocol's error code."""

    def __init__(self, code: str, reason: str, ref: str | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.ref = ref


@dataclass(frozen=True)
class Field:
    """One field of a message: `text` (a non-empty string of at most `limit` characters),
    `whole` (an integer, 0 or more), `number`, or `flag` (true or false); absent, an optional
    field is `default`."""

    kind: str
    required: bool = True
    limit: int = 0
    default: Any = None


MOVE = Field("text", limit=MAX_MOVE_LENGTH)
SEQ = Field("whole")
GAME = Field("text", required=False, limit=MAX_GAME_ID_LENGTH)


@dataclass(frozen=True)
class Open:
    game: str


@dataclass(frozen=True)
class PlayMove:
    move: str
    seq: int
    game: str | None = None


@dataclass(frozen=True)
class Undo:
    seq: int
    game: str | None = None


@dataclass(frozen=True)
class Autoplay:
    seq: int
    game: str | None = None


@dataclass(frozen=True)
class Hint:
    game: str | None = None


@dataclass(frozen=True)
class Ping:
    t: int | float | None = None


PING = (Ping, {"t": Field("number", required=False)})

MESSAGES: dict[str, tuple[type, dict[str, Field]]] = {
    "open": (Open, {"game": Field("text", limit=MAX_GAME_ID_LENGTH)}),
    "move": (PlayMove, {"move": MOVE, "seq": SEQ, "game": GAME}),
    "undo": (Undo, {"seq": SEQ, "game": GAME}),
    "autoplay": (Autoplay, {"seq": SEQ, "game": GAME}),
    "hint": (Hint, {"game": GAME}),
    "ping": PING,
}
"""/ws/game/'s messages (practice and daily): each `type`, its message and its fields."""


def message_types(messages: dict) -> dict[type, str]:
    """A socket's table turned round: each message's `type`, the `ref` of a refusal of it."""
    return {message: kind for kind, (message, _) in messages.items()}


TYPES = message_types(MESSAGES)
"""/ws/game/'s messages' types."""


def parse(text: str | None, data: bytes | None = None, messages: dict | None = None):
    """The typed message a text frame holds (`messages`: a socket's table, /ws/game/'s by
    default); BadFrame with the protocol's code and reason otherwise. Unknown keys are ignored."""
    if text is None:
        raise BadFrame("bad_message", "binary frames are not accepted; send JSON text")
    if len(text) * 4 > MAX_FRAME_BYTES and len(text.encode("utf-8", "surrogatepass")) > (
        MAX_FRAME_BYTES
    ):
        raise BadFrame("too_large", f"a frame may hold at most {MAX_FRAME_BYTES} bytes")
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise BadFrame("bad_json", f"the frame is not JSON: {exc.msg}") from None
    except (ValueError, RecursionError):
        raise BadFrame("bad_json", "the frame is not JSON") from None
    if not isinstance(obj, dict):
        raise BadFrame("bad_json", "the frame is not a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise BadFrame("bad_message", "the frame has no string `type`")
    found = (MESSAGES if messages is None else messages).get(kind)
    if found is None:
        shown = kind[:40].encode("utf-8", "replace").decode()  # a lone surrogate is no UTF-8
        raise BadFrame("unknown_type", f"unknown message type {shown!r}", ref=shown)
    message, fields = found
    try:
        return message(**{name: _value(obj, name, field) for name, field in fields.items()})
    except BadFrame as exc:
        exc.ref = kind
        raise


def _value(obj: dict, name: str, field: Field):
    value = obj.get(name)
    if value is None and not field.required:
        return field.default
    if field.kind == "text":
        if not isinstance(value, str) or not value:
            raise BadFrame("bad_message", f"`{name}` must be a non-empty string")
        if len(value) > field.limit:
            raise BadFrame("bad_message", f"`{name}` is longer than {field.limit} characters")
    elif field.kind == "whole":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= INT64_MAX:
            raise BadFrame("bad_message", f"`{name}` must be a whole number, 0 to 2^63 - 1")
    elif field.kind == "number":
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise BadFrame("bad_message", f"`{name}` must be a number")
        if isinstance(value, int) and not -INT64_MAX - 1 <= value <= INT64_MAX:
            raise BadFrame("bad_message", f"`{name}` must fit in 64 bits")
        if isinstance(value, float) and not math.isfinite(value):  # 1e400 reads as infinity
            raise BadFrame("bad_message", f"`{name}` must be a finite number")
    elif not isinstance(value, bool):
        raise BadFrame("bad_message", f"`{name}` must be true or false")
    return value


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


# ------------------------------------------------------------------ frames out


def encode(frame: dict) -> str:
    """A frame as compact JSON text (orjson)."""
    return orjson.dumps(frame).decode()


def iso(moment: datetime | None) -> str | None:
    """UTC with milliseconds and a Z, as JavaScript's Date.toISOString() writes it."""
    if moment is None:
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def game_frame(frame_type: str, update: play.GameUpdate) -> dict:
    """A `state` or `ack` frame: the position the player may see, with the server's clock."""
    game = update.game
    return {
        "type": frame_type,
        "game": game.public_id,
        "seq": game.seq,
        "played": list(update.played),
        "view": update.view,
        "legal": list(update.legal),
        "status": game.status,
        "moves": game.move_count,
        "can_undo": update.can_undo,
        "started_at": iso(game.started_at),
        "elapsed_ms": play.elapsed_ms(game),
        "finished_at": iso(game.finished_at),
    }


def deal_frame(view: dict, legal: list[str], status: str) -> dict:
    """A `state` frame for a deal no game has been started on yet (game null, seq 0): what the
    practice page draws before the player's first action creates the game."""
    return {
        "type": "state",
        "game": None,
        "seq": 0,
        "played": [],
        "view": view,
        "legal": legal if status == "playing" else [],
        "status": status,
        "moves": 0,
        "can_undo": False,
        "started_at": None,
        "elapsed_ms": 0,
        "finished_at": None,
    }


def error_frame(code: str, reason: str, ref: str | None = None) -> dict:
    """An `error` frame: what was refused and why; the game is unchanged."""
    return {"type": "error", "code": code, "reason": reason, "ref": ref}


def pong_frame(client_time=None) -> dict:
    """The answer to `ping`: the server's clock (ms since the epoch), echoing the client's `t`."""
    frame = {"type": "pong", "server_time_ms": int(time.time() * 1000)}
    if client_time is not None:
        frame["t"] = client_time
    return frame


def group_name(public_id: str) -> str:
    """The channel group of every socket that shows this game."""
    return f"game.{public_id}"


# ------------------------------------------------------------------ the frame budget


class Verdict(Enum):
    OK = "ok"
    LIMITED = "limited"
    FLOOD = "flood"


class FrameBudget:
    """A per-connection sliding window of arrival times: past `limit` frames in `window`
    seconds each further frame is refused (`rate_limited`); past `flood` the connection is to be
    closed. Refused frames count too, so a client that keeps hammering reaches the flood line."""

    def __init__(
        self,
        limit: int = 30,
        flood: int = 120,
        window: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 < limit <= flood:
            raise ValueError("need 0 < limit <= flood")
        self.limit = limit
        self.flood = flood
        self.window = window
        self.clock = clock
        self._arrivals: deque[float] = deque(maxlen=flood + 1)

    def charge(self) -> Verdict:
        """Count one frame arriving now and say what to do with it."""
        now = self.clock()
        arrivals = self._arrivals
        while arrivals and arrivals[0] <= now - self.window:
            arrivals.popleft()
        arrivals.append(now)
        count = len(arrivals)
        if count > self.flood:
            return Verdict.FLOOD
        if count > self.limit:
            return Verdict.LIMITED
        return Verdict.OK


# ------------------------------------------------------------------ the socket


class SocketSessionMiddleware(SessionMiddleware):
    """Channels' `SessionMiddleware` for websockets: the session in the scope, `send` passed as
    it is. Channels wraps `send` so that an HTTP response saves a modified session and sets its
    cookie; a websocket message never does either, yet the wrapper looked at the session on
    every frame a socket sent (docs/performance.md). Sockets read the session; pages write it."""

    async def __call__(self, scope, receive, send):
        wrapper = InstanceSessionWrapper(scope, send)
        await wrapper.resolve_session()
        return await self.inner(wrapper.scope, receive, send)


class SocketAuthMiddleware(AuthMiddleware):
    """Channels' `AuthMiddleware`, with the user read the first time it is asked for instead of
    before the socket opens. Channels reads it at every handshake in a hop of its own to the one
    thread that `database_sync_to_async` keeps for the whole process, so a crowd of sockets
    opening at once (an arena's racers, every race) queued there; here the consumer's own
    first read, off the loop on the ORM threads (`player_from_scope`), reads the session and the
    user with Channels' own `get_user`, checks and all."""

    def populate_scope(self, scope):
        scope.setdefault("user", SimpleLazyObject(functools.partial(get_user.func, scope)))
        super().populate_scope(scope)  # Channels' own check that the session is there

    async def resolve_scope(self, scope):
        pass


def SocketAuthMiddlewareStack(inner):  # noqa: N802 (named like Channels' AuthMiddlewareStack)
    """Cookies, the session (read only) and the user, as `AuthMiddlewareStack` gives them."""
    return CookieMiddleware(SocketSessionMiddleware(SocketAuthMiddleware(inner)))


async def send_unless_closed(send, message: dict) -> None:
    """Daphne's `send`, with a frame to a client that has just closed dropped. Between the
    client's close frame and the end of the connection, Daphne still hands a send to the
    websocket, which raises (`Disconnected`), and the exception ended the consumer without its
    `disconnect()` (Channels' issue 1820): an arena page closed while its first board was on its
    way (its player placed at once) left the player present, placed again and again. The
    disconnect that follows the close runs as for any other socket."""
    try:
        await send(message)
    except Disconnected:
        logger.debug("dropped a %s to a closed websocket", message.get("type"))


class PlaySocket(AsyncWebsocketConsumer):
    """A socket whose database calls all run off the loop (games.storage.off_loop), each of
    which gives its own connection back: Channels' own `dispatch` first closes the loop
    thread's stale connections, a hop to a thread and back for every frame and group message,
    and this thread holds none, so that is skipped.

    It has no channel of its own: the event loop's one channel hears the groups it joins
    (`join_group`, games/groups.py) and puts their messages in its inbox, which it reads in turn
    with its websocket frames, one message at a time, as Channels reads a consumer's channel."""

    path_name = "socket"
    stamps_now = False
    """Every frame carries the server's clock as `now` (races)."""
    channel_layer = None

    async def __call__(self, scope, receive, send):
        """Channels' own (`AsyncConsumer.__call__`), with the inbox where it reads a channel."""
        self.scope = scope
        self.base_send = functools.partial(send_unless_closed, send)
        self.inbox: asyncio.Queue[dict] = asyncio.Queue()
        self.groups_in: set[str] = set()
        try:
            await await_many_dispatch([receive, self.inbox.get], self.dispatch)
        except StopConsumer:
            pass
        finally:
            for group in list(self.groups_in):
                self.leave_group(group)

    def hear(self, message: dict) -> None:
        """A message of a group the socket is in (games/groups.py)."""
        self.inbox.put_nowait(message)

    async def join_group(self, group: str) -> None:
        self.groups_in.add(group)
        await GROUPS.get().add(group, self)

    def leave_group(self, group: str) -> None:
        self.groups_in.discard(group)
        GROUPS.get().discard(group, self)

    async def websocket_disconnect(self, message):
        """Channels' own, without its sweep of the loop thread's database connections at the end
        (that thread holds none): a hop to Channels' one database thread for every socket that
        closed, where a crowd's closes (an arena's races ending together) queued. The groups are
        left by `__call__`."""
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    def setup_socket(self, budget: FrameBudget) -> None:
        self.budget = budget
        self.shown: dict[str, play.InPlay] = {}

    async def over_budget(self, verdict: Verdict) -> None:
        """A frame past the socket's budget (`self.budget.charge()` said so): the client is
        told `rate_limited`, or the flooding socket is closed."""
        if verdict is Verdict.FLOOD:
            logger.warning("closing a flooding socket on %s", self.scope.get("path"))
            await self.close(code=CLOSE_FLOOD)
            return
        limit, window = self.budget.limit, self.budget.window
        await self.send_frame(
            error_frame("rate_limited", f"more than {limit} frames in {window:g} s; slow down")
        )

    async def refuse(self, exc: Exception, ref: str | None) -> None:
        """The frame was refused: tell the client why (nothing changed)."""
        if isinstance(exc, BadFrame):  # the parse's own `ref` if it set one, else the frame's
            ref = ref if exc.ref is None else exc.ref
            await self.send_frame(error_frame(exc.code, exc.reason, ref))
        elif isinstance(exc, (Unavailable, *DATABASE_AWAY)):
            if not isinstance(exc, Unavailable):
                logger.warning("refused on %s: the database is unavailable (%s)", ref, exc)
                exc = Unavailable(
                    "the game store is unavailable; nothing was applied, send it again"
                )
            frame = error_frame(exc.code, exc.reason, ref)
            frame["retry_ms"] = exc.retry_ms
            await self.send_frame(frame)
        elif isinstance(exc, ActionError) or hasattr(exc, "code"):
            await self.send_frame(error_frame(exc.code, exc.reason, ref))
        else:
            logger.error("server error on %s (%s)", self.path_name, ref, exc_info=exc)
            await self.send_frame(
                error_frame("server_error", "something went wrong on the server; try again", ref)
            )

    async def send_frame(self, frame: dict) -> None:
        if self.stamps_now:
            frame.setdefault("now", int(time.time() * 1000))
        await self.send(text_data=orjson.dumps(frame).decode())

    async def send_update(self, frame_type: str, update: play.GameUpdate) -> None:
        """The player's own board (`state`, `ack`), remembered as sent."""
        self.seq_sent = update.game.seq
        await self.send_frame(game_frame(frame_type, update))

    # ------------------------------------------------------------------ the games it shows

    async def show(self, game: Game) -> play.InPlay:
        """Begin to show a game: hold its entry, join its group, and tell other processes'
        sockets that it is watched (they answer `game.here`, so this one knows of them)."""
        entry = self.shown.get(game.public_id)
        if entry is not None:
            return entry
        entry = self.shown[game.public_id] = play.GAMES.get().hold(game)
        group = group_name(game.public_id)
        await self.join_group(group)
        hello = {"type": "game.hello", "game": game.public_id, "from": GROUPS.get().name}
        try:
            await group_send(group, hello)
        except Exception:  # as if the layer had dropped it: sockets elsewhere learn at their next
            logger.warning("could not say a game is shown", exc_info=True)
        return entry

    async def unshow_all(self) -> None:
        for public_id, entry in list(self.shown.items()):
            play.GAMES.get().release(entry)
            self.leave_group(group_name(public_id))
        self.shown.clear()

    async def game_hello(self, message: dict) -> None:
        """A socket of another process began to show a game this socket shows: changes must now
        be published (sockets of this process share the game's entry, which counts them)."""
        if message["from"] == GROUPS.get().name:
            return
        entry = self.shown.get(message["game"])
        if entry is not None:
            entry.watched_elsewhere = True
            here = {"type": "game.here", "game": message["game"], GROUP: message[GROUP]}
            await get_channel_layer().send(message["from"], here)

    async def game_here(self, message: dict) -> None:
        entry = self.shown.get(message["game"])
        if entry is not None:
            entry.watched_elsewhere = True

    async def publish(self, entry: play.InPlay, update: play.GameUpdate) -> None:
        """Tell the game's other watchers (other tabs, spectators) of a change, if any. The
        channel layer may drop it: a socket that misses one notices the `seq` gap at its next
        frame, and `open`/`sync` always resync."""
        if (entry.watched_elsewhere or entry.sockets > 1) and update.played:
            group = group_name(entry.game.public_id)
            frame = game_frame("state", update)
            try:
                await group_send(group, {"type": "game.changed", "frame": frame})
            except Exception:  # as if the layer had dropped it (the move itself is stored)
                logger.warning("could not publish a move to the game's watchers", exc_info=True)
