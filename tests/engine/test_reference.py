"""A second, deliberately plain reading of the rules (strings, no indexes, every src/dst/N
tried) checked against legal_moves() on random positions: scrambled states full of empty piles,
cells, runs and half-built foundations, and positions along random playouts."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import VARIANT_INFO, VARIANTS, Game, new_game

RANKS = "A23456789TJQK"


def rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def red(card: str) -> bool:
    return card[1] in "DH"


def card(r: int, suit: str) -> str:
    return RANKS[r - 1] + suit


def name(src: str, dst: str, n: int) -> str:
    return f"{src}-{dst}" if n == 1 else f"{src}-{dst}:{n}"


def onto_ace_foundation(c: str, f: list[str]) -> bool:
    """Up in suit from the Ace."""
    if not f:
        return rank(c) == 1
    return c[1] == f[-1][1] and rank(c) == rank(f[-1]) + 1


def reference_moves(d: dict) -> set[str]:
    """Every legal move of the position ``d``, read straight from the contract's rulings."""
    v, t, f = d["variant"], d["tableau"], d["foundations"]
    moves = set()
    if d["stock"]:
        moves.add("deal")
    tn = [f"t{i}" for i in range(len(t))]
    fn = [f"f{i}" for i in range(len(f))]
    if v in ("penelopes-web", "eighty-thieves"):
        sources = [(tn[i], p[-1]) for i, p in enumerate(t) if p]
        if v == "eighty-thieves" and d["waste"]:
            sources.append(("w", d["waste"][-1]))
        for src, c in sources:
            for j, p in enumerate(t):
                if tn[j] == src:
                    continue
                if v == "penelopes-web":
                    ok = rank(c) == 13 if not p else rank(p[-1]) == rank(c) + 1
                else:
                    ok = not p or (p[-1][1] == c[1] and rank(p[-1]) == rank(c) + 1)
                if ok:
                    moves.add(name(src, tn[j], 1))
            for j, found in enumerate(f):
                if onto_ace_foundation(c, found):
                    moves.add(name(src, fn[j], 1))
    elif v == "queenie":
        for i, p in enumerate(t):
            for n in range(1, len(p) + 1):
                back = p[-n]
                for j, q in enumerate(t):
                    if j == i:
                        continue
                    if (not q and rank(back) == 13) or (
                        q and rank(q[-1]) == rank(back) + 1 and red(q[-1]) != red(back)
                    ):
                        moves.add(name(tn[i], tn[j], n))
            for j, found in enumerate(f):
                if p and onto_ace_foundation(p[-1], found):
                    moves.add(name(tn[i], fn[j], 1))
    elif v == "spiderweb":
        for i, p in enumerate(t):
            for n in range(1, len(p) - d["down"][i] + 1):
                group = p[-n:]
                if any(
                    a[1] != b[1] or rank(a) != rank(b) + 1
                    for a, b in zip(group, group[1:], strict=False)
                ):
                    break
                for j, q in enumerate(t):
                    if j != i and (not q or rank(q[-1]) == rank(group[0]) + 1):
                        moves.add(name(tn[i], tn[j], n))
                for j, found in enumerate(f):
                    if not found and (n == 1 or (n == 13 and rank(group[0]) == 13)):
                        moves.add(name(tn[i], fn[j], n))
        for i, found in enumerate(f):
            if len(found) == 1:
                for j, q in enumerate(t):
                    if not q or rank(q[-1]) == rank(found[0]) + 1:
                        moves.add(name(fn[i], tn[j], 1))
    else:  # penguin
        beak = rank(next(p[0] for p in f if p))
        below_beak = (beak - 2) % 13 + 1

        def sits(x: str, y: str) -> bool:
            return x[1] == y[1] and rank(y) == rank(x) % 13 + 1 and rank(y) != beak

        def onto_tableau(back: str, q: list[str]) -> bool:
            return sits(back, q[-1]) if q else rank(back) == below_beak

        def onto_foundation(c: str, found: list[str]) -> bool:
            if not found:
                return rank(c) == beak
            return len(found) < 13 and c[1] == found[-1][1] and rank(c) == rank(found[-1]) % 13 + 1

        cells = d["cells"]
        cn = [f"c{i}" for i in range(len(cells))]
        singles = [(tn[i], p[-1]) for i, p in enumerate(t) if p]
        singles += [(cn[i], c) for i, c in enumerate(cells) if c]
        for src, c in singles:
            for j, cell in enumerate(cells):
                if cell is None and cn[j] != src:
                    moves.add(name(src, cn[j], 1))
            for j, found in enumerate(f):
                if onto_foundation(c, found):
                    moves.add(name(src, fn[j], 1))
            if src[0] == "c":
                for j, q in enumerate(t):
                    if onto_tableau(c, q):
                        moves.add(name(src, tn[j], 1))
        for i, p in enumerate(t):
            for n in range(1, len(p) + 1):
                group = p[-n:]
                if not all(sits(b, a) for a, b in zip(group, group[1:], strict=False)):
                    break
                for j, q in enumerate(t):
                    if j != i and onto_tableau(group[0], q):
                        moves.add(name(tn[i], tn[j], n))
    return moves


def next_down(v: str, c: str, beak: int, rng: random.Random) -> str | None:
    """A card that may be built on ``c`` in the tableau (for making runs in scrambled states)."""
    r = rank(c)
    if v == "penguin":
        return None if r == beak else card((r - 2) % 13 + 1, c[1])
    if r == 1:
        return None
    if v == "penelopes-web":
        return card(r - 1, rng.choice("CDHS"))
    if v == "queenie":
        return card(r - 1, rng.choice("CS" if red(c) else "DH"))
    return card(r - 1, c[1])


def scrambled(v: str, seed: int) -> dict:
    """A random but possible state of ``v``: random foundation builds, cells, stock and waste,
    and piles of random length, many ending in runs, some empty."""
    rng = random.Random(seed)
    info = VARIANT_INFO[v]
    pool = [card(r, s) for s in "CDHS" for r in range(1, 14)] * info["decks"]
    foundations = [[] for _ in range(info["foundations"])]
    beak = rng.randint(1, 13) if v == "penguin" else 1
    suits = [s for s in "CDHS" for _ in range(info["decks"])]
    rng.shuffle(suits)
    for i, suit in enumerate(suits):
        if v == "spiderweb":
            size = rng.choice([0, 0, 1, 13])
        elif v == "penguin":
            size = rng.randint(1, 13) if i < 3 else rng.randint(0, 13)
        else:
            size = rng.choice([0, rng.randint(0, 13)])
        if v == "spiderweb" and size == 1:
            build = [card(rng.randint(1, 13), suit)]
        elif v == "spiderweb":
            build = [card(r, suit) for r in range(13, 13 - size, -1)]
        else:
            build = [card((beak + k - 1) % 13 + 1, suit) for k in range(size)]
        for c in build:
            pool.remove(c)
        foundations[i] = build
    rng.shuffle(pool)
    cells = [None] * info["cells"]
    for i in range(len(cells)):
        if pool and rng.random() < 0.4:
            cells[i] = pool.pop()
    stock_size = min(
        len(pool),
        rng.choice([0, rng.randint(0, 25)]),
        {"eighty-thieves": 128}.get(v, 25 if v == "spiderweb" else 24),
    )
    stock = [pool.pop() for _ in range(stock_size)] if info["has_stock"] else []
    waste = (
        [pool.pop() for _ in range(rng.randint(0, min(5, len(pool))))] if info["has_waste"] else []
    )
    tableau = [[] for _ in range(info["tableau"])]
    whole_suit = []
    if v == "spiderweb" and rng.random() < 0.35:
        complete = [s for s in "CDHS" if all(card(r, s) in pool for r in range(1, 14))]
        if complete:
            whole_suit = [card(r, rng.choice(complete)) for r in range(13, 0, -1)]
            for c in whole_suit:
                pool.remove(c)
    while pool:
        pile = tableau[rng.randrange(len(tableau))]
        if rng.random() < 0.08 and len(tableau) > 1 and not any(p == [] for p in tableau):
            continue
        c = pool.pop()
        pile.append(c)
        while rng.random() < 0.6:
            nxt = next_down(v, pile[-1], beak, rng)
            if nxt is None or nxt not in pool:
                break
            pool.remove(nxt)
            pile.append(nxt)
    for i in rng.sample(range(len(tableau)), k=rng.randint(0, 2)):
        spare = tableau[i]
        tableau[i] = []
        tableau[(i + 1) % len(tableau)][:0] = spare
    tableau[rng.randrange(len(tableau))] += whole_suit
    dealt_down = [5, 5, 4, 4, 4, 0, 0]
    down = [
        rng.randint(0, min(dealt_down[i], max(len(p) - 1, 0))) if v == "spiderweb" and p else 0
        for i, p in enumerate(tableau)
    ]
    return {
        "variant": v,
        "tableau": tableau,
        "down": down,
        "foundations": foundations,
        "cells": cells,
        "stock": stock,
        "waste": waste,
    }


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_legal_moves_match_the_plain_reading_on_scrambled_positions(variant, seed):
    """On random possible states the engine lists exactly what the plain reading allows."""
    d = scrambled(variant, seed)
    g = Game.from_dict(d)
    assert set(g.legal_moves()) == reference_moves(d)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(4))
def test_legal_moves_match_the_plain_reading_along_playouts(variant, seed):
    """Along random playouts from real deals the engine agrees with the plain reading."""
    rng = random.Random(seed)
    g = new_game(variant, seed)
    for _ in range(250):
        moves = g.legal_moves()
        assert set(moves) == reference_moves(g.to_dict())
        if not moves:
            break
        g.play(rng.choice(moves))
