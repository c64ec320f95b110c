"""Builders for engine tests: positions from a few named piles, and move checks that also
prove the listing exact (every syntactically possible move string is tried)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from games.engine import VARIANT_INFO, Game, IllegalMove
from games.engine.cards import NAMES

DEFAULT_FOUNDATIONS = {"penguin": [["AC"], ["AD"], ["AH"], []]}
"""Penguin needs three started foundations; by default the beak is an Ace."""


def build(
    variant: str,
    tableau: dict[int, list[str]] | None = None,
    foundations: dict[int, list[str]] | None = None,
    cells: dict[int, str] | None = None,
    stock: list[str] | None = None,
    waste: list[str] | None = None,
    down: dict[int, int] | None = None,
    rest: str | None = None,
) -> Game:
    """A position of ``variant``: the named piles as given, every card not named dealt in
    card order onto the tableau piles not named (or onto ``rest``: "stock", "waste", or a
    tableau pile such as "t3", in front of whatever was named for it), so that the state holds
    exactly the variant's deck(s)."""
    info = VARIANT_INFO[variant]
    tableau = dict(tableau or {})
    piles = [list(tableau.get(i, [])) for i in range(info["tableau"])]
    f = [[] for _ in range(info["foundations"])]
    if foundations is None:
        f = [list(p) for p in DEFAULT_FOUNDATIONS.get(variant, f)]
    else:
        for i, p in foundations.items():
            f[i] = list(p)
    c = [None] * info["cells"]
    for i, card in (cells or {}).items():
        c[i] = card
    stock = list(stock or [])
    waste = list(waste or [])
    used = Counter(card for group in (piles, f, [stock, waste]) for p in group for card in p)
    used.update(card for card in c if card)
    left = []
    for name in NAMES:
        extra = info["decks"] - used[name]
        assert extra >= 0, f"{name} named {used[name]} times"
        left += [name] * extra
    if rest == "stock":
        stock += left
    elif rest == "waste":
        waste = left + waste
    elif rest:
        piles[int(rest[1:])] = left + piles[int(rest[1:])]
    else:
        free = [i for i in range(info["tableau"]) if i not in tableau]
        assert free or not left, "no pile left for the rest of the deck: pass rest="
        for n, i in enumerate(free):
            piles[i] = left[n * len(left) // len(free) : (n + 1) * len(left) // len(free)]
    d = {
        "variant": variant,
        "tableau": piles,
        "down": [(down or {}).get(i, 0) for i in range(info["tableau"])],
        "foundations": f,
        "cells": c,
        "stock": stock,
        "waste": waste,
    }
    return Game.from_dict(d)


def without_suffix_one(move: str) -> str:
    """``t1-t2:1`` is the same move as ``t1-t2``."""
    return move[:-2] if move.endswith(":1") else move


def every_move_string(game: Game) -> Iterator[str]:
    """Every syntactically possible move naming piles up to one past each range, with every
    count up to one past the source pile's length (and ``:1`` spelled out too)."""
    info = VARIANT_INFO[game.variant]
    d = game.to_dict()
    sizes = {"w": len(d["waste"])}
    for kind, key in (("t", "tableau"), ("f", "foundations"), ("c", "cells")):
        piles = d[key] + [[]]
        for i in range(info[key]):
            sizes[f"{kind}{i}"] = len(piles[i]) if kind != "c" else int(piles[i] is not None)
        sizes[f"{kind}{info[key]}"] = 0
    yield "deal"
    for src, size in sizes.items():
        for dst in sizes:
            if src != dst:
                yield f"{src}-{dst}"
                for n in range(1, size + 2):
                    yield f"{src}-{dst}:{n}"


def accepted_moves(game: Game) -> set[str]:
    """Every move string play() accepts here (each played and undone), in canonical form;
    asserts that refused ones change nothing and that undo restores the position."""
    before = game.to_dict()
    accepted = set()
    for move in every_move_string(game):
        try:
            game.play(move)
        except IllegalMove:
            continue
        accepted.add(without_suffix_one(move))
        game.undo()
        assert game.to_dict() == before, f"undo of {move} did not restore the position"
    assert game.to_dict() == before
    return accepted


def assert_listing_exact(game: Game) -> None:
    """legal_moves() is exactly the set of move strings play() accepts, each listed once,
    one card without a suffix."""
    listed = game.legal_moves()
    assert len(listed) == len(set(listed)), "a move is listed twice"
    assert not [m for m in listed if m.endswith(":1")], "a single card is listed with :1"
    assert set(listed) == accepted_moves(game)


def check_move(game: Game, move: str, allowed: bool, reason: str | None = None) -> None:
    """``move`` is legal (listed, and plays) or refused (not listed, IllegalMove whose message
    contains ``reason``, nothing changed); either way the listing is exact."""
    assert_listing_exact(game)
    before = game.to_dict()
    if allowed:
        assert without_suffix_one(move) in game.legal_moves()
        game.play(move)
        assert game.to_dict() != before
        game.undo()
        assert game.to_dict() == before
    else:
        assert without_suffix_one(move) not in game.legal_moves()
        with pytest.raises(IllegalMove) as refused:
            game.play(move)
        if reason is not None:
            assert reason in str(refused.value)
        assert game.to_dict() == before


@pytest.fixture
def position():
    """The ``build`` helper, as a fixture."""
    return build


@pytest.fixture
def check():
    """The ``check_move`` helper, as a fixture."""
    return check_move


@pytest.fixture
def listing_exact():
    """The ``assert_listing_exact`` helper, as a fixture."""
    return assert_listing_exact
