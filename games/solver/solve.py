"""The entry point: an engine game or full state in, a ``SolveResult`` out."""

from typing import Any

from .result import SolveResult
from .search import search
from .variants import RULES

# The time budget when the caller gives neither a node nor a time budget.
DEFAULT_SECONDS = 10.0

HIDDEN = "??"


def full_state(game_or_state: Any) -> dict:
    """The full state dict of an engine ``Game`` or of a ``to_dict()`` dict.

    Raises ``ValueError`` for a player view: the solver needs every card.
    """
    state = game_or_state.to_dict() if hasattr(game_or_state, "to_dict") else game_or_state
    if not isinstance(state, dict) or "variant" not in state:
        raise ValueError("solve() takes an engine Game or its full to_dict() state")
    if state["variant"] not in RULES:
        raise ValueError(f"unknown variant {state['variant']!r}; known: {', '.join(RULES)}")
    piles = [*state["tableau"], state.get("stock", []), state.get("waste", [])]
    if any(card == HIDDEN for pile in piles for card in pile):
        raise ValueError("the solver needs the full state, not a player view with hidden cards")
    return state


def solve(
    game_or_state: Any, *, max_nodes: int | None = None, max_seconds: float | None = None
) -> SolveResult:
    """Search the position for a win.

    ``max_nodes`` caps the distinct positions visited and ``max_seconds`` the wall-clock time;
    with neither given the search gets ``DEFAULT_SECONDS``. The verdict is ``won`` (``moves``
    is the whole line from this position, automatic foundation moves included), ``lost`` (every
    reachable position was searched) or ``unknown`` (the budget ran out first).
    """
    state = full_state(game_or_state)
    if max_nodes is None and max_seconds is None:
        max_seconds = DEFAULT_SECONDS
    rules = RULES[state["variant"]](state)
    return search(rules, max_nodes=max_nodes, max_seconds=max_seconds)
