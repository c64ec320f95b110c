"""/ws/race/<code>/: one race, live, for its racers and its spectators (docs/protocol.md, "Races").

On connect the socket gets a `snapshot` (or, when the URL says `?since=N`, the events after N);
then every race event, numbered. A racer also gets their own board (`state`, `ack`); a
spectator gets every racer's board (`board`) once the race runs. The consumer parses frames
(games/sockets.py, with this socket's table); moves take the move path (races/play.py, then
games/play.py and the loop's writer), everything else races/actions.py off the event loop. Every refusal is an
`error` frame that changes nothing and leaves the socket open.

A racer done in an arena's race waits on the socket for their next race (`wait`), and the socket
goes on to that race when they are placed (`race_next`): one socket a page, race after race.

Events reach the socket through the channel layer, which may drop or reorder them: the
consumer numbers what it has sent, and on a gap reads the missing events from the database
(the record) before sending the new one, so a socket never skips an event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qs

from django.urls import resolve, reverse

from games import actions as game_actions
from games import play as play_game
from games.errors import GameOver, StaleSeq, Unavailable
from games.groups import GROUP
from games.models import NICKNAME_MAX_LENGTH, Player
from games.sockets import (
    MOVE,
    PING,
    SEQ,
    Field,
    FrameBudget,
    Ping,
    PlaySocket,
    Verdict,
    error_frame,
    message_types,
    parse,
    pong_frame,
)
from games.storage import off_loop, retrying
from games.throttles import RACE_WRITES
from races import actions, play, quick, snapshots
from races.codes import normalize_code
from races.lifecycle import RaceRuleError
from races.models import Race, race_group
from races.presence import PRESENCE

logger = logging.getLogger(__name__)

CLOSE_NOT_FOUND = 4004
GAP_GRACE_S = 1.0
"""How long events that arrived ahead of a missing one wait for it before the record is read
(the other process's event comes late when a loop is busy; a dropped one is rare)."""
END_GRACE_S = 5.0
"""How long after the race's end a socket that has not heard the close waits for it before the
record is read (the close's event comes late when the processes are busy: its p99 was 2.6-5.3 s
at 500 arena players on a slow machine, docs/performance-log.md, "Arenas, twelfth day")."""


def now_ms() -> int:
    return int(time.time() * 1000)


# ------------------------------------------------------------------ the socket's messages


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


@dataclass(frozen=True)
class WaitForNext:
    """Done in this race: wait here for my next race of the event that placed me in it, but for
    `shown`, the code of a race this page has shown already (it came back from it)."""

    shown: str | None = None


MESSAGES = {
    "sync": (Sync, {"since": Field("whole", required=False)}),
    "join": (Join, {"name": Field("text", required=False, limit=NICKNAME_MAX_LENGTH)}),
    "leave": (Leave, {}),
    "ready": (Ready, {"ready": Field("flag", required=False, default=True)}),
    "start": (Start, {}),
    "move": (RaceMove, {"move": MOVE, "seq": SEQ}),
    "undo": (RaceUndo, {"seq": SEQ}),
    "resign": (Resign, {}),
    "rematch": (Rematch, {}),
    "wait": (WaitForNext, {"shown": Field("text", required=False, limit=16)}),
    "ping": PING,
}
"""/ws/race/<code>/'s messages: each `type`, its message and its fields."""
TYPES = message_types(MESSAGES)

NEXT_RACE_WAITS: list[
    Callable[[Race, Player, RaceConsumer, str | None], Awaitable[Waiting | None]]
] = []
"""How a racer done in a race waits on its socket for their next race (`wait`): an app above
that places races registers its way (the arenas: the socket joins the arena's room, as the
arena's page does, arenas/rooms.py). Each answers None for a race not its own, or refuses a
racer who is not done (`races.actions.check_done`), or puts the socket in its waiting and hands
back what ends that when the socket closes; it calls the socket's `placed(url)` when the racer
is placed, and the socket goes on to that race (`race_next`), unless that race is the one at the
last argument's address (a race the page has shown already: it came back from it), which it
leaves to the page."""


class Waiting(Protocol):
    async def close(self) -> None: ...


_missing: dict[tuple[int, int, int], asyncio.Future] = {}


async def missing_events(race: Race, after: int, before: int) -> list[dict]:
    """The race's events between two numbers, read from the record once for every socket of
    the process that misses the same ones (a race's sockets see the same gap together)."""
    key = (race.pk, after, before)
    found = _missing.get(key)
    if found is None:
        read = off_loop(snapshots.events_between)(race, after, before)
        found = _missing[key] = asyncio.ensure_future(read)
        found.add_done_callback(lambda _: _missing.pop(key, None))
    return await asyncio.shield(found)


def event_number(value: str | None) -> int | None:
    """`?since=N`'s event number, or None (a snapshot) for anything else: ASCII digits only
    (`str.isdigit` takes "²", which `int` does not), within what the record's numbers hold."""
    if value and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return None


class RaceConsumer(PlaySocket):
    path_name = "/ws/race/"
    stamps_now = True

    async def connect(self) -> None:
        self.setup_socket(FrameBudget())
        self.race: Race | None = None
        self.relay: play.RaceRelay | None = None
        self.timers: list[asyncio.Task] = []
        self.gap_timer: asyncio.Task | None = None
        self.waiting: Waiting | None = None
        self.seen_racer: int | None = None
        self.forget_race()
        await self.accept()
        code = normalize_code(self.scope["url_route"]["kwargs"]["code"])
        since = parse_qs(self.scope.get("query_string", b"").decode()).get("since", [None])[0]
        await self.open_race(code, event_number(since))

    def forget_race(self) -> None:
        """Nothing of a race followed yet (a socket that opens, or that goes on to the next)."""
        self.seat: play.Seat | None = None
        self.last_event = 0
        self.seq_sent = -1
        self.games: dict[str, str] = {}
        self.racer_id: str | None = None
        self.early: dict[int, tuple[dict, str | None]] = {}
        self.gap_since = 0.0
        self.over = False

    async def open_race(self, code: str | None, since: int | None) -> None:
        """Follow the race with this code: its snapshot (or the events after `since`), then
        its events; `not_found` and the socket closed if there is none."""
        if code is not None:
            # Before the race is read: no event published after the read is missed.
            await self.join_group(race_group(code))
        view = await off_loop(snapshots.connect)(code, self.scope, since)
        if view is None:  # the race's group is left with the others as the socket ends
            await self.send_frame(error_frame("not_found", "there is no race with this code"))
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.race, self.player = view.race, view.player
        self.relay = await play.RELAYS.get().join(self.race, self)
        await self.show_view(view, since)

    async def leave_race(self) -> None:
        """Stop following the race: its timers, its group, its relay, its games, the wait."""
        for task in [*self.timers, self.gap_timer]:
            if task is not None:
                task.cancel()
        self.timers, self.gap_timer = [], None
        self.show_racer(None)
        if self.race is not None:
            self.leave_group(self.race.group_name)
            play.RELAYS.get().leave(self.race, self)
        await self.unshow_all()
        waiting, self.waiting = self.waiting, None
        if waiting is not None:
            await waiting.close()

    async def disconnect(self, code: int) -> None:
        await self.leave_race()
        lobby = self.race is not None and self.race.status == Race.Status.LOBBY
        if lobby and self.race.quick and self.racer_id and self.player:
            # Closed the page before the quick race started: out of its lobby.
            await off_loop(quick.leave_before_start)(self.race, self.player)

    # ------------------------------------------------------------------ incoming frames

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.race is None:
            return
        verdict = self.budget.charge()
        if verdict is not Verdict.OK:
            await self.over_budget(verdict)
            return
        ref = None
        try:
            message = parse(text_data, bytes_data, MESSAGES)
            ref = TYPES[type(message)]
            writes = not isinstance(message, Ping | Sync) and self.player is not None
            if writes and (reason := RACE_WRITES.refusal(self.player.pk, "race actions")):
                raise RaceRuleError("rate_limited", reason)
            if isinstance(message, RaceMove | RaceUndo):
                await self.play(message)
            else:
                await self.act(message)
        except Exception as exc:  # a refusal, or anything unexpected: an error frame
            await self.refuse(exc, ref)
            if isinstance(exc, StaleSeq | GameOver):
                await self.send_board("state")

    async def act(self, message) -> None:
        """Everything but a move: the race's actions, off the event loop."""
        run = off_loop
        race = self.race
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
        elif isinstance(message, Resign):
            seat = self.seat
            if seat is None or seat.stale or seat.racer.game is None:
                event = await run(actions.do_resign)(race, self.player)
            else:  # what the socket holds: the racer and their game are not read again
                live = await play_game.held_copy(self.shown.get(seat.racer.game.public_id))
                event = await run(actions.do_resign)(race, self.player, seat.racer, live)
            if self.seat is not None:
                self.seat.stale = True
            if event is not None:
                # The answer, sent here as well as to the race's group (whichever comes first is
                # sent, the other dropped by its number): a resignation whose event the channel
                # layer lost was not known to its own page until the race's end.
                await self.take_event(event)
        elif isinstance(message, Rematch):
            new = await run(actions.do_rematch)(race, self.need_player())
            await self.send_frame(
                {"type": "rematch", "code": new.code, "url": new.get_absolute_url()}
            )
        elif isinstance(message, WaitForNext):
            await self.wait_for_next(message.shown)

    async def wait_for_next(self, shown: str | None) -> None:
        """The racer, done here, waits on this socket for their next race: the event that placed
        them here sends its board and, once they are placed, `placed` (docs/protocol.md). Not for
        the race coded `shown`: the page came back from it (the back button), and a page that
        opened just after a placement is otherwise sent there."""
        player = self.need_player()
        if self.waiting is not None:
            return  # asked again (a page that lost an answer): it waits already
        seen = None  # the address of the race the page came back from
        if shown is not None:
            code = normalize_code(shown)
            if code is None:
                raise RaceRuleError("bad_message", "`shown` is not a race's code")
            seen = reverse("races:race", args=[code])
        for wait in NEXT_RACE_WAITS:
            self.waiting = await wait(self.race, player, self, seen)
            if self.waiting is not None:
                return
        raise RaceRuleError(
            "no_next_race", "this race belongs to no arena: no next race will come here"
        )

    async def placed(self, url: str) -> None:
        """The racer's wait ended: they are placed in the race at `url` (arenas/rooms.py `Watch`).
        The socket goes on to it in its own turn, after what its inbox holds before."""
        self.hear({"type": "race.next", "url": url})

    async def race_next(self, message: dict) -> None:
        """`placed`, then this socket is the next race's, as one opened on it would be: its
        `snapshot` comes next, then its events; the race before sends nothing more. A browser
        goes from race to race of an arena on one socket. The race before is over (a racer is
        placed once their race has closed): its events this socket has not sent (its end, which
        came late) are read from the record and sent first, so that the page, and its result,
        see it; the socket follows nothing more of that race, so nothing else is read."""
        if self.waiting is None or self.player is None:
            return  # the wait ended meanwhile (the socket closing)
        if not self.over:
            for frame in await off_loop(snapshots.events_between)(self.race, self.last_event):
                await self.send_event(frame)
        url = message["url"]
        await self.send_frame({"type": "placed", "url": url})
        await self.leave_race()
        self.forget_race()
        await self.open_race(normalize_code(resolve(url).kwargs["code"]), None)

    def need_player(self):
        """The socket's player; a socket whose session has none yet (a GET makes no guest) may
        only watch: the page's join form makes the guest."""
        if self.player is None:
            raise RaceRuleError(
                "not_in_race",
                "you are not in this race: join with the race page's form, then reconnect",
            )
        return self.player

    # ------------------------------------------------------------------ moves

    async def play(self, message) -> None:
        """A move or undo: the race's rules in memory, then the game's move path."""
        seat = self.seat
        if seat is None or seat.stale:
            seat = await self.current_seat(reload=True)
        if seat is None:
            raise RaceRuleError("not_in_race", "you are not racing in this race")
        seat.check(int(time.time() * 1000))  # before the start: not_started (no game yet)
        game = seat.racer.game
        if game is None:
            raise RaceRuleError("not_in_race", "you are not racing in this race")
        entry = self.shown.get(game.public_id) or await self.show(game)
        action = "undo" if isinstance(message, RaceUndo) else "move"
        move = getattr(message, "move", None)
        try:
            update = await play.race_act(seat, entry, action, message.seq, move)
        except GameOver:
            # Ended elsewhere (a close, a resignation in another tab): say it as the race would.
            seat = await self.current_seat(reload=True)
            if seat is not None:
                seat.check(now_ms())
            raise
        if update.write is None:
            await self.send_update("state", update)
            return
        await self.send_update("ack", update)
        await self.publish(entry, update)
        if not update.write.parts["racer"].announce:  # a finish is a numbered event instead
            self.relay.mark(seat)

    async def current_seat(self, reload: bool = False) -> play.Seat | None:
        if self.seat is None or self.seat.stale or reload:
            seat_of = off_loop(play.seat_of)
            self.seat = await retrying(lambda: seat_of(self.race, self.player))
            if self.seat is not None and not self.over:
                self.show_racer(self.seat.racer.pk)
        return self.seat

    # ------------------------------------------------------------------ resync

    async def sync(self, since: int | None) -> None:
        """A full snapshot, or the events after `since` (and the racer's board) when they are few."""
        await self.show_view(
            await off_loop(snapshots.catch_up)(self.race, self.player, since), since
        )

    async def show_view(self, view: snapshots.CatchUp, since: int | None) -> None:
        """Send a catch-up as read, then follow its games: a board is sent before its game's
        group is joined (the page can play at once), and read again once it is joined if it moved
        in between (another tab, a racer a spectator watches), so that no move is missed."""
        self.take_in(view)
        if view.events is None:
            self.last_event = view.snapshot["event"]
            await self.send_frame(view.snapshot)
        else:
            self.last_event = since
            for frame in view.events:
                await self.send_event(frame)
            if view.progress is not None:
                await self.send_frame(view.progress)
        if view.board is not None:
            await self.send_update("state", view.board)
        for frame in view.boards:
            await self.send_frame(frame)
        read = {frame["racer"]: frame["seq"] for frame in view.boards}
        if await self.follow(view) and (view.board is not None or view.boards):
            await off_loop(snapshots.read_moved_boards)(view)
            if view.board is not None and view.board.game.seq > self.seq_sent:
                await self.send_update("state", view.board)
            for frame in view.boards:
                if frame["seq"] > read.get(frame["racer"], -1):
                    await self.send_frame(frame)
        self.keep_live(view.board or view.start_board)
        self.schedule(view)

    def take_in(self, view: snapshots.CatchUp) -> None:
        """Who this socket is now: its race as read, its racer and seat."""
        self.race, self.racer_id = view.race, view.racer_id
        self.over = view.race.is_over
        if view.racer is not None:
            self.seat = play.Seat(race=view.race, racer=view.racer)
        self.show_racer(None if view.racer is None or self.over else view.racer.pk)

    def show_racer(self, racer_pk: int | None) -> None:
        """The racer whose page this socket is (None: none, or no longer): the process says
        they are still here while it is open (races/presence.py)."""
        if racer_pk == self.seen_racer:
            return
        presence = PRESENCE.get()
        if self.seen_racer is not None:
            presence.discard(self.seen_racer)
        self.seen_racer = racer_pk
        if racer_pk is not None:
            presence.add(racer_pk, self.race.pk)

    async def follow(self, view: snapshots.CatchUp) -> bool:
        """Show the view's games (their groups joined together); True if it began to show any
        it did not."""
        new = [public_id for public_id in view.games if public_id not in self.games]
        await asyncio.gather(*(self.show(view.rows[public_id]) for public_id in new))
        self.games.update(view.games)
        return bool(new)

    def keep_live(self, board) -> None:
        """The racer's board just read: the next move needs no load of its game."""
        entry = self.shown.get(board.game.public_id) if board is not None else None
        if entry is not None and entry.live is None and not entry.lock.locked():
            entry.live = board.game

    def schedule(self, view) -> None:
        """Timers on the server's clock: show the board at the start, close the race at its end."""
        self.cancel_timers()
        if view.starts_at_ms is not None and view.read_before_start:
            # Also when the start has passed since the view was read (a busy server, its game's
            # group joined after it): the timer fires at once and brings the boards.
            self.timers.append(asyncio.ensure_future(self.at(view.starts_at_ms, self.on_start)))
        if view.ends_at_ms is not None:
            self.timers.append(asyncio.ensure_future(self.at(view.ends_at_ms + 50, self.on_end)))
        if view.autostart_at_ms is not None:
            # A quick race's lobby end: whichever socket (of any process) comes first starts it.
            start = self.at(view.autostart_at_ms + 20, self.on_autostart)
            self.timers.append(asyncio.ensure_future(start))

    def cancel_timers(self) -> None:
        for task in self.timers:
            task.cancel()
        self.timers = []

    async def at(self, when_ms: int, callback) -> None:
        await asyncio.sleep(max(0, when_ms - now_ms()) / 1000)
        await callback()

    async def on_start(self) -> None:
        """The start: a racer's own board (its game's group was joined with the countdown), from
        the game this process holds, read with the countdown (`CatchUp.start_board`), or else
        read now; a spectator's every board, with what it missed. Held, the board goes out as
        the start comes, with no wait for a database thread (at a crowd's crest, seconds)."""
        game = self.seat.racer.game if self.seat is not None else None
        if game is None or game.public_id not in self.shown:
            await self.sync(self.last_event)
            return
        entry = self.shown[game.public_id]
        if entry.live is not None and not entry.live.stale and not entry.lock.locked():
            board = play_game.update_of(entry.live)
        else:
            board = await off_loop(game_actions.get_game_update)(game)
            self.keep_live(board)
        if board.game.seq >= self.seq_sent:  # not behind a newer board already sent
            await self.send_update("state", board)

    async def on_end(self) -> None:
        """The race's time is up: close it (whoever comes first), asked again while the database
        refuses it (a deadlock PostgreSQL broke by failing the close, a restart): a close that
        failed once had left the race open past its time, its racers waiting for the next
        arena race until the minute's sweep. A socket that then hears no close (the channel
        layer lost its event, or the race closed earlier and nothing came since) reads what it
        missed from the record, which closes a race still overdue; hearing it cancels this
        timer."""
        close = off_loop(actions.do_close_if_due)
        relay = self.relay
        with contextlib.suppress(Unavailable):  # the database stayed away: the read below asks
            if relay is None:
                await retrying(lambda: close(self.race))
            else:
                await retrying(lambda: relay.close_once(lambda: close(self.race)))
        await asyncio.sleep(END_GRACE_S)
        await self.sync(self.last_event)

    async def on_autostart(self) -> None:
        await off_loop(actions.do_start_if_due)(self.race)

    # ------------------------------------------------------------------ outgoing frames

    async def send_event(self, frame: dict) -> None:
        """An event read from the record (a resync): sent if it is newer than the last one."""
        if frame["event"] <= self.last_event:
            return
        self.last_event = frame["event"]
        await self.send_frame(dict(frame))

    async def send_board(self, frame_type: str) -> None:
        update = await off_loop(snapshots.own_board)(self.race, self.player)
        if update is not None:
            await self.send_update(frame_type, update)

    # ------------------------------------------------------------------ group messages

    async def race_owner(self, message: dict) -> None:
        """A frame from the event that placed the race (`races.actions.Owner`: an arena an
        admin changed in place sends `edited`, whose end the page's header counts down to),
        passed on as it is; not for a race this socket followed before (`race_next`)."""
        if self.race is not None and message.get(GROUP) == self.race.group_name:
            await self.send_frame(dict(message["frame"]))

    async def race_events(self, message: dict) -> None:
        """Numbered events of one race, in order: a batch of moves' progress, each already
        encoded once for every socket of the process (`texts`); or the lobby's, the start's,
        the close's, stamped with `now` as each is sent (no `texts`)."""
        if self.race is None or message.get(GROUP) != self.race.group_name:
            return  # the race this socket followed before its next one (`race_next`)
        texts = message.get("texts") or [None] * len(message["frames"])
        for frame, text in zip(message["frames"], texts, strict=True):
            await self.take_event(frame, text)

    async def take_event(self, frame: dict, text: str | None = None) -> None:
        """Send an event in its place: one that arrives ahead of a missing one (events of one
        race are numbered by every process, and the channel layer may reorder or drop them)
        waits for it up to `GAP_GRACE_S`, then the missing ones are read from the record."""
        if frame["event"] <= self.last_event:
            return
        if frame["event"] > self.last_event + 1:
            if not self.early:
                self.gap_since = asyncio.get_running_loop().time()
            self.early[frame["event"]] = (frame, text)
            if self.gap_timer is None or self.gap_timer.done():
                self.gap_timer = asyncio.ensure_future(self.fill_gap())
            return
        await self.send_in_order(frame, text)
        while self.last_event + 1 in self.early:
            await self.send_in_order(*self.early.pop(self.last_event + 1))

    async def fill_gap(self) -> None:
        loop = asyncio.get_running_loop()
        while self.early and loop.time() < self.gap_since + GAP_GRACE_S:
            await asyncio.sleep(self.gap_since + GAP_GRACE_S - loop.time())
        if not self.early:
            return
        first = min(self.early)
        missed = await missing_events(self.race, self.last_event, first)
        for frame in missed:
            await self.send_in_order(frame, None)
        while self.early:
            frame, text = self.early.pop(min(self.early))
            if frame["event"] > self.last_event:
                await self.send_in_order(frame, text)

    async def send_in_order(self, frame: dict, text: str | None) -> None:
        if frame["event"] <= self.last_event:
            return
        self.last_event = frame["event"]
        if text is None:
            await self.send_frame(dict(frame))
        else:
            await self.send(text_data=text)
        await self.after_event(frame)

    async def after_event(self, frame: dict) -> None:
        kind = frame["type"]
        if kind in ("finished", "cancelled"):
            self.over = True
            if self.racer_id is not None:
                # Over: no game to follow and no timer left for a racer; the seat is read again
                # at the next move (refused, as the race is over).
                self.cancel_timers()
                if self.seat is not None:
                    self.seat.stale = True
                return
        if kind in ("countdown", "finished", "cancelled", "joined", "left", "autostart"):
            # The start, the end or a change of racers: new games to follow, new timers.
            view = await off_loop(snapshots.catch_up)(self.race, self.player, self.last_event)
            self.take_in(view)
            await self.follow(view)
            self.keep_live(view.board or view.start_board)
            if kind == "countdown" and view.board is not None:
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
            if self.seat is not None:
                self.seat.stale = True  # another tab moved: its progress is in the record
            entry = self.shown.get(frame["game"])
            if entry is not None and entry.live is not None and entry.live.seq < frame["seq"]:
                entry.live.stale = True
            await self.send_frame(dict(frame))
