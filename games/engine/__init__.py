"""The rules engine: deals, move checking and legal moves for five patience variants.

Plain Python on plain data, importing nothing from the web stack. The public face (API, card
and move notation, state dict, rulings) is set out in ``docs/engine.md``, section "Public API,
notation and rulings"; the rest of that page gives the deal algorithm, dealing orders and the
choices made where that section is silent.
"""

from typing import Any

from .eighty_thieves import EightyThieves
from .errors import IllegalMove
from .game import Game
from .penelopes_web import PenelopesWeb
from .penguin import Penguin
from .queenie import Queenie
from .spiderweb import Spiderweb

_CLASSES: dict[str, type[Game]] = {
    cls.VARIANT: cls for cls in (PenelopesWeb, EightyThieves, Penguin, Spiderweb, Queenie)
}

VARIANTS: tuple[str, ...] = tuple(_CLASSES)
"""The five variant ids, in the contract's order."""

VARIANT_INFO: dict[str, dict[str, Any]] = {
    variant: {
        "name": cls.NAME,
        "decks": cls.DECKS,
        "tableau": cls.TABLEAU,
        "foundations": cls.FOUNDATIONS,
        "cells": cls.CELLS,
        "has_stock": cls.HAS_STOCK,
        "has_waste": cls.HAS_WASTE,
        "summary": cls.SUMMARY,
    }
    for variant, cls in _CLASSES.items()
}
"""Per variant id: its name, layout sizes and a one-line summary for the home page."""


def new_game(variant: str, seed: int) -> Game:
    """The deal of (variant, seed); ValueError for an unknown variant or a bad seed."""
    cls = _CLASSES.get(variant) if isinstance(variant, str) else None
    if cls is None:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    return cls.from_seed(seed)


__all__ = ["VARIANTS", "VARIANT_INFO", "Game", "IllegalMove", "new_game"]
