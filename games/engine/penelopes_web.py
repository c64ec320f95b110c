"""Penelope's Web: one deck, eight face-up piles, single cards down regardless of suit."""

from .builds import check_onto_foundation, foundation_targets
from .cards import ACE, KING, PRETTY, RANK
from .errors import IllegalMove
from .game import Game
from .notation import TF, TT


class PenelopesWeb(Game):
    """Only front cards move, one at a time: onto a card one rank higher of any suit, onto an
    empty pile only if a King, to a foundation built up in suit from the Ace."""

    VARIANT = "penelopes-web"
    NAME = "Penelope's Web"
    TABLEAU = 8
    PILE_SIZES = (7, 7, 7, 7, 6, 6, 6, 6)
    SUMMARY = (
        "Eight face-up piles and no stock: build down regardless of suit, one card at a time; "
        "only a King may fill a space."
    )

    def legal_moves(self):
        out = []
        empty_f, wanted = foundation_targets(self.f)
        by_rank = {}
        empty_t = []
        for i, pile in enumerate(self.t):
            if pile:
                r = RANK[pile[-1]]
                if r in by_rank:
                    by_rank[r].append(i)
                else:
                    by_rank[r] = [i]
            else:
                empty_t.append(i)
        for i, pile in enumerate(self.t):
            if not pile:
                continue
            card = pile[-1]
            r = RANK[card]
            names = TT[i]
            for j in empty_t if r == KING else by_rank.get(r + 1, ()):
                out.append(names[j])
            names = TF[i]
            for j in empty_f if r == ACE else wanted.get(card, ()):
                out.append(names[j])
        return out

    def _check(self, sk, si, src, dk, di, dst, n):
        if sk != "t":
            raise IllegalMove("cards never leave a foundation")
        if n != 1:
            raise IllegalMove("only single cards move in Penelope's Web")
        card = src[-1]
        if dk == "f":
            check_onto_foundation(card, dst)
        elif not dst:
            if RANK[card] != KING:
                raise IllegalMove(f"only a King may fill an empty pile, not {PRETTY[card]}")
        elif RANK[dst[-1]] != RANK[card] + 1:
            raise IllegalMove(f"{PRETTY[card]} cannot go on {PRETTY[dst[-1]]}")
