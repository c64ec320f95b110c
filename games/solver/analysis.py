"""Uses of the solver on games in play: a hint, and the move that threw a game away."""

import time
from typing import Any

from games.engine import Game, new_game

from .result import Verdict
from .solve import solve


def hint(game: Any, max_seconds: float = 2.0) -> str | None:
    """The first move of a winning line from the current position, or None when the solver
    finds none in time (the position is lost, already won, or too hard for the budget)."""
    result = solve(game, max_seconds=max_seconds)
    if result.verdict == Verdict.WON and result.moves:
        return result.moves[0]
    return None


def _positions(start: Any, moves: list[str]) -> tuple[list[dict], list[tuple]]:
    """Replay a move log on the engine: the full state after each entry (index 0 is the start,
    index i+1 follows entry i), and for each the line of moves in force (undo pops one)."""

    game = Game.from_dict(start.to_dict() if hasattr(start, "to_dict") else start)
    states = [game.to_dict()]
    line: list[str] = []
    lines = [()]
    for entry in moves:
        if entry == "undo":
            game.undo()
            line.pop()
        else:
            game.play(entry)
            line.append(entry)
        states.append(game.to_dict())
        lines.append(tuple(line))
    return states, lines


def first_losing_move(
    variant: str,
    seed: int,
    moves: list[str],
    max_seconds_per_position: float = 2.0,
    max_total_seconds: float = 30.0,
) -> int | None:
    """``first_losing_move_from`` the deal of (variant, seed)."""

    return first_losing_move_from(
        new_game(variant, seed),
        moves,
        max_seconds_per_position=max_seconds_per_position,
        max_total_seconds=max_total_seconds,
    )


def first_losing_move_from(
    start: Any,
    moves: list[str],
    max_seconds_per_position: float = 2.0,
    max_total_seconds: float = 30.0,
) -> int | None:
    """From ``start`` (an engine Game or full state), the index in ``moves`` of the first move
    that turned a position proved winnable into one proved lost, or None when there is no such
    move.

    ``moves`` is a game's log as stored (``"undo"`` entries take the last move back).
    Lost positions only lead to lost positions, and winnable ones only follow winnable ones, so
    the log is cut into stretches of plain moves; each stretch is judged by its last position and
    only a stretch ending lost is bisected, down to the last position not proved lost. A move is
    named only when the position before it is *proved* winnable and the one after it *proved*
    lost, so the answer never blames a move wrongly (an Eighty Thieves position, say, may be
    proved lost late in a game whose deal was never proved winnable: no move is blamed). It may
    come later than the true culprit or be None when the budget was too small. None also when
    the deal itself is proved lost (no move lost it), or when the total budget ran out first.
    """
    states, lines = _positions(start, moves)
    started = time.perf_counter()
    verdicts: dict[tuple, Verdict] = {}

    def verdict(i: int) -> Verdict:
        line = lines[i]
        if line not in verdicts:
            left = max_total_seconds - (time.perf_counter() - started)
            if left <= 0:
                return Verdict.UNKNOWN
            budget = min(max_seconds_per_position, left)
            verdicts[line] = solve(states[i], max_seconds=budget).verdict
            if verdicts[line] == Verdict.WON:
                for k in range(len(line)):  # every earlier position on the line is winnable
                    verdicts.setdefault(line[:k], Verdict.WON)
        return verdicts[line]

    if verdict(0) == Verdict.LOST:
        return None
    # Stretches of plain moves: entries start..end-1, positions start..end.
    stretches = []
    start = None
    for i, entry in enumerate(moves):
        if entry == "undo":
            if start is not None:
                stretches.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        stretches.append((start, len(moves)))
    for start, end in stretches:
        if verdict(end) != Verdict.LOST:
            continue
        lo, hi = start, end  # position lo (before entry lo) not lost, position hi lost
        if verdict(lo) == Verdict.LOST:
            return None  # cannot happen unless an earlier position was judged unknown
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if verdict(mid) == Verdict.LOST:
                hi = mid
            else:
                lo = mid
        if verdict(lo) == Verdict.WON:
            return hi - 1
    return None
