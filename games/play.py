"""The games this process holds in play, and one action on one of them, start to finish.

A socket keeps the games it shows in memory (`InPlay`: a `LiveGame` and the lock that orders
actions on it; sockets of one process that show the same game share it), so a move asks the
engine, not the database: the log is read once, when the game is loaded. `act` is the move
path of every socket and of the synchronous actions alike (practice, daily and race moves):
check the `seq`, play the action on the engine, hand the write to the loop's writer
(games/storage.py) and answer once it is committed. A copy another process moved past is found
out by the store's compare-and-set: it is loaded again from the record and the action answered
from there (a resend, a stale `seq`, a game over), exactly as if it had been read fresh.

Other apps add their part to a game's write: the caller's `extend` (a race's seat adds the
racer's progress), and what an app registers for a kind of game in `WRITE_PARTS` (the daily
attempt's result), set up when the game is loaded.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.utils import timezone

from games.engine import Game as EngineGame
from games.engine import IllegalMove, new_game
from games.errors import ActionError, GameOver, MoveRefused, StaleSeq
from games.groups import PerLoop
from games.models import Game, Move, Variant
from games.storage import GameWrite, MoveWriter, off_loop, retrying

KEPT = 4096
"""Games kept in memory after their last socket let go (an LRU): a reconnect finds it here."""

AUTOPLAY_LIMIT = 104
"""Safety net for autoplay: no variant has more than 104 cards to send home."""

OVER = frozenset({Game.Status.WON, Game.Status.RESIGNED})

Extend = Callable[["LiveGame", GameWrite], None]
"""Adds another app's part to a write before it is stored; may refuse (raise)."""

WRITE_PARTS: dict[str, Callable[[Game], Extend | None]] = {}
"""By game kind: given the game's row when it is loaded (sync, ORM), what adds that kind's part
to each of its writes, or None. Registered by the apps (daily: the attempt's result)."""

# ------------------------------------------------------------------ a game in memory


@dataclass
class LiveGame:
    """One game as this process knows it: the row's facts and the engine at `seq`."""

    pk: int
    public_id: str
    player_id: int
    variant: str
    kind: str
    seed: int
    started_at: datetime
    finished_at: datetime | None
    status: str
    seq: int
    move_count: int
    engine: EngineGame
    extend: Extend | None = None
    """The kind's part of each write (WRITE_PARTS), set when loaded."""
    stale: bool = False
    """Set when a write of this copy was refused or failed: the next use loads it again."""
    home: int = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.engine.foundation_count()

    @property
    def is_over(self) -> bool:
        return self.status in OVER

    def check_seq(self, seq: int) -> bool:
        """True when `seq` is behind the game: a resend, answered and not applied."""
        if seq < self.seq:
            return True
        if seq > self.seq:
            raise StaleSeq(f"seq {seq} is ahead of the game, which is at {self.seq}")
        if self.status in OVER:
            raise GameOver(f"the game is {Game.Status(self.status).label.lower()}")
        return False

    def plan(self, action: str, move: str | None, now: datetime, extend: Extend | None = None):
        """Play the action (move, undo, autoplay) on the engine and say what to store: (log
        entries played, legal moves after, the write), with the parts the kind and `extend`
        add. MoveRefused with the engine's reason, the engine unchanged."""
        engine = self.engine
        try:
            if action == "move":
                engine.play(move)
                played = [move.removesuffix(":1")]  # the log's form: `:1` is no suffix
            elif action == "undo":
                engine.undo()
                played = [Move.UNDO]
            else:
                played = autoplay_moves(engine, self.variant)
        except IllegalMove as exc:
            raise MoveRefused(str(exc)) from exc
        try:
            legal = engine.legal_moves()
            old_seq, old_status, home_before = self.seq, self.status, self.home
            self.seq += len(played)
            self.move_count = engine.move_count
            self.status = status_of(engine, legal)
            self.finished_at = now if self.status == Game.Status.WON else None
            self.home = engine.foundation_count()
            write = GameWrite(
                pk=self.pk,
                public_id=self.public_id,
                old_seq=old_seq,
                moves=played,
                move_count=self.move_count,
                status=self.status,
                finished_at=self.finished_at,
                at=now,
                home_before=home_before,
                home=self.home,
                state=engine.to_dict() if self.status != old_status else None,
            )
            if self.extend is not None:
                self.extend(self, write)
            if extend is not None:
                extend(self, write)
        except BaseException:
            self.stale = True  # the engine has the move, the record will not
            raise
        return played, legal, write


def status_of(engine: EngineGame, legal: list[str] | None = None) -> str:
    """Won, stuck (not won, no legal move) or playing; `legal` saves computing the moves again."""
    if engine.is_won():
        return Game.Status.WON
    if not (engine.legal_moves() if legal is None else legal):
        return Game.Status.STUCK
    return Game.Status.PLAYING


def is_autoplay_move(variant: str, move: str) -> bool:
    """A move that puts a card home for good: any move to a foundation, except in Spiderweb,
    where an empty foundation is also a cell and only a whole suit (`:13`) is a real one."""
    destination = move.split("-", 1)[-1]
    if not destination.startswith("f"):
        return False
    if variant == Variant.SPIDERWEB:
        return destination.endswith(":13")
    return True


def autoplay_moves(engine: EngineGame, variant: str) -> list[str]:
    """Play foundation moves on `engine` until none is left; the moves played, in order."""
    played: list[str] = []
    while len(played) < AUTOPLAY_LIMIT:
        move = next((m for m in engine.legal_moves() if is_autoplay_move(variant, m)), None)
        if move is None:
            break
        engine.play(move)
        played.append(move)
    return played


# ------------------------------------------------------------------ reading the record


def starting_position(game: Game) -> EngineGame:
    """The position the game's log starts from: the deal, or a stored start position."""
    if game.start_state is not None:
        return EngineGame.from_dict(game.start_state)
    return new_game(game.variant, game.seed)


def move_log(game: Game) -> list[str]:
    """The game's log: every Move row's move ("undo" included), in order."""
    return list(game.moves.order_by("seq").values_list("move", flat=True))


def replay(game: Game, log: list[str] | None = None) -> EngineGame:
    """The game's engine rebuilt from the record: the start, then every Move row in order (or
    `log`, the game's log already read)."""
    engine = starting_position(game)
    for move in move_log(game) if log is None else log:
        if move == Move.UNDO:
            engine.undo()
        else:
            engine.play(move)
    return engine


def load(game: Game, read: bool = True) -> LiveGame:
    """The game as it stands in the database, its engine replayed from the log (ORM; sync).
    `read=False`: `game` is its row as just read, not read again (the log still is). A row that
    says no move was ever stored has no log to read: a game's moves and its `seq` are written in
    one transaction, so a game at the start of a race is one read."""
    if read:
        game = Game.objects.get(pk=game.pk)
    log = move_log(game) if game.seq else []
    part = WRITE_PARTS.get(game.kind)
    live = LiveGame(
        pk=game.pk,
        public_id=game.public_id,
        player_id=game.player_id,
        variant=game.variant,
        kind=game.kind,
        seed=game.seed,
        started_at=game.started_at,
        finished_at=game.finished_at,
        status=game.status,
        seq=len(log),  # the row and its log disagree: the log is the record
        move_count=game.move_count,
        engine=replay(game, log),
        extend=part(game) if part is not None else None,
    )
    return live


def elapsed_ms(game, now: datetime | None = None) -> int:
    """Milliseconds on the server's clock from the start to the finish (or to now)."""
    end = game.finished_at or now or timezone.now()
    return max(0, int((end - game.started_at).total_seconds() * 1000))


# ------------------------------------------------------------------ what a socket is told


@dataclass(frozen=True)
class GameUpdate:
    """A game as its player sees it after an action, computed while the engine was at hand.

    `game` is the LiveGame (or anything with its fields); `played` the log entries the action
    added; `duplicate` marks the answer to a resend (nothing was applied); `write` is what was
    stored, with the parts other apps added."""

    game: LiveGame
    played: tuple[str, ...]
    view: dict
    legal: tuple[str, ...]
    can_undo: bool
    home: int = 0
    """Cards on the foundations."""
    duplicate: bool = False
    write: GameWrite | None = None


def update_of(live: LiveGame, played=(), legal=None, **kw) -> GameUpdate:
    """The player's update for the game as `live` holds it now."""
    engine = live.engine
    over = live.status in OVER
    if over:
        legal = []
    elif legal is None:
        legal = engine.legal_moves()
    return GameUpdate(
        game=live,
        played=tuple(played),
        view=engine.to_dict(view="player"),
        legal=tuple(legal),
        can_undo=engine.move_count > 0 and not over,
        home=live.home,
        **kw,
    )


# ------------------------------------------------------------------ the games of a process


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
    store: Callable | None = None
    """What stores its writes: the loop's writer, for an entry the loop's games hold."""


class Games:
    """Entries by public id (random, never reused: a primary key can come back after a
    rollback); those no socket holds are kept up to `KEPT`, least recently used first out.
    One per event loop, with that loop's writer."""

    def __init__(self) -> None:
        self.entries: dict[str, InPlay] = {}
        self.idle: OrderedDict[str, InPlay] = OrderedDict()
        self.writer = MoveWriter()

    def hold(self, game: Game) -> InPlay:
        entry = self.entries.get(game.public_id) or self.idle.pop(game.public_id, None)
        if entry is None:
            entry = InPlay(game=game, store=self.writer.write)
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

    def clear(self) -> None:
        self.entries.clear()
        self.idle.clear()


GAMES: PerLoop[Games] = PerLoop(Games)
"""This event loop's games and writer (`GAMES.get()`)."""


class Conflict(ActionError):
    """The stored game moved on in a way the reloaded copy cannot explain (never expected)."""

    code = "server_error"


async def act(
    entry: InPlay,
    action: str,
    seq: int,
    move: str | None = None,
    extend: Extend | None = None,
    store=None,
    read=None,
) -> GameUpdate:
    """One action (move, undo, autoplay) on the game, stored before it is answered: by the
    loop's writer and read from the record off the loop, or by `store(write)` and `read(game)`
    (the synchronous actions, in their caller's thread)."""
    store = store or entry.store or GAMES.get().writer.write
    read = read or read_record
    async with entry.lock:
        live = entry.live
        if live is None or live.stale or seq > live.seq:  # ahead: another process moved
            live = entry.live = await read(entry.game)
        for _ in range(2):
            if live.check_seq(seq):
                return update_of(live, duplicate=True)
            played, legal, write = live.plan(action, move, timezone.now(), extend)
            try:
                result = await store(write)
            except BaseException:
                live.stale = True  # the engine has the move; the record may not
                raise
            if live.pk in result.applied:
                return update_of(live, played, legal, write=write)
            # Someone else wrote first: answer from the record.
            live = entry.live = await read(entry.game)
        raise Conflict("the game changed while the move was stored; send it again")


async def read_record(game: Game) -> LiveGame:
    """The game loaded from the record off the event loop, tried again while the database is
    away."""
    return await retrying(lambda: off_loop(load)(game))


async def held_copy(entry: InPlay | None) -> LiveGame | None:
    """A private copy of the game as this process holds it, for a thread to end it with
    (`games.actions.do_end_game`'s `loaded`: stored only if the row is still at its `seq`); None
    when the process holds none that is up to date."""
    if entry is None:
        return None
    async with entry.lock:  # no move of this process half applied
        live = entry.live
        if live is None or live.stale:
            return None
        return replace(live, engine=live.engine.copy())


async def state_of(entry: InPlay) -> GameUpdate:
    """The game as it stands (for `open` and resyncs), read again from the record."""
    async with entry.lock:
        entry.live = await read_record(entry.game)
        return update_of(entry.live)


def forget() -> None:
    """Drop every game held in memory, in every loop (as if the process had restarted)."""
    for held in GAMES.values():
        held.clear()


def cards_home(state: dict) -> int:
    """Cards on the foundations for good, from an engine state dict.

    In Spiderweb an empty foundation doubles as a cell: a lone card parked there is not home,
    only complete suits (13 cards) are.
    """
    piles = state.get("foundations", [])
    if state.get("variant") == "spiderweb":
        return sum(len(pile) for pile in piles if len(pile) == 13)
    return sum(len(pile) for pile in piles)
