"""Foundations built up in suit from the Ace to the King (Penelope's Web, Eighty Thieves,
Queenie): the move check, the listing helper and the state check."""

from .cards import ACE, KING, NAMES, PRETTY, RANK
from .errors import IllegalMove


def foundation_targets(foundations: list[list[int]]) -> tuple[list[int], dict[int, list[int]]]:
    """The empty foundations (any Ace may go to each), and for every other card that fits
    somewhere, the foundations it fits on."""
    empty = []
    wanted: dict[int, list[int]] = {}
    for j, pile in enumerate(foundations):
        if not pile:
            empty.append(j)
        elif RANK[pile[-1]] < KING:
            card = pile[-1] + 1
            if card in wanted:
                wanted[card].append(j)
            else:
                wanted[card] = [j]
    return empty, wanted


def check_onto_foundation(card: int, foundation: list[int]) -> None:
    """Raise IllegalMove unless ``card`` is the next card for ``foundation``."""
    if not foundation:
        if RANK[card] != ACE:
            raise IllegalMove(f"only an Ace may start a foundation, not {PRETTY[card]}")
        return
    top = foundation[-1]
    if RANK[top] == KING:
        raise IllegalMove(f"{PRETTY[card]} cannot go on a finished foundation")
    if card != top + 1:
        raise IllegalMove(f"{PRETTY[card]} cannot go on {PRETTY[top]} on a foundation")


def check_builds(variant_name: str, foundations: list[list[int]]) -> None:
    """ValueError unless every foundation is A, 2, 3, … of one suit (at most 13 cards)."""
    for i, pile in enumerate(foundations):
        if pile and (
            RANK[pile[0]] != ACE
            or len(pile) > 13
            or pile != list(range(pile[0], pile[0] + len(pile)))
        ):
            raise ValueError(
                f"foundation {i} of {variant_name} is not built up in suit from the Ace: "
                + " ".join(NAMES[c] for c in pile)
            )
