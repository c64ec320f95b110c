"""Cards as small ints, with lookup tables, so the rules never re-parse a string.

A card is ``suit * 13 + rank - 1`` (0..51): suits in the order clubs, diamonds, hearts,
spades, ranks Ace = 1 … King = 13. The card one rank higher in the same suit is therefore
``card + 1`` (when the rank is below a King). Eighty Thieves uses each id four times.
"""

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

ACE = 1
KING = 13

NAMES = [r + s for s in SUIT_CHARS for r in RANK_CHARS]
"""Contract notation of each card id: ``NAMES[12] == "KC"``."""

CARD_BY_NAME = {name: card for card, name in enumerate(NAMES)}
RANK = [card % 13 + 1 for card in range(52)]
SUIT = [card // 13 for card in range(52)]
RED = [SUIT[card] in (1, 2) for card in range(52)]
PRETTY = [RANK_LABELS[RANK[c] - 1] + SUIT_SYMBOLS[SUIT[c]] for c in range(52)]
"""What a player reads: ``PRETTY[CARD_BY_NAME["TH"]] == "10♥"``."""

RANK_WORDS = (
    "an Ace",
    "a 2",
    "a 3",
    "a 4",
    "a 5",
    "a 6",
    "a 7",
    "an 8",
    "a 9",
    "a 10",
    "a Jack",
    "a Queen",
    "a King",
)
"""A rank in a sentence: ``RANK_WORDS[rank - 1]``."""


def card_of(rank: int, suit: int) -> int:
    """The id of the card of this rank (1..13) and suit index (0..3)."""
    return suit * 13 + rank - 1


def pretty(name: str) -> str:
    """A contract card name as a player reads it ("TH" -> "10♥"); unknown strings unchanged."""
    card = CARD_BY_NAME.get(name)
    return name if card is None else PRETTY[card]
