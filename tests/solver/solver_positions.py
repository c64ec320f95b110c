"""Small positions for the solver's tests: random endgames of each variant (few cards left, so an
exhaustive search through the engine alone can tell won from lost) and that search itself."""

import random

from games.engine import Game

RANKS = "A23456789TJQK"
SUITS = "CDHS"


def _suit_run(suit: str, start: int, length: int) -> list[str]:
    """``length`` cards of ``suit`` upwards from rank index ``start``, wrapping K to A."""
    return [RANKS[(start + k) % 13] + suit for k in range(length)]


def _scatter(rng: random.Random, cards: list[str], piles: int) -> list[list[str]]:
    """Cards dealt at random onto ``piles`` piles, every pile getting one first while they last
    (few empty piles make tight endgames)."""
    out: list[list[str]] = [[] for _ in range(piles)]
    for k, card in enumerate(cards):
        out[k if k < piles else rng.randrange(piles)].append(card)
    rng.shuffle(out)
    return out


def _heights(rng: random.Random, left: int, suits: int = 4) -> list[int]:
    """Foundation heights (cards home per suit) leaving ``left`` of 13 * suits cards out."""
    out = [13] * suits
    for _ in range(left):
        i = rng.choice([k for k in range(suits) if out[k] > 0])
        out[i] -= 1
    return out


def endgame(variant: str, seed: int, left: int = 7) -> dict:
    """A random, valid state of ``variant`` with about ``left`` cards not yet home."""
    rng = random.Random(f"{variant}/{seed}")
    state = {"variant": variant, "cells": [], "stock": [], "waste": []}
    if variant == "penelopes-web":
        h = _heights(rng, left)
        rest = [RANKS[r] + SUITS[s] for s in range(4) for r in range(h[s], 13)]
        rng.shuffle(rest)
        order = rng.sample(range(4), 4)
        state["foundations"] = [_suit_run(SUITS[s], 0, h[s]) for s in order]
        state["tableau"] = _scatter(rng, rest, 8)
        state["down"] = [0] * 8
    elif variant == "queenie":
        h = _heights(rng, left)
        rest = [RANKS[r] + SUITS[s] for s in range(4) for r in range(h[s], 13)]
        rng.shuffle(rest)
        n_stock = rng.choice([0, 0, 1, 2, 3, 7])
        n_stock = min(n_stock, len(rest))
        state["stock"], rest = rest[:n_stock], rest[n_stock:]
        state["foundations"] = [_suit_run(SUITS[s], 0, h[s]) for s in rng.sample(range(4), 4)]
        state["tableau"] = _scatter(rng, rest, 7)
        state["down"] = [0] * 7
    elif variant == "penguin":
        beak = rng.randrange(13)
        h = _heights(rng, left)
        if sum(1 for x in h if x) < 3:
            h = [max(x, 1) for x in h]
        rest = [RANKS[(beak + r) % 13] + SUITS[s] for s in range(4) for r in range(h[s], 13)]
        rng.shuffle(rest)
        cells: list = [None] * 7
        for i in rng.sample(range(7), min(len(rest) // 3, 3)):
            cells[i] = rest.pop()
        state["cells"] = cells
        state["foundations"] = [_suit_run(SUITS[s], beak, h[s]) for s in rng.sample(range(4), 4)]
        state["tableau"] = _scatter(rng, rest, 7)
        state["down"] = [0] * 7
    elif variant == "eighty-thieves":
        heights = [13] * 16
        for _ in range(left):
            i = rng.choice([k for k in range(16) if heights[k] > 0])
            heights[i] -= 1
        suits = [SUITS[k % 4] for k in range(16)]
        rng.shuffle(suits)
        rest = [RANKS[r] + suits[i] for i in range(16) for r in range(heights[i], 13)]
        rng.shuffle(rest)
        n_stock = min(rng.choice([0, 1, 2, 4]), len(rest))
        state["stock"], rest = rest[:n_stock], rest[n_stock:]
        n_waste = min(rng.choice([0, 0, 1, 2]), len(rest))
        state["waste"], rest = rest[:n_waste], rest[n_waste:]
        state["foundations"] = [_suit_run(suits[i], 0, heights[i]) for i in range(16)]
        state["tableau"] = _scatter(rng, rest, 10)
        state["down"] = [0] * 10
    elif variant == "spiderweb":
        # One suit out of its foundation: its top cards in order in one pile, the ``left``
        # lowest ones scattered (some face down or in the stock); cells possible.
        out = SUITS[rng.randrange(4)]
        left = min(left, 13)
        run = [RANKS[r] + out for r in range(12, left - 1, -1)]
        rest = [RANKS[r] + out for r in range(left)]
        rng.shuffle(rest)
        n_stock = min(rng.choice([0, 0, 5]), len(rest))
        state["stock"], rest = rest[:n_stock], rest[n_stock:]
        foundations: list[list[str]] = [
            list(reversed(_suit_run(s, 0, 13))) for s in SUITS if s != out
        ]
        foundations.append([rest.pop()] if rest and rng.random() < 0.5 else [])
        rng.shuffle(foundations)
        tableau = _scatter(rng, rest, 7)
        tableau[rng.randrange(7)][:0] = run
        caps = [5, 5, 4, 4, 4, 0, 0]
        state["down"] = [
            rng.randint(0, min(caps[i], max(len(p) - 1, 0))) for i, p in enumerate(tableau)
        ]
        state["foundations"] = foundations
        state["tableau"] = tableau
    else:
        raise ValueError(variant)
    Game.from_dict(state)  # the engine accepts it
    return state


def _frozen(game: Game) -> tuple:
    """The position: what ``to_dict`` says of it but the move count and the seed, as the
    engine's own card numbers (the same data without naming each card and writing JSON, which
    were half of the search's time)."""
    return (
        tuple(map(tuple, game.t)),
        tuple(game.down),
        tuple(map(tuple, game.f)),
        tuple(map(tuple, game.c)),
        tuple(game.stock),
        tuple(game.w),
    )


def exhaustive_verdict(state: dict, cap: int = 200_000) -> str | None:
    """``won`` or ``lost`` by trying every legal move of the engine from ``state`` (no
    canonical keys, no pruning, nothing of the solver's); None past ``cap`` positions.

    Depth first on one game, each move played and then taken back with the engine's undo
    (copying the game for each position cost as much as the rest of the search)."""
    game = Game.from_dict(state)
    if game.is_won():
        return "won"
    seen = {_frozen(game)}
    line = [reversed(game.legal_moves())]  # the moves left to try at each depth of the line
    while line:
        move = next(line[-1], None)
        if move is None:
            line.pop()
            if line:
                game.undo()  # back to the position whose move led here
            continue
        game.play(move)
        key = _frozen(game)
        if key in seen:
            game.undo()
            continue
        seen.add(key)
        if game.is_won():
            return "won"
        if len(seen) > cap:
            return None
        line.append(reversed(game.legal_moves()))
    return "lost"


def replays_to_a_win(state: dict, moves: list[str]) -> bool:
    """Whether playing ``moves`` on the engine from ``state`` wins (IllegalMove propagates)."""
    game = Game.from_dict(state)
    for move in moves:
        game.play(move)
    return game.is_won()
