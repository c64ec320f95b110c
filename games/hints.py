"""Hints in practice play: the next move of a line the solver proves winning.

The solver needs the full position (face-down and stock cards), which never leaves the server:
only the suggested move and why it is (or is not) there go out. Race and daily games get no
hints, whatever socket asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from games import actions
from games.models import Game
from games.solver import Verdict, solve

# The solver's wall-clock budget for one hint: long enough for most practice positions, short
# enough that a player waiting on the button is not left wondering.
HINT_SECONDS = 2.0


class HintRefused(actions.ActionError):
    """A hint asked for a game that is not a practice game (a race or a daily attempt)."""

    code = "hint_refused"


@dataclass(frozen=True)
class HintPosition:
    """What the solver is given: the game's full state at `seq` (never sent to a client)."""

    game: Game
    seq: int
    state: dict | None  # None: the game is over, nothing to search


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
    return HintPosition(game=game, seq=game.seq, state=actions.replay(game).to_dict())


def find_hint(position: HintPosition, max_seconds: float = HINT_SECONDS) -> Hint:
    """Search the position (CPU-bound, no ORM: run it off the event loop)."""
    if position.state is None:
        return Hint(position.game, position.seq, None, "game_over")
    result = solve(position.state, max_seconds=max_seconds)
    if result.verdict == Verdict.WON and result.moves:
        return Hint(position.game, position.seq, result.moves[0], "winning_line")
    reason = "lost" if result.verdict == Verdict.LOST else "not_found"
    return Hint(position.game, position.seq, None, reason)
