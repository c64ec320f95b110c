"""Deals are a pure function of (variant, seed), the same everywhere: pinned golden deals, the
documented shuffle re-implemented independently, the documented dealing order per variant."""

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from games.engine import VARIANT_INFO, VARIANTS, new_game
from games.engine.cards import NAMES

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_deals.json").read_text())
STATE_KEYS = ("tableau", "down", "foundations", "cells", "stock", "waste")


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_golden_deals_never_change(key):
    """The deal of each pinned (variant, seed) is exactly the stored one."""
    variant, seed = key.split()
    d = new_game(variant, int(seed)).to_dict()
    assert {k: d[k] for k in STATE_KEYS} == GOLDEN[key]


def test_every_variant_has_at_least_two_golden_seeds():
    """The golden file covers each variant more than once."""
    counts = Counter(key.split()[0] for key in GOLDEN)
    assert all(counts[v] >= 2 for v in VARIANTS)


def reference_shuffle(variant: str, seed: int, deck: list[str]) -> list[str]:
    """The shuffle as docs/engine.md describes it, written again from the text."""
    key = f"solitaire-race:{variant}:{seed}".encode()
    words = []
    counter = 0

    def next_word():
        nonlocal counter
        if not words:
            digest = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
            words.extend(int.from_bytes(digest[k : k + 4], "big") for k in range(28, -1, -4))
            counter += 1
        return words.pop()

    deck = list(deck)
    for i in range(len(deck) - 1, 0, -1):
        bound = 2**32 - 2**32 % (i + 1)
        u = next_word()
        while u >= bound:
            u = next_word()
        j = u % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def reference_deal(variant: str, seed: int) -> dict:
    """The dealing order docs/engine.md states for each variant, written again from the text."""
    info = VARIANT_INFO[variant]
    deck = reference_shuffle(variant, seed, NAMES * info["decks"])
    sizes = {
        "penelopes-web": [7, 7, 7, 7, 6, 6, 6, 6],
        "eighty-thieves": [8] * 10,
        "penguin": [7] * 7,
        "spiderweb": [6, 6, 5, 5, 5, 0, 0],
        "queenie": [1, 2, 3, 4, 5, 6, 7],
    }[variant]
    foundations = [[] for _ in range(info["foundations"])]
    if variant == "penguin":
        beak = deck[0]
        starters = [c for c in deck[1:] if c[0] == beak[0]]
        foundations = [[c] for c in starters] + [[]]
        deck = [beak] + [c for c in deck[1:] if c[0] != beak[0]]
    tableau = [[] for _ in sizes]
    for row in range(max(sizes)):
        for i, size in enumerate(sizes):
            if row < size:
                tableau[i].append(deck.pop(0))
    return {
        "tableau": tableau,
        "down": [5, 5, 4, 4, 4, 0, 0] if variant == "spiderweb" else [0] * len(sizes),
        "foundations": foundations,
        "cells": [None] * info["cells"],
        "stock": deck,
        "waste": [],
    }


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", [0, 3, 77, 123456789, 2**63 - 1])
def test_deals_follow_the_documented_shuffle_and_dealing_order(variant, seed):
    """new_game equals the shuffle and layout described in docs/engine.md."""
    d = new_game(variant, seed).to_dict()
    assert {k: d[k] for k in STATE_KEYS} == reference_deal(variant, seed)


@pytest.mark.parametrize("variant", VARIANTS)
def test_different_seeds_give_different_deals(variant):
    """Neighbouring seeds deal different games; the same seed deals the same game."""
    deals = [json.dumps(new_game(variant, s).to_dict()["tableau"]) for s in range(20)]
    assert len(set(deals)) == 20
    assert new_game(variant, 5).to_dict() == new_game(variant, 5).to_dict()


@pytest.mark.parametrize(
    ("variant", "piles", "stock", "down"),
    [
        ("penelopes-web", [7, 7, 7, 7, 6, 6, 6, 6], 0, [0] * 8),
        ("eighty-thieves", [8] * 10, 128, [0] * 10),
        ("penguin", [7] * 7, 0, [0] * 7),
        ("spiderweb", [6, 6, 5, 5, 5, 0, 0], 25, [5, 5, 4, 4, 4, 0, 0]),
        ("queenie", [1, 2, 3, 4, 5, 6, 7], 24, [0] * 7),
    ],
)
def test_the_layout_at_the_deal(variant, piles, stock, down):
    """Pile sizes, stock size and face-down counts are the contract's table."""
    d = new_game(variant, 8).to_dict()
    assert [len(p) for p in d["tableau"]] == piles
    assert len(d["stock"]) == stock
    assert d["down"] == down
    assert d["waste"] == []


@pytest.mark.parametrize("seed", range(10))
def test_penguin_beak_is_t0s_back_card_and_its_rank_starts_three_foundations(seed):
    """The beak (first card of the shuffled deck) is t0's back card; the other three cards of
    its rank are on f0, f1, f2; f3 is empty; the cells are empty."""
    d = new_game("penguin", seed).to_dict()
    beak = reference_shuffle("penguin", seed, NAMES)[0]
    assert d["tableau"][0][0] == beak
    assert [len(f) for f in d["foundations"]] == [1, 1, 1, 0]
    assert {f[0][0] for f in d["foundations"][:3]} == {beak[0]}
    assert d["cells"] == [None] * 7


@pytest.mark.parametrize("seed", [0, 1, 2**63 - 1, 2**62])
def test_seeds_from_zero_to_two_to_the_63_minus_one_are_accepted(seed):
    """Every seed in 0..2**63-1 deals."""
    assert new_game("penguin", seed).seed == seed


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, True, False, 1.0, "1", None, [1]])
def test_other_seeds_are_refused(seed):
    """Negative, too large, bool or non-int seeds raise ValueError."""
    with pytest.raises(ValueError, match="seed"):
        new_game("penguin", seed)


@pytest.mark.parametrize("variant", ["klondike", "", None, "Penguin", 3])
def test_unknown_variants_are_refused(variant):
    """new_game names the known variants when given another."""
    with pytest.raises(ValueError, match="unknown variant"):
        new_game(variant, 1)
