"""The interface every variant's search rules implement."""

from collections.abc import Hashable, Iterator
from typing import Any

Position = Any


class Rules:
    """One variant's rules, on the solver's own compact positions (tuples of ints).

    ``start`` is the given position after the safe automatic moves, ``start_notes`` those
    moves in contract notation. ``children`` yields ``(child, notes)`` best first, where
    ``notes`` are the contract moves that lead there (the chosen move, then any automatic
    ones). Moves that can never matter are left out, so a search that spends every child
    proves the position lost.
    """

    variant: str = ""
    strategy: str = "best"  # "best" (best-first on score) or "dfs" (depth-first, rules' order)
    # Best-first only: names of score methods tried in turn, each with an equal share of what
    # is left of the budget (the first that reaches a verdict answers).
    portfolio: tuple[str, ...] = ("score",)
    start: Position
    start_notes: list[str]

    # Optional: ``hopeless(pos)`` is True for positions provably lost (their subtree is cut).
    hopeless = None

    def children(self, pos: Position) -> Iterator[tuple[Position, list[str]]]:
        raise NotImplementedError

    def key(self, pos: Position) -> Hashable:
        raise NotImplementedError

    def is_won(self, pos: Position) -> bool:
        raise NotImplementedError

    def score(self, pos: Position) -> int:
        """How far the position looks from a win (lower is better): guides the search only."""
        raise NotImplementedError


def unjoined(piles, sits_on) -> int:
    """Cards in the tableau that do not sit on a card they build on (each pile's back card
    counts): how many pieces the tableau is in. ``sits_on(below, above)`` says whether
    ``above`` builds on ``below``."""
    n = 0
    for p in piles:
        if p:
            n += 1
            for a, b in zip(p, p[1:], strict=False):
                if not sits_on(a, b):
                    n += 1
    return n


def in_suit(below: int, above: int) -> bool:
    """``above`` is ``below``'s suit and one rank lower."""
    return below == above + 4
