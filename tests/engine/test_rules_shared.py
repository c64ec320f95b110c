"""Rules several variants share, each parametrised over the variants it holds for: foundations
from the Ace, nothing leaving a foundation, the stock running out, and no stock at all."""

import pytest

ACE_FOUNDATIONS = ["penelopes-web", "eighty-thieves", "queenie"]
WITH_STOCK = ["eighty-thieves", "spiderweb", "queenie"]
WITHOUT_STOCK = ["penelopes-web", "penguin"]


@pytest.mark.parametrize("variant", ACE_FOUNDATIONS)
@pytest.mark.parametrize(
    ("card", "foundation", "allowed", "reason"),
    [
        ("AS", [], True, None),
        ("5S", [], False, "only an Ace may start a foundation, not 5♠"),
        ("2S", ["AS"], True, None),
        ("2H", ["AS"], False, "2♥ cannot go on A♠"),
        ("3S", ["AS"], False, "3♠ cannot go on A♠"),
        ("KS", [r + "S" for r in "A23456789TJQ"], True, None),
    ],
)
def test_foundations_build_up_in_suit_from_the_ace(
    position, check, variant, card, foundation, allowed, reason
):
    """Only an Ace starts a foundation; then only the next card of its suit, up to the King."""
    g = position(variant, tableau={0: ["9D", card]}, foundations={0: foundation})
    check(g, "t0-f0", allowed, reason)


@pytest.mark.parametrize("variant", ACE_FOUNDATIONS + ["penguin"])
@pytest.mark.parametrize("dst", ["t1", "c0"])
def test_cards_never_leave_a_foundation(position, check, variant, dst):
    """A card on a foundation stays there, even towards an empty pile or cell."""
    foundations = {0: ["AC", "2C"], 1: ["AD"], 2: ["AH"]}
    g = position(variant, tableau={1: []}, foundations=foundations)
    check(g, f"f0-{dst}", False, "never leave a foundation" if dst == "t1" else None)


@pytest.mark.parametrize("variant", WITH_STOCK)
def test_deal_from_an_empty_stock_is_refused(position, check, variant):
    """No redeal: once the stock is gone, deal is refused."""
    check(position(variant), "deal", False, "the stock is empty")


@pytest.mark.parametrize("variant", WITHOUT_STOCK)
def test_there_is_no_stock_to_deal_from(position, check, variant):
    """All cards are dealt at the start: deal is refused."""
    check(position(variant), "deal", False, "there is no stock")
