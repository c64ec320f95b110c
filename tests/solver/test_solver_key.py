"""The canonical key merges positions that differ only by how interchangeable piles are numbered,
and keeps apart those that are not interchangeable."""

import random

import pytest

from games.engine import new_game
from games.solver.variants import RULES


def rules_and_start(variant: str, seed: int = 5):
    rules = RULES[variant](new_game(variant, seed).to_dict())
    return rules, rules.start


@pytest.mark.parametrize("variant", ["penelopes-web", "eighty-thieves"])
def test_permuted_tableau_piles_share_a_key(variant):
    """Tableau piles are all alike (and so are foundation piles): shuffling them keeps the key."""
    rules, pos = rules_and_start(variant)
    piles = list(pos[0])
    random.Random(1).shuffle(piles)
    assert rules.key((tuple(piles), *pos[1:])) == rules.key(pos)


def test_penguin_cells_and_piles_permuted_share_a_key():
    """Penguin: cards in different cells, and piles in another order, give the same key."""
    rules, pos = rules_and_start("penguin")
    piles, cells, found, fmap = pos
    a = tuple(p[:-1] for p in piles)
    moved = tuple(p[-1] for p in piles[:3])
    one = (a[:3] + piles[3:], moved + (0, 0, 0, 0), found, fmap)
    other = (tuple(reversed(one[0])), (0, 0) + tuple(reversed(moved)) + (0, 0), found, fmap)
    assert rules.key(one) == rules.key(other)


def test_penguin_different_cells_differ():
    """Penguin: a different card in a cell is a different position."""
    rules, pos = rules_and_start("penguin")
    piles, cells, found, fmap = pos
    one = (piles, (piles[0][0],) + cells[1:], found, fmap)
    other = (piles, (piles[1][0],) + cells[1:], found, fmap)
    assert rules.key(one) != rules.key(other)


def test_spiderweb_undealt_piles_are_alike_but_dealt_ones_are_not():
    """Spiderweb with stock left: t5 and t6 (never dealt to) swap freely, but t0 and t1 each get
    their own stock cards, so swapping them is another position."""
    rules, pos = rules_and_start("spiderweb")
    piles, down, fnd, dealt = pos
    with_t5 = (piles[:5] + (piles[4][-1:], ()), down, fnd, dealt)
    with_t6 = (piles[:5] + ((), piles[4][-1:]), down, fnd, dealt)
    assert rules.key(with_t5) == rules.key(with_t6)
    swapped = ((piles[1], piles[0]) + piles[2:], (down[1], down[0]) + down[2:], fnd, dealt)
    assert rules.key(swapped) != rules.key(pos)


def test_spiderweb_cells_are_alike():
    """Spiderweb: the same card in foundation 0 or foundation 3 (used as a cell) is one position."""
    rules, pos = rules_and_start("spiderweb")
    piles, down, fnd, dealt = pos
    card = piles[0][-1]
    assert rules.key((piles, down, (card, 0, 0, 0), dealt)) == rules.key(
        (piles, down, (0, 0, 0, card), dealt)
    )


def test_queenie_piles_are_alike_only_once_the_stock_is_out():
    """Queenie: every pile gets its own stock cards, so piles sort in the key only when the
    stock is empty."""
    rules, pos = rules_and_start("queenie")
    piles, found, fmap, dealt = pos
    swapped = ((piles[1], piles[0]) + piles[2:], found, fmap, dealt)
    assert rules.key(swapped) != rules.key(pos)
    out = len(rules.stock)
    assert rules.key((swapped[0], found, fmap, out)) == rules.key((piles, found, fmap, out))
