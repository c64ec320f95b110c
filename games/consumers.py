"""/ws/game/: a player's practice games over a websocket (docs/protocol.md, "Practice play").

The consumer parses frames into messages (games/sockets.py), checks who may do what, and plays
through games/play.py: the move is checked on the engine in memory and acknowledged once the
event loop's writer has stored it. Every refusal is an `error` frame that changes nothing and
leaves the socket open; nothing raised ever escapes to Channels.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from games import actions, hints, play
from games.errors import ActionError
from games.identity import player_from_scope
from games.models import Game
from games.sockets import (
    TYPES,
    Autoplay,
    FrameBudget,
    Hint,
    Open,
    Ping,
    PlayMove,
    PlaySocket,
    Undo,
    Verdict,
    error_frame,
    parse,
    pong_frame,
)
from games.storage import off_loop
from games.throttles import GAME_WRITES

logger = logging.getLogger(__name__)

UNRESOLVED = object()

# The solver's thread for hints: a search holds its thread for up to hints.HINT_SECONDS, so it
# never takes an ORM thread from moves; one thread, as the search is CPU-bound under the GIL
# (hints of several sockets queue here, at most hints.MAX_SEARCHES of them).
SOLVER_THREADS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="solver")
HINTS = hints.HintDesk(SOLVER_THREADS)


class RateLimited(ActionError):
    """A write past the player's budget over all their sockets (games.throttles)."""

    code = "rate_limited"


class NotOpen(ActionError):
    """A move, undo or autoplay for a game this socket has not opened."""

    code = "no_game"

    def __init__(self, reason: str = "open a game first (send `open`)") -> None:
        super().__init__(reason)


ACTIONS = {PlayMove: "move", Undo: "undo", Autoplay: "autoplay"}


class GameConsumer(PlaySocket):
    """One socket, one open game at a time, of the kinds in `kinds` (practice here)."""

    kinds: tuple[str, ...] = (Game.Kind.PRACTICE,)
    path_name = "/ws/game/"

    async def connect(self) -> None:
        self.setup_socket(FrameBudget())
        self.entry: play.InPlay | None = None
        self.seq_sent = -1
        self._player = UNRESOLVED
        self._hint_tasks: set[asyncio.Task] = set()
        # Accept at once: who the player is is looked up with the first frame that needs it, so
        # the handshake never waits for the database.
        await self.accept()

    async def current_player(self):
        """The socket's Player (None: a socket without one owns no game), looked up once."""
        if self._player is UNRESOLVED:
            self._player = await off_loop(player_from_scope)(self.scope)
        return self._player

    async def disconnect(self, code: int) -> None:
        for task in self._hint_tasks:
            task.cancel()  # the search itself goes on: another ask may join it
        await self.unshow_all()

    # ------------------------------------------------------------------ incoming frames

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        verdict = self.budget.charge()
        if verdict is not Verdict.OK:
            await self.over_budget(verdict)
            return
        ref = None
        try:
            message = parse(text_data, bytes_data)
            ref = TYPES[type(message)]
            await self.dispatch_message(message)
        except Exception as exc:  # BadFrame, ActionError, or anything unexpected: an error frame
            await self.refuse(exc, ref)

    async def dispatch_message(self, message) -> None:
        if isinstance(message, Ping):
            await self.send_frame(pong_frame(message.t))
        elif isinstance(message, Open):
            await self.open_game(message.game)
        elif isinstance(message, Hint):
            await self.send_hint(await self.check_open_game(message.game))
        else:
            player = await self.current_player()
            if player is not None and (reason := GAME_WRITES.refusal(player.pk, "moves")):
                raise RateLimited(reason)
            entry = await self.check_open_game(message.game)
            move = getattr(message, "move", None)
            update = await play.act(entry, ACTIONS[type(message)], message.seq, move)
            await self.send_update("state" if update.duplicate else "ack", update)
            await self.publish(entry, update)

    # ------------------------------------------------------------------ checks

    async def open_game(self, public_id: str) -> None:
        player = await self.current_player()
        game = await off_loop(actions.access_game)(player, public_id, self.kinds)
        await self.unshow_all()
        # Shown (in its group) before the state is read: a move another tab makes meanwhile is
        # then either in the state or in a notification after it, never in neither.
        self.entry = await self.show(game)
        self.seq_sent = -1
        await self.send_update("state", await play.state_of(self.entry))

    async def check_open_game(self, public_id: str | None) -> play.InPlay:
        """The socket's open game; a `game` named in the frame must be it."""
        entry = self.entry
        if public_id is not None and (entry is None or public_id != entry.game.public_id):
            player = await self.current_player()
            await off_loop(actions.access_game)(player, public_id, self.kinds)
            raise NotOpen(f"game {public_id} is not open on this socket; send `open` first")
        if entry is None:
            raise NotOpen()
        return entry

    # ------------------------------------------------------------------ hints

    async def send_hint(self, entry: play.InPlay) -> None:
        """The next move of a winning line (practice games only): at once when the game's last
        search proves it, else from a search on the solver thread, answered by a task of its
        own so that the socket's moves are not held up while it runs."""
        position = await off_loop(hints.hint_position)(entry.game)
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

    async def game_changed(self, event: dict) -> None:
        """Another socket changed the open game (a second tab): send the new state."""
        frame = event["frame"]
        if self.entry is None or frame.get("game") != self.entry.game.public_id:
            return
        if frame["seq"] <= self.seq_sent:
            return
        self.seq_sent = frame["seq"]
        if self.entry.live is not None and self.entry.live.seq < frame["seq"]:
            self.entry.live.stale = True  # another process moved it: load it before the next move
        await self.send_frame(frame)
