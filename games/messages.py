"""Client frames of /ws/game/ parsed into typed messages, or a clear refusal (lila-ws's
ClientOut.parse): the consumer never looks into raw JSON itself."""

from __future__ import annotations

import json
from dataclasses import dataclass

MAX_FRAME_BYTES = 4096
MAX_MOVE_LENGTH = 32
MAX_GAME_ID_LENGTH = 32


class BadFrame(Exception):
    """A frame that cannot be a message; `code` is the protocol's error code."""

    def __init__(self, code: str, reason: str, ref: str | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.ref = ref


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


Message = Open | PlayMove | Undo | Autoplay | Hint | Ping


def decode(text: str | None, data: bytes | None) -> dict:
    """The frame's JSON object; BadFrame for binary, oversized or malformed frames."""
    if text is None:
        raise BadFrame("bad_message", "binary frames are not accepted; send JSON text")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
        raise BadFrame("too_large", f"a frame may hold at most {MAX_FRAME_BYTES} bytes")
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise BadFrame("bad_json", f"the frame is not JSON: {exc.msg}") from None
    except (ValueError, RecursionError):
        raise BadFrame("bad_json", "the frame is not JSON") from None
    if not isinstance(obj, dict):
        raise BadFrame("bad_json", "the frame is not a JSON object")
    return obj


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse(text: str | None, data: bytes | None = None, parsers: dict | None = None):
    """The typed message a text frame holds; BadFrame with the code and reason otherwise.

    `parsers` maps each `type` to a function from the frame's object to its message (this
    socket's PARSERS by default; another socket passes its own table).
    """
    obj = decode(text, data)
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise BadFrame("bad_message", "the frame has no string `type`")
    parser = (PARSERS if parsers is None else parsers).get(kind)
    if parser is None:
        raise BadFrame("unknown_type", f"unknown message type {kind[:40]!r}", ref=kind[:40])
    try:
        return parser(obj)
    except BadFrame as exc:
        exc.ref = kind
        raise


def _string(obj: dict, field: str, max_length: int, required: bool = True) -> str | None:
    value = obj.get(field)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise BadFrame("bad_message", f"`{field}` must be a non-empty string")
    if len(value) > max_length:
        raise BadFrame("bad_message", f"`{field}` is longer than {max_length} characters")
    return value


def _seq(obj: dict) -> int:
    value = obj.get("seq")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadFrame("bad_message", "`seq` must be a whole number, 0 or more")
    return value


def _game(obj: dict) -> str | None:
    return _string(obj, "game", MAX_GAME_ID_LENGTH, required=False)


def _ping(obj: dict) -> Ping:
    t = obj.get("t")
    if t is not None and (not isinstance(t, int | float) or isinstance(t, bool)):
        raise BadFrame("bad_message", "`t` must be a number")
    return Ping(t=t)


PARSERS = {
    "open": lambda obj: Open(game=_string(obj, "game", MAX_GAME_ID_LENGTH)),
    "move": lambda obj: PlayMove(
        move=_string(obj, "move", MAX_MOVE_LENGTH), seq=_seq(obj), game=_game(obj)
    ),
    "undo": lambda obj: Undo(seq=_seq(obj), game=_game(obj)),
    "autoplay": lambda obj: Autoplay(seq=_seq(obj), game=_game(obj)),
    "hint": lambda obj: Hint(game=_game(obj)),
    "ping": _ping,
}
