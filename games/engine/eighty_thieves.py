"""Eighty Thieves: four decks, ten piles built down in suit, a stock dealt once to the waste."""

from .builds import check_onto_foundation, foundation_targets
from .built_deals import BUILT_FIRST, build, is_built
from .cards import ACE, PRETTY, RANK
from .errors import IllegalMove
from .game import Game
from .notation import DEAL, TF, TT, WF, WT
from .shuffle import check_seed


class EightyThieves(Game):
    """Only the front card of a pile or the top of the waste moves: onto the card of its suit
    one rank higher, onto any empty pile, or to a foundation built up in suit from the Ace."""

    VARIANT = "eighty-thieves"
    NAME = "Eighty Thieves"
    DECKS = 4
    TABLEAU = 10
    PILE_SIZES = (8,) * 10
    FOUNDATIONS = 16
    HAS_STOCK = True
    HAS_WASTE = True
    MAX_STOCK = 128
    SUMMARY = (
        "Four decks, ten piles built down in suit, one card at a time, and a single pass "
        "through the stock to sixteen foundations."
    )

    @classmethod
    def from_seed(cls, seed: int) -> Game:
        """A shuffled deal, or for a built deal's number (``built_deals``) the built one."""
        seed = check_seed(seed)
        if is_built(seed):
            deck, _ = build(seed - BUILT_FIRST)
            return cls._lay_out(list(deck), seed)
        return super().from_seed(seed)

    def legal_moves(self):
        out = []
        empty_f, wanted = foundation_targets(self.f)
        under = {}  # a card -> the piles whose front card it may go on
        empty_t = []
        for i, pile in enumerate(self.t):
            if pile:
                top = pile[-1]
                if RANK[top] > ACE:
                    if top - 1 in under:
                        under[top - 1].append(i)
                    else:
                        under[top - 1] = [i]
            else:
                empty_t.append(i)
        sources = [(pile[-1], TT[i], TF[i]) for i, pile in enumerate(self.t) if pile]
        if self.w:
            sources.append((self.w[-1], WT, WF))
        for card, to_pile, to_foundation in sources:
            for j in under.get(card, ()):
                out.append(to_pile[j])
            for j in empty_t:
                out.append(to_pile[j])
            for j in empty_f if RANK[card] == ACE else wanted.get(card, ()):
                out.append(to_foundation[j])
        if self.stock:
            out.append(DEAL)
        return out

    def _check(self, sk, si, src, dk, di, dst, n):
        if dk == "w":
            raise IllegalMove("only the stock deals to the waste")
        if n != 1:
            raise IllegalMove("only single cards move in Eighty Thieves")
        card = src[-1]
        if dk == "f":
            check_onto_foundation(card, dst)
        elif dst:
            top = dst[-1]
            if card != top - 1 or RANK[top] == ACE:
                raise IllegalMove(f"{PRETTY[card]} cannot go on {PRETTY[top]}")

    def _deal_stock(self):
        """Turn the next stock card onto the waste."""
        if not self.stock:
            raise IllegalMove("the stock is empty")
        self.w.append(self.stock.pop())
        return (DEAL, 1)

    def _undeal(self, count):
        self.stock.append(self.w.pop())
