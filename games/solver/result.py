"""What a search answers: a verdict, and the winning line when there is one."""

from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    """``won``: a winning line was found; ``lost``: every reachable position was searched and
    none is won; ``unknown``: the budget ran out first."""

    WON = "won"
    LOST = "lost"
    UNKNOWN = "unknown"


@dataclass
class SolveResult:
    """The outcome of one search.

    ``moves`` is the whole winning line from the given position in contract notation (the safe
    foundation moves the solver made on its own included), empty unless the verdict is won.
    ``nodes`` counts distinct positions visited; ``seconds`` is wall-clock time.
    """

    verdict: Verdict
    moves: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict:
        """The plain-data form the ``solve --json`` command prints."""
        return {
            "verdict": str(self.verdict),
            "moves": list(self.moves),
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
        }
