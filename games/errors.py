"""The refusals of game actions: each changes nothing, and its `code` is the protocol's error code."""

from __future__ import annotations


class ActionError(Exception):
    """A request that is refused and changes nothing; `code` is the protocol's error code."""

    code = "server_error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class GameNotFound(ActionError):
    code = "not_found"


class NotYourGame(ActionError):
    code = "forbidden"


class GameOver(ActionError):
    code = "game_over"


class StaleSeq(ActionError):
    code = "stale_seq"


class MoveRefused(ActionError):
    code = "illegal_move"


class Unavailable(ActionError):
    """The store could not be reached within the writer's retry bound: nothing was applied, and
    the client may send the same frame again after `retry_ms`."""

    code = "unavailable"

    def __init__(self, reason: str, retry_ms: int = 1000) -> None:
        super().__init__(reason)
        self.retry_ms = retry_ms
