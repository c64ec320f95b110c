"""Constructed positions for the service tests: one move from the win, one move from stuck."""

from games.engine import new_game


def near_won_state(variant: str, left: int = 1) -> dict:
    """A position `left` moves from the win: every card home but the last `left` of one
    foundation, which lie on t0 lowest in front (Spiderweb: one complete suit, `left` 1)."""
    assert left == 1 or variant != "spiderweb"
    engine = new_game(variant, 7)
    state = engine.to_dict()
    decks = state["foundations"]
    n = len(decks)
    # Ace to King per foundation, suits cycling; Spiderweb keeps complete suits King first.
    suits = "CDHS"
    ranks = "A23456789TJQK"
    foundations = []
    for i in range(n):
        suit = suits[i % 4]
        pile = [rank + suit for rank in ranks]
        foundations.append(pile[::-1] if variant == "spiderweb" else pile)
    if variant == "penguin":
        beak = next(pile for pile in state["foundations"] if pile)[0][0]
        start = ranks.index(beak)
        circular = ranks[start:] + ranks[:start]
        foundations = [[rank + suits[i] for rank in circular] for i in range(4)]
    tableau = [[] for _ in state["tableau"]]
    if variant == "spiderweb":
        tableau[0] = foundations[-1]
        foundations[-1] = []
    else:
        tableau[0] = [foundations[-1].pop() for _ in range(left)]
    return {
        **state,
        "tableau": tableau,
        "down": [0] * len(tableau),
        "foundations": foundations,
        "cells": [None] * len(state["cells"]),
        "stock": [],
        "waste": [],
    }


def one_move_from_stuck_state() -> dict:
    """Penelope's Web where KH to the empty t7 leaves no move: fronts are 2s and 4s only."""
    fronts = ["2C", "2D", "2H", "2S", "4C", "4D"]
    rest = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    rest = [c for c in rest if c not in {*fronts, "4S", "KH"}]
    tableau = [rest[i * 7 : i * 7 + 7] + [front] for i, front in enumerate(fronts)]
    tableau.append(rest[42:] + ["4S", "KH"])
    tableau.append([])
    state = new_game("penelopes-web", 0).to_dict()
    return {**state, "tableau": tableau, "down": [0] * 8, "foundations": [[], [], [], []]}
