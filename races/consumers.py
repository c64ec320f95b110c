"""/ws/race/<code>/: one race, live, for its racers and its spectators (docs/protocol.md, "Races").

On connect the socket gets a `snapshot` (or, when the URL says `?since=N`, the events after N);
then every race event, numbered. A racer also gets their own board (`state`, `ack`); a
spectator gets every racer's board (`board`) once the race runs. The consumer parses frames
(races/messages.py), calls races/actions.py, and only serialises; every refusal is an `error`
frame that changes nothing and leaves the socket open.

Events reach the socket through the channel layer, which may drop or reorder them: the
consumer numbers what it has sent, and on a gap reads the missing events from the database
(the record) before sending the new one, so a socket never skips an event.

Database calls run on the ORM worker threads of `games.consumers.in_worker` with PostgreSQL:
with one shared thread per process (Channels' `database_sync_to_async`), a move waiting for a
race row that the other process holds locked stalled every race of its own process behind it
(docs/performance.md). Moves of one race are still serialised by its row lock, and one socket's
frames are handled one at a time. With SQLite (one writer at a time anyway, and an in-memory
test database whose shared cache fails rather than waits when two threads write) they stay on
Channels' one thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import IntegrityError, connection

from games import actions as game_actions
from games.consumers import SocketConsumer, in_worker
from games.frames import error_frame, game_frame, pong_frame
from games.messages import BadFrame, Ping
from games.ratelimit import FrameBudget
from games.throttles import RACE_WRITES
from races import actions, snapshots
from races.codes import normalize_code
from races.lifecycle import RaceRuleError
from races.messages import (
    TYPES,
    Join,
    Leave,
    RaceMove,
    RaceUndo,
    Ready,
    Rematch,
    Resign,
    Start,
    Sync,
    parse,
)
from races.models import Race

logger = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4004


def now_ms() -> int:
    return int(time.time() * 1000)


def on_db_thread(function):
    """`function` (sync, ORM) as a coroutine: on the ORM worker threads with PostgreSQL, on
    Channels' one database thread with SQLite (see the module's docstring)."""
    if connection.vendor == "postgresql":
        return in_worker(function)
    return database_sync_to_async(function)


class RaceConsumer(SocketConsumer):
    async def connect(self) -> None:
        self.race: Race | None = None
        self.timers: list[asyncio.Task] = []
        self.budget = FrameBudget()
        self.last_event = 0
        self.seq_sent = -1
        self.games: dict[str, str] = {}
        self.racer_id: str | None = None
        self.announcer: asyncio.Task | None = None
        self.held_ms = 0
        await self.accept()
        code = normalize_code(self.scope["url_route"]["kwargs"]["code"])
        view = await on_db_thread(snapshots.connect)(code, self.scope)
        if view is None:
            await self.send_frame(error_frame("not_found", "there is no race with this code"))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.race, self.player = view.race, view.player
        await self.channel_layer.group_add(self.race.group_name, self.channel_name)
        since = parse_qs(self.scope.get("query_string", b"").decode()).get("since", [None])[0]
        await self.sync(int(since) if since and since.isdigit() else None)

    async def disconnect(self, code: int) -> None:
        for task in [*self.timers, self.announcer]:
            if task is not None:
                task.cancel()
        if self.race is not None:
            await self.channel_layer.group_discard(self.race.group_name, self.channel_name)
        for public_id in self.games:
            await self.channel_layer.group_discard(f"game.{public_id}", self.channel_name)

    # ------------------------------------------------------------------ incoming frames

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.race is None:
            return
        if not await self.admit():
            return
        ref = None
        try:
            message = parse(text_data, bytes_data)
            ref = TYPES[type(message)]
            await self.dispatch_message(message)
        except BadFrame as exc:
            await self.send_frame(error_frame(exc.code, exc.reason, exc.ref))
        except (RaceRuleError, game_actions.ActionError) as exc:
            await self.send_frame(error_frame(exc.code, exc.reason, ref))
            if isinstance(exc, game_actions.StaleSeq | game_actions.GameOver):
                await self.send_board("state")
        except Exception:
            logger.exception("server error on /ws/race/ (%s)", ref)
            await self.send_frame(
                error_frame("server_error", "something went wrong on the server; try again", ref)
            )

    async def dispatch_message(self, message) -> None:
        run = on_db_thread
        race = self.race
        writes = not isinstance(message, Ping | Sync) and self.player is not None
        if writes and (reason := RACE_WRITES.refusal(self.player.pk, "race actions")):
            raise RaceRuleError("rate_limited", reason)
        if isinstance(message, Ping):
            await self.send_frame(pong_frame(message.t))
        elif isinstance(message, Sync):
            await self.sync(message.since)
        elif isinstance(message, Join):
            await run(actions.do_join_race)(race, self.need_player(), message.name)
        elif isinstance(message, Leave):
            await run(actions.do_leave_race)(race, self.need_player())
        elif isinstance(message, Ready):
            await run(actions.do_set_ready)(race, self.need_player(), message.ready)
        elif isinstance(message, Start):
            await run(actions.do_start_race)(race, self.need_player())
        elif isinstance(message, RaceMove | RaceUndo):
            await self.play(message)
        elif isinstance(message, Resign):
            await run(actions.do_resign)(race, self.player)
        elif isinstance(message, Rematch):
            new = await run(actions.do_rematch)(race, self.need_player())
            await self.send_frame(
                {"type": "rematch", "code": new.code, "url": new.get_absolute_url()}
            )

    def need_player(self):
        if self.player is None:
            raise RaceRuleError("not_in_race", "you are not in this race; join it first")
        return self.player

    async def play(self, message) -> None:
        run = on_db_thread
        try:
            if isinstance(message, RaceMove):
                update = await run(actions.do_race_move)(
                    self.race, self.player, message.move, message.seq
                )
            else:
                update = await run(actions.do_race_undo)(self.race, self.player, message.seq)
        except IntegrityError:
            # Another process wrote this seq first: the client is behind; resync its board.
            await self.send_board("state")
            return
        await self.send_update("state" if update.duplicate else "ack", update)
        if not update.announced:
            self.announce_later()

    def announce_later(self) -> None:
        """The race was not told of this move (progress is throttled): tell it once the
        interval has passed, unless another announcement covers the move by then."""
        self.held_ms = now_ms()
        if self.announcer is None or self.announcer.done():
            self.announcer = asyncio.ensure_future(self.announce())

    async def announce(self) -> None:
        wait_ms = settings.RACE_PROGRESS_INTERVAL_MS
        try:
            while wait_ms is not None:
                await asyncio.sleep(wait_ms / 1000 + 0.02)
                wait_ms = await on_db_thread(actions.do_announce)(
                    self.race, self.player, self.held_ms
                )
        except Exception:
            logger.exception("could not announce a racer's progress")

    # ------------------------------------------------------------------ resync

    async def sync(self, since: int | None) -> None:
        """A full snapshot, or the events after `since` (and the racer's board) when they are few."""
        view = await on_db_thread(snapshots.catch_up)(self.race, self.player, since)
        if await self.follow(view):
            # New game groups joined after the boards were read: read again, so that a move
            # made in between (another tab, a racer a spectator watches) is not missed.
            view = await on_db_thread(snapshots.catch_up)(self.race, self.player, since)
            await self.follow(view)
        if view.events is None:
            self.last_event = view.snapshot["event"]
            await self.send_frame(view.snapshot)
        else:
            self.last_event = since
            for frame in view.events:
                await self.send_event(frame)
        if view.board is not None:
            await self.send_update("state", view.board)
        for frame in view.boards:
            await self.send_frame(frame)
        self.schedule(view)

    async def follow(self, view: snapshots.CatchUp) -> bool:
        """Take in who this socket is now, and join the groups of the games it shows; True if
        it joined any it was not in."""
        self.race, self.racer_id = view.race, view.racer_id
        joined = False
        for public_id, racer_id in view.games.items():
            if public_id not in self.games:
                await self.channel_layer.group_add(f"game.{public_id}", self.channel_name)
                joined = True
            self.games[public_id] = racer_id
        return joined

    def schedule(self, view) -> None:
        """Timers on the server's clock: show the board at the start, close the race at its end."""
        for task in self.timers:
            task.cancel()
        self.timers = []
        shown = view.board is not None or bool(view.boards)
        if view.starts_at_ms is not None and not shown and now_ms() < view.starts_at_ms + 1000:
            # Also when the start passed between reading the view and now: the timer fires at
            # once and the sync brings the boards.
            self.timers.append(asyncio.ensure_future(self.at(view.starts_at_ms, self.on_start)))
        if view.ends_at_ms is not None:
            self.timers.append(asyncio.ensure_future(self.at(view.ends_at_ms + 50, self.on_end)))

    async def at(self, when_ms: int, callback) -> None:
        await asyncio.sleep(max(0, when_ms - now_ms()) / 1000)
        await callback()

    async def on_start(self) -> None:
        await self.sync(self.last_event)

    async def on_end(self) -> None:
        await on_db_thread(actions.do_close_if_due)(self.race)

    # ------------------------------------------------------------------ outgoing frames

    async def send_frame(self, frame: dict) -> None:
        frame.setdefault("now", now_ms())
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def send_event(self, frame: dict) -> None:
        if frame["event"] <= self.last_event:
            return
        self.last_event = frame["event"]
        await self.send_frame(dict(frame))

    async def send_update(self, frame_type: str, update: game_actions.GameUpdate) -> None:
        self.seq_sent = update.game.seq
        await self.send_frame(game_frame(frame_type, update))

    async def send_board(self, frame_type: str) -> None:
        update = await on_db_thread(snapshots.own_board)(self.race, self.player)
        if update is not None:
            await self.send_update(frame_type, update)

    # ------------------------------------------------------------------ group messages

    async def race_event(self, message: dict) -> None:
        """A numbered race event; missing ones before it are read from the database first."""
        frame = message["frame"]
        if frame["event"] <= self.last_event:
            return
        if frame["event"] > self.last_event + 1:
            missed = await on_db_thread(snapshots.events_between)(
                self.race, self.last_event, frame["event"]
            )
            for earlier in missed:
                await self.send_event(earlier)
        await self.send_event(frame)
        if frame["type"] in ("countdown", "finished", "cancelled", "joined", "left"):
            # The start, the end or a change of racers: new games to follow, new timers.
            view = await on_db_thread(snapshots.catch_up)(self.race, self.player, self.last_event)
            await self.follow(view)
            if frame["type"] == "countdown" and view.board is not None:
                # Taken in after the start time (a busy server): no timer will bring the board.
                await self.send_update("state", view.board)
            for board in view.boards:
                await self.send_frame(board)
            self.schedule(view)

    async def game_changed(self, message: dict) -> None:
        """A board changed: the racer's own (another tab), or a racer's that a spectator watches."""
        frame = message["frame"]
        racer_id = self.games.get(frame.get("game"))
        if racer_id is None:
            return
        if racer_id != self.racer_id:
            await self.send_frame(snapshots.spectator_board(frame, racer_id))
        elif frame["seq"] > self.seq_sent:
            self.seq_sent = frame["seq"]
            await self.send_frame(dict(frame))
