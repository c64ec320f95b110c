"""An arena as one process sees it: the sockets of this process (and event loop) on the arena's
page, and the two rounds that serve them. The room, not each socket, is in the arena's group
(games/groups.py): a result reaches a process once, however many of its sockets show the arena,
and the room hands a placement to the sockets it names. While a socket is open, every `TICK_S`
the tick places the arena's free players (arenas/placement.py: every process ticks, the arena
row's lock lets one place at a time); and, apart from it, if the board or the lobby changed
since the board was last sent (an `arena.changed` message reached any of the sockets) and
`BOARD_EVERY_S` has passed, the board is read once and sent to every socket, with each one's own
row: at most one board a second, whatever the crowd. The two rounds run side by side, each with
a thread of its own: a crowd's board, read and sent to hundreds of sockets, took a second and
more at a wave's crest, and a placement that waited behind it waited with it. An admin's change
of the arena in place comes as a message too: the room takes the new times and sends its pages
`edited`."""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import orjson
from django.utils import timezone

from arenas import actions, events, holdups, placement, standings
from arenas.models import Arena, arena_of_race
from games.groups import GROUPS, PerLoop
from games.models import Player
from games.rows import one_or_none
from games.storage import ORM_THREADS, off_loop
from races.actions import check_done
from races.models import Race, Racer

logger = logging.getLogger(__name__)

TICK_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-tick")
"""The rooms' ticks (placements, presence) on a thread of their own: a crowd's connects,
resignations and closes fill the sockets' ORM threads at a wave's crest, and a placement queued
behind them waited with them (docs/performance-log.md, seventeenth day)."""
BOARD_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-board")
"""The rooms' board reads, on a thread of their own, so that no placement queues behind one."""

TICK_S = 0.5
"""How often free players are placed (with `ARENA_GATHER_S`, what a free player waits)."""
BOARD_EVERY_S = 1.0
PRESENCE_EVERY_S = 5.0
"""How often a room says its present players are still there (arenas.placement.SEEN_WITHIN_S)."""
PLACED_GRACE = timedelta(seconds=15)
"""A race placed this long before a socket opened is still sent to it (`tick_work`)."""
BOARD_AT_LEAST_S = 5.0
"""The board is sent this often even when no `arena.changed` came (the channel layer drops
messages, and a Redis restart forgets a group's members): a missed change shows within 5 s."""
BOARD_SENDS_A_TURN = 20
"""A board is sent to this many sockets, then the event loop runs what else is ready (the
moves' frames) before the next ones. Each send is Daphne's and autobahn's work on the loop,
which nothing in the loop interrupts: to the 500 pages of a crowd's join on one process, one
board held every move of that process for up to a tenth of a second, once a second (a
sampler of the loop's long turns, docs/performance-log.md, forty-fourth day)."""
WAITING_BOARD_EVERY_S = 5.0
"""How often a race's page that waits for its next race (`rows=False`) is sent its player's own
row again after the one it gets on `wait`: it shows that row alone, in a sentence, for the few
seconds until the placement. Read and sent once a second, a crowd's waiting pages' rows were 4%
of a Daphne's samples (docs/performance-log.md, forty-first day)."""


def own_texts(arena: Arena, player_ids: list[int]) -> dict[int, str]:
    """Each player's own row, encoded (sync, off the loop)."""
    own = standings.own_rows(arena, player_ids)
    return {pid: orjson.dumps(row).decode() for pid, row in own.items()}


def encoded(frame: dict, rows: bool = True) -> str:
    """The board frame, encoded once for every socket, with the time it is sent; without its
    `rows` for the race pages that wait (they show only their player's own row)."""
    if not rows:
        frame = {key: value for key, value in frame.items() if key != "rows"}
    return orjson.dumps({**frame, "now": int(time.time() * 1000)}).decode()


def with_own(shared: str, own: str | None) -> str:
    """The shared board frame with a socket's own row as `you` (null for a spectator)."""
    return f'{shared[:-1]},"you":{own or "null"}}}'


def tick_work(arena: Arena, player_ids: list[int], say_seen: bool, since) -> dict:
    """A tick's reads and writes, on its thread, in one trip there from the event loop (each trip
    back to a busy loop waits its turn): the present players seen (if `say_seen`), and, while the
    arena places (`since` given: it runs, or starts within `placement.FIRST_RACES_AHEAD`), the free players placed, then each present player's race placed
    since `since` that they have not finished, read from the record. The `arena.placed` message
    is the fast way to a placement, this read the sure one (a message the channel layer lost, a
    Redis restart, or a page that reloaded just as its player was placed)."""
    if say_seen:
        actions.do_seen(arena, player_ids)
    if since is None:
        return {}
    if say_seen:
        # Every `PRESENCE_EVERY_S`: the racers of a race overdue, or of one that everyone still
        # racing has left or idles in while others wait, are free.
        placement.close_overdue(arena)
        holdups.resign_holdups(arena)
    placement.place(arena.pk)
    return placement.placed_since(arena, player_ids, since)


class Watch:
    """A page's socket in an arena's room: the arena's own page (/ws/arena/<id>/), or a race's page
    whose racer is done and waits there, on the race's socket, for their next race of the arena
    (`watch_from_race`). The room sends it the board with its player's own row (a race's page:
    without the board's `rows`, `rows=False`), and, while it is open and its player is in the
    arena (`present`: the arena places them), their placements."""

    def __init__(self, arena: Arena, player: Player | None, socket, rows: bool = True) -> None:
        self.arena = arena
        self.player = player
        self.socket = socket
        self.rows = rows
        self.present = False
        self.room: Room | None = None
        self.opened_at = timezone.now()
        self.placed_url: str | None = None
        self.closed = False
        self.board_sent_at = time.monotonic()  # `open` sends the first

    async def open(self, present: bool, own: dict[int, str] | None = None) -> None:
        """Into the room, and the board sent at once (raises if the room could not join the
        arena's group: Redis unreachable a moment; the page then retries). `own`: the player's
        own row, read in the connect's trip off the loop (`own_texts`), not read again."""
        self.present = present
        self.room = await ROOMS.get().join(self.arena, self)
        if present:
            self.room.dirty = True  # the lobby's counts changed for everyone
        await self.send_own_board(own)

    async def become(self, player: Player | None, present: bool, own: dict[int, str]) -> None:
        """The socket is now `player`'s (`present`: placed from now on), as if it had just
        opened as theirs, and is sent the board with their own row (`own`, read already)."""
        if present and not self.present:
            self.room.dirty = True  # the lobby's counts changed for everyone
        self.player, self.present, self.opened_at = player, present, timezone.now()
        await self.send_own_board(own)

    async def close(self) -> None:
        self.closed = True  # a board or a placement on its way is not sent
        if self.room is not None:  # None: the join failed
            ROOMS.get().leave(self.room, self)
        if self.present:
            await off_loop(actions.do_present)(self.arena, self.player, False)

    async def send(self, text_data: str) -> None:
        if not self.closed:
            await self.socket.send(text_data=text_data)

    async def send_own_board(self, own: dict[int, str] | None = None) -> None:
        ids = [self.player.pk] if self.present else []  # a spectator has no row of their own
        shared, own = await self.room.texts(ids, self.rows, own)
        await self.send(with_own(shared, own.get(ids[0]) if ids else None))

    async def send_placed(self, url: str) -> None:
        """Send the player to their race (once: the message and the room's check may both
        bring it)."""
        if url != self.placed_url and not self.closed:
            self.placed_url = url
            await self.socket.placed(url)


def present_after_race(race: Race, player: Player) -> tuple[Arena, bool, dict[int, str]] | None:
    """The race's arena, and its racer, done in it, marked present there (whether they are in
    the arena: one who left it is not placed), and their own row of its board; None for a race
    of no arena. The racer, the race as it stands and its arena are one read, the presence one
    write (a refusal may read the arena alone: a player not in the race is told `no_next_race`
    in a race of no arena)."""
    racer = one_or_none(
        Racer.objects.select_related("race__arena_race__arena").filter(race=race, player=player)
    )
    if racer is None:
        arena = arena_of_race(race)
    else:
        link = getattr(racer.race, "arena_race", None)  # None: the race belongs to no arena
        arena = None if link is None else link.arena
    if arena is None:
        return None
    check_done(racer)
    return arena, actions.do_present(arena, player, True), own_texts(arena, [player.pk])


async def watch_from_race(
    race: Race, player: Player, socket, shown: str | None = None
) -> Watch | None:
    """A race's racer, done in it, waits on the race's socket for their next race of its arena
    (races.consumers.NEXT_RACE_WAITS): the socket joins the arena's room as a page of the arena
    would, one socket a page. None for a race of no arena. `shown`: the address of a race the
    page came back from, which is not sent to it as its placement (a page opened just after its
    player's placement is sent to that race otherwise, `PLACED_GRACE`)."""
    found = await off_loop(present_after_race)(race, player)
    if found is None:
        return None
    arena, present, own = found
    watch = Watch(arena, player, socket, rows=False)
    watch.placed_url = shown
    try:
        await watch.open(present, own)
    except BaseException:
        await watch.close()
        raise
    return watch


class Room:
    def __init__(self, rooms: Rooms, arena: Arena) -> None:
        self.rooms = rooms
        self.arena = arena
        self.sockets: set = set()
        self.dirty = True
        self.board_sent_at = -BOARD_EVERY_S
        self.reading: asyncio.Task | None = None
        self.edits = 0  # the admin's changes taken: a board read before one is read again
        self.seen_sent_at = time.monotonic()
        self.task: asyncio.Task | None = None

    def hear(self, message: dict) -> None:
        """A message of the arena's group: the board changed, players were placed, or an admin
        changed the arena in place."""
        if message.get("type") == "arena.edited":
            self.take_edit(events.edited_fields(message))
            return
        self.dirty = True
        placements = message.get("placements") or {}
        for socket in list(self.sockets):
            url = placements.get(str(socket.player.pk)) if socket.player else None
            if url is not None:
                asyncio.get_running_loop().create_task(socket.send_placed(url))

    def take_edit(self, fields: dict) -> None:
        """An admin changed the arena in place: the room's arena takes the new fields (its phase,
        whether it places, its board's `finishing` go by the new times from now on), its next
        board is due, and each of its pages is sent `edited`, once: the arena's own pages, and
        the race pages that wait in it for their next race (an admin who moves a running arena's
        end: such a page waits up to the new end, and counts down to it in its header)."""
        for name, value in fields.items():
            setattr(self.arena, name, value)
        self.edits += 1
        self.reading = None  # a read under way goes by the old times
        self.dirty = True
        text = encoded(events.edited_frame(self.arena))
        for socket in self.sockets:
            asyncio.get_running_loop().create_task(socket.send(text_data=text))

    async def run(self) -> None:
        """The tick and the board's round, side by side, while the room has sockets. The tick's
        round alone says when that is over, and ends the board's with it: each round asked
        for itself, and a page that reloaded (its old socket out, the room empty a moment, the
        new one in before the tick's round looked again) came into a room whose board's round
        had ended, and was sent its first board and no other."""
        boards = asyncio.get_running_loop().create_task(self.every_tick(self.board_tick, False))
        try:
            await self.every_tick(self.tick)
        finally:
            boards.cancel()
        if self.rooms.rooms.get(self.arena.pk) is self:
            del self.rooms.rooms[self.arena.pk]
        GROUPS.get().discard(self.arena.group_name, self)

    async def every_tick(self, step, ends_the_room: bool = True) -> None:
        """`step` every `TICK_S`: until the room has no socket (`ends_the_room`), or until the
        round that does ends this one."""
        while self.sockets or not ends_the_room:
            await asyncio.sleep(TICK_S)
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except Exception:  # the next round tries again
                logger.exception("arena %s: %s failed", self.arena.public_id, step.__name__)

    async def tick(self) -> None:
        """Say who is present (every `PRESENCE_EVERY_S`), place the free players, and send each
        present player a placement the message may have missed: one trip to the tick's thread. A
        player who opens the arena's page well into a race is not sent back to it."""
        present = [s for s in self.sockets if s.present]
        now = time.monotonic()
        say_seen = bool(present) and now - self.seen_sent_at >= PRESENCE_EVERY_S
        placing = bool(present) and placement.placing(self.arena, timezone.now())
        if not (say_seen or placing):
            return
        if say_seen:
            self.seen_sent_at = now
        since = min(s.opened_at for s in present) - PLACED_GRACE if placing else None
        found = await off_loop(tick_work, lane=TICK_THREAD)(
            self.arena, [s.player.pk for s in present], say_seen, since
        )
        for socket in present:
            race = found.get(socket.player.pk)
            if race is not None and race[1] >= socket.opened_at - PLACED_GRACE:
                await socket.send_placed(race[0])

    async def board_tick(self) -> None:
        """Send the board if it changed (or `BOARD_AT_LEAST_S` passed) and `BOARD_EVERY_S` has
        passed since the last one: to the arena's pages, and to the race pages waiting for their
        next race whose last own row is `WAITING_BOARD_EVERY_S` old."""
        now = time.monotonic()
        due = self.dirty or now - self.board_sent_at >= BOARD_AT_LEAST_S
        if due and self.sockets and now - self.board_sent_at >= BOARD_EVERY_S:
            self.dirty, self.board_sent_at = False, now
            sockets = [
                s
                for s in self.sockets
                if getattr(s, "rows", True) or now - s.board_sent_at >= WAITING_BOARD_EVERY_S
            ]
            if sockets:
                await self.send_board(sockets)

    async def read_board(self) -> dict:
        """The board frame, read once for everyone who asks while the read is on."""
        if self.reading is None or self.reading.done():
            self.reading = asyncio.get_running_loop().create_task(self._read())
        return await asyncio.shield(self.reading)

    async def _read(self) -> dict:
        return await off_loop(standings.read_board, lane=BOARD_THREAD)(self.arena)

    async def texts(
        self, player_ids: list[int], rows: bool = True, own: dict[int, str] | None = None
    ) -> tuple[str, dict[int, str]]:
        """The board and these players' own rows (`own`, when the caller has read them) for a
        socket that opens or asks (`sync`): the board this process read last if it is under a
        second old (`standings.fresh_board`), else the one being read (a crowd opening its
        sockets at once reads it once a second, not once a socket)."""
        frame = standings.fresh_board(self.arena) or await self.read_board()
        if own is None:
            own = await self.own_texts(player_ids)
        return encoded(frame, rows), own

    async def own_texts(
        self, player_ids: list[int], lane: ThreadPoolExecutor = ORM_THREADS
    ) -> dict[int, str]:
        """These players' own rows, read on `lane` (the sockets' ORM threads by default); none,
        and no trip off the loop, for a spectator's socket (a crowd's join opens hundreds of
        them, and before the first join the board is counted from the record)."""
        if not player_ids:
            return {}
        return await off_loop(own_texts, lane=lane)(self.arena, player_ids)

    async def send_board(self, sockets: list) -> None:
        edits = self.edits
        frame = await self.read_board()
        while edits != self.edits:  # an edit came during the read: sent after it, the board
            edits = self.edits  # goes by its times (an end moved into the past: `finishing`)
            frame = await self.read_board()
        players = [s.player.pk for s in sockets if s.present]  # a spectator has no row
        own = await self.own_texts(players, lane=BOARD_THREAD)
        shared = {True: encoded(frame)}
        for sent, socket in enumerate(sockets):
            if sent and sent % BOARD_SENDS_A_TURN == 0:
                await asyncio.sleep(0)  # the loop's other work (moves) between two runs
            rows = getattr(socket, "rows", True)
            if rows not in shared:
                shared[rows] = encoded(frame, rows)
            text = with_own(shared[rows], own.get(socket.player.pk) if socket.player else None)
            socket.board_sent_at = time.monotonic()
            try:
                await socket.send(text_data=text)
            except Exception:  # closed meanwhile
                continue


class Rooms:
    """This event loop's arena rooms, each in its arena's group while it has sockets (the
    rooms' ticks read the record anyway, so a lost message is made good)."""

    def __init__(self) -> None:
        self.rooms: dict[int, Room] = {}

    async def join(self, arena: Arena, socket) -> Room:
        """The arena's room, with the socket in it (raises if the room could not join the
        arena's group: Redis unreachable a moment; the page then retries)."""
        room = self.rooms.get(arena.pk)
        if room is None:
            room = self.rooms[arena.pk] = Room(self, arena)
        room.sockets.add(socket)
        try:
            await GROUPS.get().add(arena.group_name, room)
        except BaseException:
            self.leave(room, socket)
            raise
        if room.task is None or room.task.done():
            room.task = asyncio.get_running_loop().create_task(room.run())
        return room

    def leave(self, room: Room, socket) -> None:
        room.sockets.discard(socket)


ROOMS: PerLoop[Rooms] = PerLoop(Rooms)
"""This event loop's rooms (`ROOMS.get()`)."""
