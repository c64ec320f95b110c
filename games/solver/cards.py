"""Cards as small ints, so that piles are tuples of ints that hash and compare fast.

A card is ``rank * 4 + suit``: rank 1 (Ace) … 13 (King), suit 0..3 in the contract's order
C, D, H, S. ``card >> 2`` is the rank, ``card & 3`` the suit, and the card one rank higher in
the same suit is ``card + 4``.
"""

RANKS = "A23456789TJQK"
SUITS = "CDHS"
KING = 13


def parse(card: str) -> int:
    """The int code of a contract card string such as ``"TS"``."""
    try:
        return (RANKS.index(card[0]) + 1) * 4 + SUITS.index(card[1])
    except (ValueError, IndexError, TypeError):
        raise ValueError(f"not a card: {card!r}") from None


def is_red(card: int) -> bool:
    """Diamonds and hearts are red."""
    return (card & 3) in (1, 2)


def name(card: int) -> str:
    """The contract string of a card code (for messages and debugging)."""
    return RANKS[(card >> 2) - 1] + SUITS[card & 3]
