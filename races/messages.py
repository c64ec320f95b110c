"""Client frames of /ws/race/<code>/ parsed into typed messages, or a clear refusal.

The frame checks (size, JSON, `type`, `seq`, strings) are the games app's, so both sockets
refuse bad input with the same codes and words.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.messages import MAX_MOVE_LENGTH, BadFrame, Ping, _ping, _seq, _string, decode
from games.models import NICKNAME_MAX_LENGTH


@dataclass(frozen=True)
class Sync:
    """Send what I missed since event `since` (or a full snapshot when that is None)."""

    since: int | None = None


@dataclass(frozen=True)
class Join:
    name: str | None = None


@dataclass(frozen=True)
class Leave:
    pass


@dataclass(frozen=True)
class Ready:
    ready: bool


@dataclass(frozen=True)
class Start:
    pass


@dataclass(frozen=True)
class RaceMove:
    move: str
    seq: int


@dataclass(frozen=True)
class RaceUndo:
    seq: int


@dataclass(frozen=True)
class Resign:
    pass


@dataclass(frozen=True)
class Rematch:
    pass


Message = Sync | Join | Leave | Ready | Start | RaceMove | RaceUndo | Resign | Rematch | Ping


def _since(obj: dict) -> Sync:
    since = obj.get("since")
    if since is not None and (not isinstance(since, int) or isinstance(since, bool) or since < 0):
        raise BadFrame("bad_message", "`since` must be a whole number, 0 or more")
    return Sync(since=since)


def _ready(obj: dict) -> Ready:
    ready = obj.get("ready", True)
    if not isinstance(ready, bool):
        raise BadFrame("bad_message", "`ready` must be true or false")
    return Ready(ready=ready)


PARSERS = {
    "sync": _since,
    "join": lambda obj: Join(name=_string(obj, "name", NICKNAME_MAX_LENGTH, required=False)),
    "leave": lambda obj: Leave(),
    "ready": _ready,
    "start": lambda obj: Start(),
    "move": lambda obj: RaceMove(move=_string(obj, "move", MAX_MOVE_LENGTH), seq=_seq(obj)),
    "undo": lambda obj: RaceUndo(seq=_seq(obj)),
    "resign": lambda obj: Resign(),
    "rematch": lambda obj: Rematch(),
    "ping": _ping,
}
TYPES = {
    Sync: "sync",
    Join: "join",
    Leave: "leave",
    Ready: "ready",
    Start: "start",
    RaceMove: "move",
    RaceUndo: "undo",
    Resign: "resign",
    Rematch: "rematch",
    Ping: "ping",
}


def parse(text: str | None, data: bytes | None = None) -> Message:
    """The typed message a text frame holds; BadFrame with the code and reason otherwise."""
    obj = decode(text, data)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise BadFrame("bad_message", "the frame has no string `type`")
    parser = PARSERS.get(kind)
    if parser is None:
        raise BadFrame("unknown_type", f"unknown message type {kind[:40]!r}", ref=kind[:40])
    try:
        return parser(obj)
    except BadFrame as exc:
        exc.ref = kind
        raise
