"""The games this process holds in play, and one action on one of them, start to finish.

`act` is the move path every socket takes (practice, daily and race moves alike): check the
`seq` and ask the engine in memory, hand the write to the process's writer (games/writer.py),
and answer once it is committed. A socket that shows a game holds its `InPlay` entry; sockets
of one process that show the same game share it, and its lock keeps their actions in order.
A copy another process moved past is found out by the store's compare-and-set: it is loaded
again from the record and the action answered from there (a resend, a stale `seq`, a game
over), exactly as if it had been read fresh.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils import timezone

from games import live as live_games
from games.errors import ActionError
from games.live import GameUpdate, GameWrite, LiveGame, update_of
from games.models import Game
from games.per_loop import PerLoop
from games.threads import in_worker
from games.writer import retrying, writer

KEPT = 4096
"""Games kept in memory after their last socket let go (an LRU): a reconnect finds it here."""


@dataclass
class InPlay:
    """One game in this process: its LiveGame (None until loaded, or once stale), the lock
    that orders actions on it, and who else is watching it (other tabs, spectators)."""

    game: Game
    live: LiveGame | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sockets: int = 0
    watched_elsewhere: bool = False
    """Another process has a socket showing this game: every change is published."""

    @property
    def watched(self) -> bool:
        return self.watched_elsewhere or self.sockets > 1

    async def current(self) -> LiveGame:
        """The LiveGame, loaded from the record when missing or stale (caller holds the lock)."""
        if self.live is None or self.live.stale:
            self.live = await retrying(lambda: in_worker(live_games.load)(self.game))
        return self.live


class Games:
    """Entries by public id (random, never reused: a primary key can come back after a
    rollback); those no socket holds are kept up to `KEPT`, least recently used first out."""

    def __init__(self) -> None:
        self.entries: dict[str, InPlay] = {}
        self.idle: OrderedDict[str, InPlay] = OrderedDict()

    def hold(self, game: Game) -> InPlay:
        entry = self.entries.get(game.public_id) or self.idle.pop(game.public_id, None)
        if entry is None:
            entry = InPlay(game=game)
        self.entries[game.public_id] = entry
        entry.sockets += 1
        return entry

    def release(self, entry: InPlay) -> None:
        entry.sockets -= 1
        if entry.sockets <= 0 and self.entries.get(entry.game.public_id) is entry:
            del self.entries[entry.game.public_id]
            self.idle[entry.game.public_id] = entry
            while len(self.idle) > KEPT:
                self.idle.popitem(last=False)

    def find(self, public_id: str) -> InPlay | None:
        return self.entries.get(public_id) or self.idle.get(public_id)

    def clear(self) -> None:
        self.entries.clear()
        self.idle.clear()


_games: PerLoop[Games] = PerLoop(Games)


def games() -> Games:
    """This event loop's games (a test's loop gets its own, as asyncio locks are per loop)."""
    return _games.get()


Extend = Callable[[LiveGame, GameWrite], None]
"""Adds what else the write carries (a racer's progress) before it is stored; may refuse."""


class Conflict(ActionError):
    """The stored game moved on in a way the reloaded copy cannot explain (never expected)."""

    code = "server_error"


async def act(
    entry: InPlay, action: str, seq: int, move: str | None = None, extend: Extend | None = None
) -> GameUpdate:
    """One action (move, undo, autoplay) on the game, stored before it is answered."""
    async with entry.lock:
        live = await entry.current()
        if seq > live.seq:  # ahead of this copy: another process may have moved; look again
            live.stale = True
            live = await entry.current()
        for _ in range(2):
            if live.check_seq(seq):
                return update_of(live, duplicate=True)
            played, legal, write = live.plan(action, move, timezone.now(), extend)
            try:
                result = await writer().write(write)
            except BaseException:
                live.stale = True  # the engine has the move; the record may not
                raise
            if live.pk in result.applied:
                if write.attempt is not None:
                    live.attempt_foundations = write.attempt.foundations
                return update_of(live, played, legal)
            live.stale = True  # someone else wrote first: answer from the record
            live = await entry.current()
        raise Conflict("the game changed while the move was stored; send it again")


async def state_of(entry: InPlay) -> GameUpdate:
    """The game as it stands (for `open` and resyncs), read again from the record."""
    async with entry.lock:
        if entry.live is not None:
            entry.live.stale = True
        return update_of(await entry.current())


def forget() -> None:
    """Drop every game held in memory, in every loop (as if the process had restarted)."""
    for held in _games.values():
        held.clear()
