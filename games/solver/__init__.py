"""The solver: searches a position with full information (face-down and stock cards included)
and answers won (with the winning line), lost (proved), or unknown (budget spent).

Pure Python on plain data, no Django. It converts the engine's full state dict into compact
positions of its own and never searches through the engine's public ``Game`` API; its moves
come out in the contract's notation, so a win can be checked by replaying it on the engine.
"""

from .analysis import first_losing_move, first_losing_move_from, hint
from .result import SolveResult, Verdict
from .solve import DEFAULT_SECONDS, solve

__all__ = [
    "DEFAULT_SECONDS",
    "SolveResult",
    "Verdict",
    "first_losing_move",
    "first_losing_move_from",
    "hint",
    "solve",
]
