"""Queenie: one deck, seven piles of 1..7, any group moves, a stock dealt onto every pile."""

from .builds import check_onto_foundation, foundation_targets
from .cards import ACE, KING, PRETTY, RANK, RED, card_of
from .errors import IllegalMove
from .game import Game
from .notation import DEAL, SUFFIX, TF, TT

ALTERNATE_BELOW = [
    ()
    if RANK[top] == ACE
    else tuple(card_of(RANK[top] - 1, suit) for suit in ((0, 3) if RED[top] else (1, 2)))
    for top in range(52)
]
"""For every card, the two cards that may go on it: one rank lower, of the other colour."""

KINGS = tuple(card_of(KING, suit) for suit in range(4))


class Queenie(Game):
    """Any card moves with all the cards in front of it; the group's back card goes onto a
    card one rank higher of the other colour, or onto an empty pile if it is a King. Front
    cards go to foundations built up in suit from the Ace."""

    VARIANT = "queenie"
    NAME = "Queenie"
    TABLEAU = 7
    PILE_SIZES = (1, 2, 3, 4, 5, 6, 7)
    HAS_STOCK = True
    MAX_STOCK = 24
    DEAL_ONTO = 7
    SUMMARY = (
        "Seven face-up piles of one to seven cards: move any card with everything in front of "
        "it, build down in alternate colours, and deal a card onto every pile."
    )

    def legal_moves(self):
        out = []
        # a card -> the piles a group with that card at its back may go onto
        targets: dict[int, list[int]] = {}
        empty_t = []
        for i, pile in enumerate(self.t):
            if pile:
                for card in ALTERNATE_BELOW[pile[-1]]:
                    if card in targets:
                        targets[card].append(i)
                    else:
                        targets[card] = [i]
            else:
                empty_t.append(i)
        if empty_t:
            for king in KINGS:
                targets[king] = empty_t
        empty_f, wanted = foundation_targets(self.f)
        for i, pile in enumerate(self.t):
            if not pile:
                continue
            names = TT[i]
            for k, back in enumerate(reversed(pile), 1):
                if back in targets:
                    for j in targets[back]:
                        if j != i:
                            out.append(names[j] + SUFFIX[k])
            card = pile[-1]
            names = TF[i]
            for j in empty_f if RANK[card] == ACE else wanted.get(card, ()):
                out.append(names[j])
        if self.stock:
            out.append(DEAL)
        return out

    def _check(self, sk, si, src, dk, di, dst, n):
        if dk == "f":
            if n != 1:
                raise IllegalMove("only front cards go to a foundation, one at a time")
            check_onto_foundation(src[-1], dst)
            return
        back = src[-n]
        if not dst:
            if RANK[back] != KING:
                raise IllegalMove(f"only a King may fill an empty pile, not {PRETTY[back]}")
        else:
            top = dst[-1]
            if RANK[top] != RANK[back] + 1 or RED[top] == RED[back]:
                raise IllegalMove(f"{PRETTY[back]} cannot go on {PRETTY[top]}")
