"""Hints in practice play: the next move of a line the solver proves winning.

The solver needs the full position (face-down and stock cards), which never leaves the server:
only the suggested move and why it is (or is not) there go out. Race and daily games get no
hints, whatever socket asks.

A search costs seconds of the process's one solver thread, so `HintDesk` spends it carefully:
the whole winning line a search found is kept, and while the player follows it every next hint
is read off it at once; a position proved lost stays lost until an undo; a second ask for the
position being searched (a second tab, an impatient key) waits for the same search; a player
has one search at a time, and the process a bounded queue of them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

from games import actions
from games.models import Game, Move
from games.solver import Verdict, solve

# The solver's wall-clock budget for one hint: long enough for most practice positions, short
# enough that a player waiting on the button is not left wondering.
HINT_SECONDS = 2.0

# Hint searches one process holds at once (running or queued behind the one solver thread);
# past that a hint is refused with `solver_busy` rather than left waiting for minutes.
MAX_SEARCHES = 4

# Games whose last search result (a winning line, or a proof of loss) a process remembers.
GAMES_REMEMBERED = 2_000


class HintRefused(actions.ActionError):
    """A hint asked for a game that is not a practice game (a race or a daily attempt)."""

    code = "hint_refused"


class HintPending(actions.ActionError):
    """The player's previous hint, for another position, is still being searched."""

    code = "hint_pending"

    def __init__(self) -> None:
        super().__init__("your previous hint is still being searched; wait for it, then ask again")


class SolverBusy(actions.ActionError):
    """Every hint search slot of this process is taken."""

    code = "solver_busy"

    def __init__(self) -> None:
        super().__init__(
            f"the hint solver is busy ({MAX_SEARCHES} searches waiting); ask again in a few seconds"
        )


@dataclass(frozen=True)
class HintPosition:
    """What the solver is given: the game's full state at `seq` (never sent to a client), and
    the log that led there."""

    game: Game
    seq: int
    state: dict | None  # None: the game is over, nothing to search
    log: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hint:
    """The answer: `move` (contract notation) or None, and `reason`, a short code saying why.

    Reasons: `winning_line` (move is the first of a proved win), `lost` (no win exists from
    here), `not_found` (the budget ran out before a win was found), `game_over`.
    """

    game: Game
    seq: int
    move: str | None
    reason: str

    def frame(self) -> dict:
        return {
            "type": "hint",
            "game": self.game.public_id,
            "seq": self.seq,
            "move": self.move,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Finding:
    """What one search found from the position after the first `seq` log entries: a winning
    `line` from there (a tuple of moves), a proof of loss (`line` None, `lost`), or neither."""

    seq: int
    line: tuple[str, ...] | None
    lost: bool = False

    def answer(self, position: HintPosition) -> Hint | None:
        """The hint for `position` that this finding proves, or None.

        The log only grows, so the position searched is the one after the first `seq` entries
        of `position.log`. When the entries since are exactly the start of the winning line, the
        position is the one that line reaches, and the rest of the line wins from it. When the
        position searched was lost and nothing since was undone, the position is lost too: a
        lost position only leads to lost ones.
        """
        since = position.log[self.seq :]
        if position.seq < self.seq or len(since) != position.seq - self.seq:
            return None
        if self.line is not None:
            done = len(since)
            if done < len(self.line) and tuple(self.line[:done]) == since:
                return Hint(position.game, position.seq, self.line[done], "winning_line")
            return None
        if self.lost and Move.UNDO not in since:
            return Hint(position.game, position.seq, None, "lost")
        return None


def hint_position(game: Game) -> HintPosition:
    """The game's current full state for the solver; HintRefused unless it is a practice game.

    Uses the ORM: run it in a worker thread.
    """
    game.refresh_from_db()
    if game.kind != Game.Kind.PRACTICE:
        raise HintRefused(
            f"hints are for practice games only, not in a {game.get_kind_display().lower()} game"
        )
    if game.is_over:
        return HintPosition(game=game, seq=game.seq, state=None)
    # The position is the log's, whatever moved since the row was read: seq is its length.
    log = actions.move_log(game)
    state = actions.replay(game, log).to_dict()
    return HintPosition(game=game, seq=len(log), state=state, log=tuple(log))


def search(position: HintPosition, max_seconds: float = HINT_SECONDS) -> Finding:
    """Search the position (CPU-bound, no ORM: run it off the event loop)."""
    result = solve(position.state, max_seconds=max_seconds)
    if result.verdict == Verdict.WON and result.moves:
        return Finding(position.seq, tuple(result.moves))
    return Finding(position.seq, None, lost=result.verdict == Verdict.LOST)


def hint_from(position: HintPosition, finding: Finding) -> Hint:
    """The hint a search of `position` itself gives."""
    answer = finding.answer(position)
    if answer is not None:
        return answer
    return Hint(position.game, position.seq, None, "not_found")


class HintDesk:
    """Hints for one process, on its event loop (not thread-safe: call it from the loop only).

    `answer_now` gives what is known without a search; `start` begins a search (or joins the
    one already under way for the same position) and returns an awaitable Finding, refusing
    with HintPending or SolverBusy before anything waits.
    """

    def __init__(
        self,
        executor: Executor,
        max_searches: int = MAX_SEARCHES,
        remembered: int = GAMES_REMEMBERED,
        searcher: Callable[[HintPosition], Finding] = search,
    ) -> None:
        self.executor = executor
        self.max_searches = max_searches
        self.remembered = remembered
        self.searcher = searcher
        self._findings: OrderedDict[int, Finding] = OrderedDict()  # by game pk
        # (game pk, seq) -> (the search's future, the player it is for)
        self._searches: dict[tuple[int, int], tuple[asyncio.Future, int]] = {}

    def answer_now(self, position: HintPosition) -> Hint | None:
        if position.state is None:
            return Hint(position.game, position.seq, None, "game_over")
        finding = self._findings.get(position.game.pk)
        if finding is None:
            return None
        self._findings.move_to_end(position.game.pk)
        return finding.answer(position)

    def start(self, position: HintPosition) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        self._forget_other_loops(loop)
        key = (position.game.pk, position.seq)
        if key in self._searches:
            return asyncio.shield(self._searches[key][0])
        player = position.game.player_id
        if any(owner == player for _, owner in self._searches.values()):
            raise HintPending()
        if len(self._searches) >= self.max_searches:
            raise SolverBusy()
        future = loop.run_in_executor(self.executor, self.searcher, position)
        self._searches[key] = (future, player)
        future.add_done_callback(lambda done: self._finished(key, done))
        return asyncio.shield(future)

    def searching(self) -> int:
        """Searches running or queued now."""
        return len(self._searches)

    def _finished(self, key: tuple[int, int], future: asyncio.Future) -> None:
        self._searches.pop(key, None)
        if future.cancelled() or future.exception() is not None:
            return
        finding = future.result()
        if finding.line is not None or finding.lost:
            self._findings[key[0]] = finding
            self._findings.move_to_end(key[0])
            while len(self._findings) > self.remembered:
                self._findings.popitem(last=False)

    def _forget_other_loops(self, loop: asyncio.AbstractEventLoop) -> None:
        """Drop searches begun on another event loop (one that ended, as between tests): their
        results can never be delivered, and they would hold their players' slots for good."""
        for key, (future, _) in list(self._searches.items()):
            if future.get_loop() is not loop:
                del self._searches[key]
