"""Everything that changes a game outside the sockets' move path, and the same actions for
callers that are not sockets (Zulip's `do_*` shape).

Sockets play through games/play.py (the engine in memory, the writer's batches); views,
commands and tests call the functions here, which run the same `play.act` synchronously: the
game is read from the record, the action checked by the same rules and stored by the same
compare-and-set (games/storage.py), in the caller's thread and transaction, then every socket
showing the game is told (channel group `game.<public_id>`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction

from games import play
from games.errors import (  # noqa: F401  (the refusals, for callers of these actions)
    ActionError,
    GameNotFound,
    GameOver,
    MoveRefused,
    NotYourGame,
    StaleSeq,
)
from games.groups import group_send_nowait
from games.models import MAX_SEED, Game, Move, Player, Variant, is_public_id
from games.play import (  # noqa: F401  (the record's readers, for callers of these actions)
    GameUpdate,
    LiveGame,
    elapsed_ms,
    load,
    move_log,
    replay,
    starting_position,
    status_of,
    update_of,
)
from games.rows import one_or_none, update_rows
from games.sockets import game_frame, group_name
from games.storage import UNFINISHED, GameWrite, send_messages, write_batch

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------ reading and access


def access_game(player: Player | None, public_id: str, kinds: Iterable[str] | None = None) -> Game:
    """The game with this id if `player` may play it; GameNotFound or NotYourGame otherwise."""
    game = (
        one_or_none(Game.objects.filter(public_id=public_id)) if is_public_id(public_id) else None
    )
    if game is None:
        raise GameNotFound("there is no game with this id")
    if player is None or game.player_id != player.pk:
        raise NotYourGame("this game is someone else's")
    if kinds is not None and game.kind not in set(kinds):
        raise NotYourGame(f"a {game.get_kind_display().lower()} game is not played here")
    return game


def get_game_update(game: Game, read: bool = True) -> GameUpdate:
    """The game as it stands now (for resyncs); changes nothing. `read=False`: `game` is its row
    as just read, not read again (its moves are)."""
    return update_of(load(game, read=read))


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
    return do_create_games([player], variant, seed, kind, start_state)[0]


def do_create_games(
    players: list[Player],
    variant: str,
    seed: int,
    kind: str = Game.Kind.PRACTICE,
    start_state: dict | None = None,
    started_at=None,
) -> list[Game]:
    """A new game for each player on the same deal (a race's racers), in their order: the deal
    dealt once, each game given its own copy of the starting position (`to_dict` makes a new
    one), the games inserted together; started at `started_at` when given (a race's start),
    else now."""
    return create_deal_games(variant, [(players, seed)], kind, start_state, started_at)[0]


def create_deal_games(
    variant: str,
    deals: list[tuple[list[Player], int]],
    kind: str = Game.Kind.PRACTICE,
    start_state: dict | None = None,
    started_at=None,
) -> list[list[Game]]:
    """`do_create_games` for several deals at once (an arena's batch of races, a deal each):
    for each (players, seed), a game each, every game of every deal inserted in one statement."""
    made: list[list[Game]] = []
    for players, seed in deals:
        check_deal(variant, seed)
        engine = starting_position(Game(variant=variant, seed=seed, start_state=start_state))
        status = status_of(engine)
        made.append(
            [
                Game(
                    player=player,
                    variant=variant,
                    seed=seed,
                    kind=kind,
                    start_state=start_state,
                    state=engine.to_dict(),
                    move_count=engine.move_count,
                    status=status,
                )
                for player in players
            ]
        )
    games = [game for group in made for game in group]
    with transaction.atomic(savepoint=False):
        Game.objects.bulk_create(games)
        if started_at is not None:
            Game.objects.filter(pk__in=[game.pk for game in games]).update(started_at=started_at)
            for game in games:
                game.started_at = started_at
        for game in games:
            if game.status == Game.Status.WON:
                game.finished_at = game.started_at
                game.save(update_fields=["finished_at"])
    return made


def unfinished_game(
    player: Player, variant: str, seed: int, kind: str = Game.Kind.PRACTICE
) -> Game | None:
    """The player's latest unfinished game of this kind on this deal: playing or stuck (a stuck
    game can still be undone)."""
    return (
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


def do_open_game(
    player: Player, variant: str, seed: int, kind: str = Game.Kind.PRACTICE
) -> tuple[Game, bool]:
    """The player's unfinished game of this kind on this deal, or a new one; (game, created).

    The player's row is locked so two tabs opening the same deal at once get one game.
    """
    check_deal(variant, seed)
    with transaction.atomic():
        one_or_none(Player.objects.select_for_update(no_key=True).filter(pk=player.pk))
        game = unfinished_game(player, variant, seed, kind)
        if game is not None:
            return game, False
        return do_create_game(player, variant, seed, kind), True


# ------------------------------------------------------------------ playing


def act(game, action: str, seq: int, move: str | None = None, extend=None) -> GameUpdate:
    """One action on the game as the record has it: the sockets' `play.act`, run here in the
    caller's thread (and transaction), the write stored at once instead of in a batch.

    `seq` is the log length the client last saw: behind the game's it is a resend (answered
    with the current game, nothing applied), ahead of it StaleSeq."""
    entry = play.InPlay(game=game, live=load(game))
    update = async_to_sync(play.act)(entry, action, seq, move, extend, store_now, read_now)
    if not update.duplicate:
        notify(update)
    return update


async def read_now(game: Game) -> LiveGame:
    """The game loaded from the record in the thread of the synchronous caller."""
    return await sync_to_async(load)(game)


async def store_now(write: GameWrite):
    """A write stored alone, in the thread of the synchronous caller, then its announcements."""
    result = await sync_to_async(write_batch)([write])
    if result.messages:
        await send_messages(result.messages)
    return result


def do_play_move(game, move: str, seq: int) -> GameUpdate:
    """Play one move (contract notation); MoveRefused with the engine's reason if illegal."""
    return act(game, "move", seq, move)


def do_undo(game, seq: int) -> GameUpdate:
    """Take the last move back (a stuck game plays on); MoveRefused if there is none."""
    return act(game, "undo", seq)


def do_autoplay(game, seq: int) -> GameUpdate:
    """Send every card that can go to a foundation, repeatedly; each one is its own Move row."""
    return act(game, "autoplay", seq)


def do_end_game(game, now, status: str = Game.Status.RESIGNED, loaded=None) -> bool:
    """End an unfinished game where it stands (resigned: a race closed or given up, a daily
    attempt abandoned), with its final snapshot; False if it had already ended.

    Waits for a move being stored into the game (its row lock), so the move is either in the
    record before the end or refused by its compare-and-set after it. `loaded`: the game as the
    caller loaded it before taking its own locks (`load`, its log replayed): its snapshot is
    stored if no move was stored since (the row still at its `seq`), else the game ends as
    `do_end_games` ends it, its row locked before its log is read."""
    if loaded is not None:
        ended = Game.objects.filter(pk=game.pk, status__in=UNFINISHED, seq=loaded.seq).update(
            status=status, finished_at=now, state=loaded.engine.to_dict()
        )
        if ended:
            return True
    with transaction.atomic(savepoint=False):
        return do_end_games([game], now, status) == 1


def do_end_games(games: Iterable[Game], now, status: str = Game.Status.RESIGNED) -> int:
    """`do_end_game` for several games at once (a race's close at its time limit ends every game
    still playing), in three statements whatever their number: their rows locked in id order
    (waiting for a move batch that holds one, so the logs read next hold every move stored and
    no later move can be), their logs, and their ends; how many it ended."""
    rows = list(
        Game.objects.select_for_update(no_key=True)
        .filter(pk__in=sorted({game.pk for game in games}), status__in=UNFINISHED)
        .order_by("pk")
    )
    if not rows:
        return 0
    logs: dict[int, list[str]] = {row.pk: [] for row in rows}
    moves = Move.objects.filter(game_id__in=list(logs)).order_by("game_id", "seq")
    for game_id, move in moves.values_list("game_id", "move"):
        logs[game_id].append(move)
    for row in rows:
        row.status, row.finished_at = status, now
        row.state = replay(row, logs[row.pk]).to_dict()
    return update_rows(rows, ["status", "finished_at", "state"])


# ------------------------------------------------------------------ telling the sockets


def notify(update: GameUpdate) -> None:
    """Tell every socket showing this game about the change (from outside the sockets).

    The channel layer may drop it: a socket that misses one notices the `seq` gap at its next
    frame, and `open` always resyncs.
    """
    group_send_nowait(
        group_name(update.game.public_id),
        {"type": "game.changed", "frame": game_frame("state", update)},
    )
