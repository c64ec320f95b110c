"""What every playing socket shares (/ws/game/, /ws/daily/, /ws/race/): frames in and out, the
frame budget, the refusals, and the games it shows.

A socket shows games (its own, or the racers' a spectator watches): it holds each one's
`InPlay` entry (games/play.py) and is in its channel group `game.<public_id>`. A change is
published to that group only when someone else shows the game (another socket of this process,
or one elsewhere that said so with `game.hello` when it began to show it): the usual player
with one tab costs no publish at all.
"""

from __future__ import annotations

import logging

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer

from games import play
from games.errors import ActionError, Unavailable
from games.frames import encode, error_frame, game_frame
from games.live import GameUpdate
from games.messages import BadFrame
from games.models import Game
from games.ratelimit import Verdict
from games.writer import DATABASE_AWAY

logger = logging.getLogger(__name__)

# Close code for a connection that floods past FrameBudget.flood (4000-4999: application codes).
CLOSE_FLOOD = 4008


def group_name(public_id: str) -> str:
    """The channel group of every socket that shows this game."""
    return f"game.{public_id}"


class PlaySocket(AsyncWebsocketConsumer):
    """A socket whose database calls all run in worker threads, each of which closes its own
    connection.

    Channels' own `dispatch` first closes the event loop thread's stale connections, a hop to a
    thread and back for every frame and every group message; this thread holds no connection,
    so it is skipped."""

    path_name = "socket"

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    def setup_socket(self, budget) -> None:
        self.budget = budget
        self.shown: dict[str, play.InPlay] = {}

    async def admit(self) -> bool:
        """Charge an incoming frame to the socket's `budget`: False when it is refused (the
        client told `rate_limited`), or when the socket floods and is closed."""
        verdict = self.budget.charge()
        if verdict is Verdict.FLOOD:
            logger.warning("closing a flooding socket on %s", self.scope.get("path"))
            await self.close(code=CLOSE_FLOOD)
            return False
        if verdict is Verdict.LIMITED:
            limit, window = self.budget.limit, self.budget.window
            await self.send_frame(
                error_frame("rate_limited", f"more than {limit} frames in {window:g} s; slow down")
            )
            return False
        return True

    async def refuse(self, exc: Exception, ref: str | None) -> None:
        """The frame was refused: tell the client why (nothing changed)."""
        if isinstance(exc, BadFrame):
            await self.send_frame(error_frame(exc.code, exc.reason, exc.ref))
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
        await self.send(text_data=encode(frame))

    # ------------------------------------------------------------------ the games it shows

    async def show(self, game: Game) -> play.InPlay:
        """Begin to show a game: hold its entry, join its group, and tell other processes'
        sockets that it is watched (they answer `game.here`, so this one knows of them)."""
        entry = self.shown.get(game.public_id)
        if entry is not None:
            return entry
        entry = self.shown[game.public_id] = play.games().hold(game)
        group = group_name(game.public_id)
        await self.channel_layer.group_add(group, self.channel_name)
        await self.channel_layer.group_send(
            group, {"type": "game.hello", "game": game.public_id, "from": self.channel_name}
        )
        return entry

    async def unshow_all(self) -> None:
        for public_id, entry in list(self.shown.items()):
            play.games().release(entry)
            await self.channel_layer.group_discard(group_name(public_id), self.channel_name)
        self.shown.clear()

    async def game_hello(self, message: dict) -> None:
        """Someone began to show a game this socket shows: changes must now be published."""
        if message["from"] == self.channel_name:
            return
        entry = self.shown.get(message["game"])
        if entry is not None:
            entry.watched_elsewhere = True
            await self.channel_layer.send(
                message["from"], {"type": "game.here", "game": message["game"]}
            )

    async def game_here(self, message: dict) -> None:
        entry = self.shown.get(message["game"])
        if entry is not None:
            entry.watched_elsewhere = True

    async def publish(self, entry: play.InPlay, update: GameUpdate) -> None:
        """Tell the game's other watchers (other tabs, spectators) of a change, if any. The
        channel layer may drop it: a socket that misses one notices the `seq` gap at its next
        frame, and `open`/`sync` always resync."""
        if entry.watched and update.played:
            group = group_name(entry.game.public_id)
            frame = game_frame("state", update)
            await self.channel_layer.group_send(group, {"type": "game.changed", "frame": frame})
