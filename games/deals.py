"""Fresh random deals: the server's secret draw, never a deal that is over before it starts.

About one Penelope's Web deal in a hundred has no move at all: a race or a practice game on it
would end at the first look, so such a deal is drawn again. Practice and races share this draw;
the winnable-deal search draws from it too.
"""

from __future__ import annotations

import secrets

from games.engine import new_game
from games.engine.shuffle import MAX_SEED

DRAWS = 64
"""Draws before giving up on a deal with a move; one deal in a hundred is dead, so 64 in a row
never happen in practice (and the last draw is then dealt anyway)."""


def random_seed(variant: str, bound: int = MAX_SEED + 1) -> int:
    """A seed from 0 to `bound` - 1, drawn from the OS's secret source, whose deal has a move."""
    for _ in range(DRAWS):
        seed = secrets.randbelow(bound)
        if new_game(variant, seed).legal_moves():
            break
    return seed
