"""Everything that changes a game: open, move, undo, autoplay (Zulip's `do_*` shape).

Views and consumers parse and check, then call one function here. Each `do_*` that changes a
game locks its row (`select_for_update`, so two tabs cannot both apply a move at the same `seq`),
checks `seq`, asks the engine, and writes the Move rows, the state snapshot and the status in one
transaction. After the commit it tells every socket watching the game (channel group
`game.<public_id>`), and keeps the engine in a per-process cache. The database is the record: a
cached engine is used only while it reflects exactly the game's log length, and is otherwise
rebuilt by replaying the Move log.

Every function here is synchronous (the ORM); consumers call them through
`database_sync_to_async`.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone

from games import rows
from games.engine import Game as EngineGame
from games.engine import IllegalMove, new_game
from games.frames import game_frame
from games.layer import group_send_nowait
from games.models import MAX_SEED, Game, Move, Player, Variant

logger = logging.getLogger(__name__)

# Safety net for autoplay: no variant has more than 104 cards to send home.
AUTOPLAY_LIMIT = 104


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


@dataclass(frozen=True)
class GameUpdate:
    """A game as one player sees it after an action, computed while the engine was ours.

    `played` lists the log entries the action added (moves, or "undo"); `duplicate` marks the
    answer to a resend whose `seq` the game had already passed (nothing was applied).
    """

    game: Game
    played: tuple[str, ...]
    view: dict
    legal: tuple[str, ...]
    can_undo: bool
    home: int = 0
    """Cards on the foundations."""
    duplicate: bool = False
    announced: bool = True
    """False for a race move not (yet) announced to the race: its progress event was held back
    (races.actions, `RACE_PROGRESS_INTERVAL_MS`)."""

    @property
    def elapsed_ms(self) -> int:
        return elapsed_ms(self.game)


def elapsed_ms(game: Game, now: datetime | None = None) -> int:
    """Milliseconds on the server's clock from the start to the finish (or to now)."""
    end = game.finished_at or now or timezone.now()
    return max(0, int((end - game.started_at).total_seconds() * 1000))


def group_name(game: Game) -> str:
    """The channel group of every socket that shows this game."""
    return f"game.{game.public_id}"


# ------------------------------------------------------------------ the per-process engine cache


class EngineCache:
    """Engines of recently played games, each tagged with the log length it reflects.

    Keyed by public id, which is random and never reused (a primary key can come back after a
    rollback).
    `take` removes the entry, so an engine is only ever in one caller's hands; `put` returns it
    (after the commit). A rolled-back action never returns its engine, so the next one replays.
    """

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self._entries: OrderedDict[str, tuple[int, EngineGame]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game: Game) -> EngineGame | None:
        with self._lock:
            entry = self._entries.pop(game.public_id, None)
        if entry is None or entry[0] != game.seq:
            return None
        return entry[1]

    def put(self, game: Game, seq: int, engine: EngineGame) -> None:
        with self._lock:
            self._entries[game.public_id] = (seq, engine)
            self._entries.move_to_end(game.public_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


engines = EngineCache()


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


def _engine_for(game: Game) -> EngineGame:
    engine = engines.take(game)
    return engine if engine is not None else replay(game)


def status_of(engine: EngineGame, legal: list[str] | None = None) -> str:
    """Won, stuck (not won, no legal move) or playing; `legal` saves computing the moves again."""
    if engine.is_won():
        return Game.Status.WON
    if not (engine.legal_moves() if legal is None else legal):
        return Game.Status.STUCK
    return Game.Status.PLAYING


def _update(
    game: Game,
    engine: EngineGame,
    played: Iterable[str] = (),
    legal: list[str] | None = None,
    **kw,
) -> GameUpdate:
    if game.is_over:
        legal = []
    elif legal is None:
        legal = engine.legal_moves()
    return GameUpdate(
        game=game,
        played=tuple(played),
        view=engine.to_dict(view="player"),
        legal=tuple(legal),
        can_undo=engine.move_count > 0 and not game.is_over,
        home=engine.foundation_count(),
        **kw,
    )


# ------------------------------------------------------------------ reading and access


def access_game(player: Player | None, public_id: str, kinds: Iterable[str] | None = None) -> Game:
    """The game with this id if `player` may play it; GameNotFound or NotYourGame otherwise."""
    game = Game.objects.filter(public_id=public_id).first()
    if game is None:
        raise GameNotFound(f"there is no game {public_id}")
    if player is None or game.player_id != player.pk:
        raise NotYourGame("this game is someone else's")
    if kinds is not None and game.kind not in set(kinds):
        raise NotYourGame(f"a {game.get_kind_display().lower()} game is not played here")
    return game


def get_game_update(game: Game) -> GameUpdate:
    """The game as it stands now (for `open` and resyncs); changes nothing."""
    game.refresh_from_db()
    engine = _engine_for(game)
    update = _update(game, engine)
    engines.put(game, game.seq, engine)
    return update


# ------------------------------------------------------------------ creating and opening


def check_deal(variant: str, seed: int) -> None:
    if variant not in Variant.values:
        raise ValueError(f"unknown variant {variant!r}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed {seed} is out of range 0..{MAX_SEED}")


def do_create_game(
    player: Player,
    variant: str,
    seed: int,
    kind: str = Game.Kind.PRACTICE,
    start_state: dict | None = None,
) -> Game:
    """A new game for `player` on the deal (variant, seed), or from `start_state` when given."""
    check_deal(variant, seed)
    game = Game(player=player, variant=variant, seed=seed, kind=kind, start_state=start_state)
    engine = starting_position(game)
    game.state = engine.to_dict()
    game.move_count = engine.move_count
    game.status = status_of(engine)
    with transaction.atomic():
        game.save()
        if game.status == Game.Status.WON:
            game.finished_at = game.started_at
            game.save(update_fields=["finished_at"])
        transaction.on_commit(lambda: engines.put(game, game.seq, engine))
    return game


def do_open_game(
    player: Player, variant: str, seed: int, kind: str = Game.Kind.PRACTICE
) -> tuple[Game, bool]:
    """The player's unfinished game of this kind on this deal, or a new one; (game, created).

    Unfinished means playing or stuck (a stuck game can still be undone). The player's row is
    locked so two tabs opening the same deal at once get one game.
    """
    check_deal(variant, seed)
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=player.pk).first()
        game = (
            Game.objects.filter(
                player=player,
                variant=variant,
                seed=seed,
                kind=kind,
                status__in=[Game.Status.PLAYING, Game.Status.STUCK],
            )
            .order_by("-started_at", "-pk")
            .first()
        )
        if game is not None:
            return game, False
        return do_create_game(player, variant, seed, kind), True


# ------------------------------------------------------------------ playing


def _act(
    game: Game, seq: int, act: Callable[[EngineGame], list[str]], locked: bool = False
) -> GameUpdate:
    """Run `act` on the game's engine under the row lock and record what it played.

    `seq` is the log length the client last saw: behind the game's it is a resend (answered with
    the current game, nothing applied), ahead of it an error. `locked`: the caller's transaction
    already holds a lock every writer of this game takes (a race game's race row) and `game` was
    read under it, so the row is neither locked nor read again (the race hot path: two round
    trips fewer, and no savepoint).
    """
    with transaction.atomic(savepoint=not locked):
        if not locked:
            # The snapshot is only written here, never read: leave it in the database.
            game = Game.objects.select_for_update().defer("state").get(pk=game.pk)
        if seq < game.seq:
            engine = _engine_for(game)
            transaction.on_commit(lambda: engines.put(game, game.seq, engine))
            return _update(game, engine, duplicate=True)
        if seq > game.seq:
            raise StaleSeq(f"seq {seq} is ahead of the game, which is at {game.seq}")
        if game.is_over:
            raise GameOver(f"the game is {game.get_status_display().lower()}")
        engine = _engine_for(game)
        try:
            played = act(engine)
        except IllegalMove as exc:
            # The engine changes nothing when it refuses a move: it stays usable.
            engines.put(game, game.seq, engine)
            raise MoveRefused(str(exc)) from exc
        legal = engine.legal_moves()
        if played:
            _record(game, engine, played, legal)
        update = _update(game, engine, played, legal)
        seq_after = game.seq
        transaction.on_commit(lambda: engines.put(game, seq_after, engine))
        if played:
            transaction.on_commit(lambda: notify(update))
    return update


def _record(game: Game, engine: EngineGame, played: list[str], legal: list[str]) -> None:
    """Append the moves to the log and store the game's new snapshot and status (hand-written
    statements, games/rows.py: this runs for every move)."""
    now = timezone.now()
    rows.insert(
        Move,
        [
            {"game_id": game.pk, "seq": game.seq + i, "move": move, "at": now}
            for i, move in enumerate(played, 1)
        ],
    )
    game.seq += len(played)
    game.move_count = engine.move_count
    game.state = engine.to_dict()
    game.status = status_of(engine, legal)
    game.finished_at = now if game.status == Game.Status.WON else None
    fields = {
        "seq": game.seq,
        "move_count": game.move_count,
        "state": game.state,
        "status": game.status,
        "finished_at": game.finished_at,
    }
    rows.update(Game, game.pk, fields)
    # As Model.save would: the daily challenge follows its games through this signal.
    post_save.send(
        sender=Game,
        instance=game,
        created=False,
        update_fields=frozenset(fields),
        raw=False,
        using=game._state.db,
    )


def canonical(move: str) -> str:
    """The move as the log keeps it: `:1` is the same move as no suffix."""
    return move.removesuffix(":1")


def do_play_move(game: Game, move: str, seq: int, locked: bool = False) -> GameUpdate:
    """Play one move (contract notation); MoveRefused with the engine's reason if illegal."""

    def act(engine: EngineGame) -> list[str]:
        engine.play(move)
        return [canonical(move)]

    return _act(game, seq, act, locked)


def do_undo(game: Game, seq: int, locked: bool = False) -> GameUpdate:
    """Take the last move back (a stuck game plays on); MoveRefused if there is none."""

    def act(engine: EngineGame) -> list[str]:
        engine.undo()
        return [Move.UNDO]

    return _act(game, seq, act, locked)


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


def do_autoplay(game: Game, seq: int) -> GameUpdate:
    """Send every card that can go to a foundation, repeatedly; each one is its own Move row."""
    return _act(game, seq, lambda engine: autoplay_moves(engine, game.variant))


# ------------------------------------------------------------------ telling the sockets


def notify(update: GameUpdate) -> None:
    """Tell every socket showing this game (other tabs) about the change, after the commit.

    The channel layer may drop it: a socket that misses one notices the `seq` gap at its next
    frame, and `open` always resyncs.
    """
    group_send_nowait(
        group_name(update.game), {"type": "game.changed", "frame": game_frame("state", update)}
    )
