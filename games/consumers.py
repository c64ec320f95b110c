"""/ws/game/: a player's practice games over a websocket (docs/protocol.md, "Practice play").

The consumer parses frames into messages (games/messages.py), checks who may do what, and calls
the actions (games/actions.py) in a worker thread. Every refusal is an `error` frame
that changes nothing and leaves the socket open; nothing raised ever escapes to Channels.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from concurrent.futures import ThreadPoolExecutor

from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import IntegrityError, close_old_connections

from games import actions, hints
from games.frames import error_frame, game_frame, pong_frame
from games.identity import player_from_scope
from games.messages import Autoplay, BadFrame, Hint, Open, Ping, PlayMove, Undo, parse
from games.models import Game
from games.ratelimit import FrameBudget, Verdict
from games.throttles import GAME_WRITES

logger = logging.getLogger(__name__)

# Close code for a connection that floods past FrameBudget.flood (4000-4999: application codes).
CLOSE_FLOOD = 4008

UNRESOLVED = object()


# The ORM's worker threads, for the life of the process: frames of different sockets reach the
# database side by side, where Channels' default (one shared thread) queues every socket of the
# process behind every query. Not the event loop's default executor: its threads end with the
# loop, and a connection one still held never went back to the pool.
ORM_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="orm")

# The solver's thread for hints: a search holds its thread for up to hints.HINT_SECONDS, so it
# never takes an ORM thread from moves; one thread, as the search is CPU-bound under the GIL
# (hints of several sockets queue here, at most hints.MAX_SEARCHES of them).
SOLVER_THREADS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="solver")
HINTS = hints.HintDesk(SOLVER_THREADS)


def in_worker(function):
    """`function` (sync, using the ORM) as a coroutine run on the ORM threads.

    Moves into one game are still ordered by its row lock, and one socket's frames are handled
    one at a time. The connection is closed (given back to the pool) inside the call itself:
    Channels' wrapper closes outside the call's context, where a connection opened inside it
    was measured to stay checked out of psycopg's pool.
    """

    @functools.wraps(function)
    def run_and_close(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return DatabaseSyncToAsync(run_and_close, thread_sensitive=False, executor=ORM_THREADS)


class RateLimited(actions.ActionError):
    """A write past the player's budget over all their sockets (games.throttles)."""

    code = "rate_limited"


class NotOpen(actions.ActionError):
    """A move, undo or autoplay for a game this socket has not opened."""

    code = "no_game"

    def __init__(self, reason: str = "open a game first (send `open`)") -> None:
        super().__init__(reason)


class SocketConsumer(AsyncWebsocketConsumer):
    """A websocket consumer whose database calls all run in worker threads (`in_worker`, or
    Channels' `database_sync_to_async`), each of which closes its own connection.

    Channels' own `dispatch` first closes the event loop thread's stale connections, a hop to a
    thread and back for every frame and every group message: 12% of a Daphne's Python time under
    scripts/loadtest.py (docs/performance.md). This thread holds no connection, so it is skipped.
    """

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

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

    async def send_frame(self, frame: dict) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))


class GameConsumer(SocketConsumer):
    """One socket, one open game at a time, of the kinds in `kinds` (practice here)."""

    kinds: tuple[str, ...] = (Game.Kind.PRACTICE,)

    async def connect(self) -> None:
        self.game: Game | None = None
        self.seq_sent = -1
        self.budget = FrameBudget()
        self._player = UNRESOLVED
        self._hint_tasks: set[asyncio.Task] = set()
        # Accept at once: who the player is is looked up with the first frame that needs it, so
        # the handshake never waits for the database.
        await self.accept()

    async def current_player(self):
        """The socket's Player (None: a socket without one owns no game), looked up once."""
        if self._player is UNRESOLVED:
            self._player = await in_worker(player_from_scope)(self.scope)
        return self._player

    async def disconnect(self, code: int) -> None:
        for task in self._hint_tasks:
            task.cancel()  # the search itself goes on: another ask may join it
        await self._leave_group()

    # ------------------------------------------------------------------ incoming frames

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not await self.admit():
            return
        ref = None
        try:
            message = parse(text_data, bytes_data)
            ref = message_type(message)
            await self.dispatch_message(message)
        except BadFrame as exc:
            await self.send_frame(error_frame(exc.code, exc.reason, exc.ref))
        except actions.ActionError as exc:
            await self.send_frame(error_frame(exc.code, exc.reason, ref))
        except Exception:
            logger.exception("server error on /ws/game/ (%s)", ref)
            await self.send_frame(
                error_frame("server_error", "something went wrong on the server; try again", ref)
            )

    async def dispatch_message(self, message) -> None:
        if isinstance(message, PlayMove | Undo | Autoplay):
            player = await self.current_player()
            if player is not None and (reason := GAME_WRITES.refusal(player.pk, "moves")):
                raise RateLimited(reason)
        if isinstance(message, Ping):
            await self.send_frame(pong_frame(message.t))
        elif isinstance(message, Open):
            await self.open_game(message.game)
        elif isinstance(message, PlayMove):
            game = await self.check_open_game(message.game)
            await self.run_action(actions.do_play_move, game, message.move, message.seq)
        elif isinstance(message, Undo):
            game = await self.check_open_game(message.game)
            await self.run_action(actions.do_undo, game, message.seq)
        elif isinstance(message, Autoplay):
            game = await self.check_open_game(message.game)
            await self.run_action(actions.do_autoplay, game, message.seq)
        elif isinstance(message, Hint):
            game = await self.check_open_game(message.game)
            await self.send_hint(game)

    # ------------------------------------------------------------------ checks and actions

    async def open_game(self, public_id: str) -> None:
        player = await self.current_player()
        game = await in_worker(actions.access_game)(player, public_id, self.kinds)
        await self._leave_group()
        # Join before reading the state: a move another tab makes meanwhile is then either in
        # the state or in a notification after it, never in neither.
        self.game = game
        self.seq_sent = -1
        await self.channel_layer.group_add(actions.group_name(game), self.channel_name)
        update = await in_worker(actions.get_game_update)(game)
        self.game = update.game
        await self.send_update("state", update)

    async def check_open_game(self, public_id: str | None) -> Game:
        """The socket's open game; a `game` named in the frame must be it."""
        if public_id is not None and (self.game is None or public_id != self.game.public_id):
            player = await self.current_player()
            await in_worker(actions.access_game)(player, public_id, self.kinds)
            raise NotOpen(f"game {public_id} is not open on this socket; send `open` first")
        if self.game is None:
            raise NotOpen()
        return self.game

    async def run_action(self, action, game: Game, *args) -> None:
        try:
            update = await in_worker(action)(game, *args)
        except IntegrityError:
            # Another process wrote this seq first: the client's view is behind; resync it.
            update = await in_worker(actions.get_game_update)(game)
            await self.send_update("state", update)
            return
        self.game = update.game
        await self.send_update("state" if update.duplicate else "ack", update)

    async def send_hint(self, game: Game) -> None:
        """The next move of a winning line (practice games only): at once when the game's last
        search proves it, else from a search on the solver thread, answered by a task of its
        own so that the socket's moves are not held up while it runs."""
        position = await in_worker(hints.hint_position)(game)
        hint = HINTS.answer_now(position)
        if hint is not None:
            await self.send_frame(hint.frame())
            return
        finding = HINTS.start(position)  # HintPending, SolverBusy: refused before any wait
        task = asyncio.create_task(self._send_found_hint(position, finding))
        self._hint_tasks.add(task)
        task.add_done_callback(self._hint_tasks.discard)

    async def _send_found_hint(self, position: hints.HintPosition, finding) -> None:
        try:
            hint = hints.hint_from(position, await finding)
        except Exception:  # not CancelledError (a BaseException): a closed socket ends quietly
            logger.exception("hint search failed for game %s", position.game.public_id)
            await self.send_frame(
                error_frame("server_error", "the hint search failed; try again", "hint")
            )
            return
        await self.send_frame(hint.frame())

    # ------------------------------------------------------------------ outgoing frames

    async def send_update(self, frame_type: str, update: actions.GameUpdate) -> None:
        self.seq_sent = update.game.seq
        await self.send_frame(game_frame(frame_type, update))

    async def game_changed(self, event: dict) -> None:
        """Another socket changed the open game (a second tab): send the new state."""
        frame = event["frame"]
        if self.game is None or frame.get("game") != self.game.public_id:
            return
        if frame["seq"] <= self.seq_sent:
            return
        self.seq_sent = frame["seq"]
        await self.send_frame(frame)

    async def _leave_group(self) -> None:
        game = getattr(self, "game", None)
        if game is not None:
            await self.channel_layer.group_discard(actions.group_name(game), self.channel_name)


def message_type(message) -> str:
    return {
        Open: "open",
        PlayMove: "move",
        Undo: "undo",
        Autoplay: "autoplay",
        Hint: "hint",
        Ping: "ping",
    }[type(message)]
