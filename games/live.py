"""A game in play, held in memory: the engine, the log length and the status, and the rules of a
write (seq, over, legal).

A socket keeps the games it shows here between moves, so a move asks the engine, not the
database: the log is read once, when the game is loaded, and never again while the process
plays it. What a move changes leaves as a `GameWrite` for the store (games/store.py), which
applies it only if the stored game is still where this copy thought it was (the `seq` and an
unfinished status): a copy that another process moved past is found out there and loaded again.

Plain Python on plain data, apart from `load`, which reads the record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games.engine import Game as EngineGame
from games.engine import IllegalMove, new_game
from games.errors import GameOver, MoveRefused, StaleSeq
from games.models import Game, Move, Variant

# Safety net for autoplay: no variant has more than 104 cards to send home.
AUTOPLAY_LIMIT = 104

OVER = frozenset({Game.Status.WON, Game.Status.RESIGNED})


@dataclass(frozen=True)
class AttemptWrite:
    """A daily attempt's result after a move (daily_dailyattempt), written with the move."""

    pk: int
    ranked: bool
    foundations: int
    foundations_ms: int
    elapsed_ms: int | None


@dataclass
class RacerWrite:
    """A racer's progress after a move (races_racer), written with the move. `announce`: the
    move ends the racer's play, which the batch announces to the race as a numbered event (other
    progress goes out live: races/play.py)."""

    pk: int
    race_pk: int
    race_code: str
    cards: int
    cards_at_ms: int
    moves: int
    status: str
    finish_ms: int | None
    done_ms: int | None
    announce: bool


@dataclass
class GameWrite:
    """What one action changed in one game: applied by the store only where the stored game is
    still at `old_seq` and unfinished (compare-and-set), all of it or none of it."""

    pk: int
    public_id: str
    old_seq: int
    moves: list[str]
    move_count: int
    status: str
    finished_at: datetime | None
    at: datetime
    state: dict | None = None
    """The engine's full state, when the status changed (the snapshot pages read); None keeps
    the stored one."""
    attempt: AttemptWrite | None = None
    racer: RacerWrite | None = None

    @property
    def new_seq(self) -> int:
        return self.old_seq + len(self.moves)


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
    attempt_pk: int | None = None
    attempt_ranked: bool = False
    attempt_foundations: int = 0
    stale: bool = False
    """Set when a write of this copy was refused or failed: the next use loads it again."""
    home: int = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.engine.foundation_count()

    @property
    def is_over(self) -> bool:
        return self.status in OVER

    def elapsed_ms(self, now: datetime) -> int:
        return elapsed_ms(self, now)

    # -------------------------------------------------------------- the rules of a write

    def check_seq(self, seq: int) -> bool:
        """True when `seq` is behind the game: a resend, answered and not applied."""
        if seq < self.seq:
            return True
        if seq > self.seq:
            raise StaleSeq(f"seq {seq} is ahead of the game, which is at {self.seq}")
        if self.is_over:
            raise GameOver(f"the game is {Game.Status(self.status).label.lower()}")
        return False

    def act(self, action: str, move: str | None = None) -> list[str]:
        """Play `action` (move, undo, autoplay) on the engine; the log entries it adds.

        MoveRefused with the engine's reason, the engine unchanged."""
        engine = self.engine
        try:
            if action == "move":
                engine.play(move)
                return [canonical(move)]
            if action == "undo":
                engine.undo()
                return [Move.UNDO]
            return autoplay_moves(engine, self.variant)
        except IllegalMove as exc:
            raise MoveRefused(str(exc)) from exc

    def advance(self, played: list[str], legal: list[str], now: datetime) -> GameWrite:
        """Take in what `act` played (the engine has it already) and say what to store."""
        old_seq, old_status = self.seq, self.status
        engine = self.engine
        self.seq += len(played)
        self.move_count = engine.move_count
        self.status = status_of(engine, legal)
        self.finished_at = now if self.status == Game.Status.WON else None
        self.home = engine.foundation_count()
        return GameWrite(
            pk=self.pk,
            public_id=self.public_id,
            old_seq=old_seq,
            moves=played,
            move_count=self.move_count,
            status=self.status,
            finished_at=self.finished_at,
            at=now,
            state=engine.to_dict() if self.status != old_status else None,
        )

    def plan(self, action: str, move: str | None, now: datetime, extend=None):
        """Play the action and say what to store: (played, legal moves after, the write), the
        daily attempt's new result and what `extend(live, write)` adds (a racer's) included."""
        played = self.act(action, move)  # refused: the engine is unchanged
        try:
            legal = self.engine.legal_moves()
            write = self.advance(played, legal, now)
            if self.attempt_pk is not None:
                write.attempt = attempt_write(self, now)
            if extend is not None:
                extend(self, write)
        except BaseException:
            self.stale = True  # the engine has the move, the record will not
            raise
        return played, legal, write


def attempt_write(live: LiveGame, now) -> AttemptWrite | None:
    """A daily attempt's new result, when the move changed it (cards home, or the end)."""
    over = live.is_over and live.finished_at is not None
    if live.home == live.attempt_foundations and not over:
        return None
    return AttemptWrite(
        pk=live.attempt_pk,
        ranked=live.attempt_ranked,
        foundations=live.home,
        foundations_ms=live.elapsed_ms(now),
        elapsed_ms=live.elapsed_ms(now) if over else None,
    )


def canonical(move: str) -> str:
    """The move as the log keeps it: `:1` is the same move as no suffix."""
    return move.removesuffix(":1")


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


# ------------------------------------------------------------------ loading from the record


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


def load(game: Game) -> LiveGame:
    """The game as it stands in the database, its engine replayed from the log (ORM; sync)."""
    game = Game.objects.select_related("daily_attempt").get(pk=game.pk)
    log = move_log(game)
    live = from_row(game, replay(game, log))
    if len(log) != live.seq:  # the row and its log disagree: the log is the record
        live.seq = len(log)
    return live


def from_row(game: Game, engine: EngineGame) -> LiveGame:
    attempt = getattr(game, "daily_attempt", None) if game.kind == Game.Kind.DAILY else None
    return LiveGame(
        pk=game.pk,
        public_id=game.public_id,
        player_id=game.player_id,
        variant=game.variant,
        kind=game.kind,
        seed=game.seed,
        started_at=game.started_at,
        finished_at=game.finished_at,
        status=game.status,
        seq=game.seq,
        move_count=game.move_count,
        engine=engine,
        attempt_pk=attempt.pk if attempt is not None else None,
        attempt_ranked=attempt.ranked if attempt is not None else False,
        attempt_foundations=attempt.foundations if attempt is not None else 0,
    )


# ------------------------------------------------------------------ what a socket is told


@dataclass(frozen=True)
class GameUpdate:
    """A game as its player sees it after an action, computed while the engine was at hand.

    `game` is the LiveGame (or anything with its fields: public_id, seq, status, move_count,
    started_at, finished_at); `played` lists the log entries the action added (moves, or
    "undo"); `duplicate` marks the answer to a resend whose `seq` the game had already passed
    (nothing was applied)."""

    game: LiveGame
    played: tuple[str, ...]
    view: dict
    legal: tuple[str, ...]
    can_undo: bool
    home: int = 0
    """Cards on the foundations."""
    duplicate: bool = False

    @property
    def elapsed_ms(self) -> int:
        return elapsed_ms(self.game)


def elapsed_ms(game, now: datetime | None = None) -> int:
    """Milliseconds on the server's clock from the start to the finish (or to now)."""
    from django.utils import timezone

    end = game.finished_at or now or timezone.now()
    return max(0, int((end - game.started_at).total_seconds() * 1000))


def update_of(live: LiveGame, played=(), legal: list[str] | None = None, **kw) -> GameUpdate:
    """The player's update for the game as `live` holds it now."""
    engine = live.engine
    if live.is_over:
        legal = []
    elif legal is None:
        legal = engine.legal_moves()
    return GameUpdate(
        game=live,
        played=tuple(played),
        view=engine.to_dict(view="player"),
        legal=tuple(legal),
        can_undo=engine.move_count > 0 and not live.is_over,
        home=live.home,
        **kw,
    )
