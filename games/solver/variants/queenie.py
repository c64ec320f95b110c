"""Queenie: any card moves with every card in front of it onto a card one rank higher of the
other colour (Kings to empty piles); the stock deals one card onto each pile, t0 first.

Position: ``(piles, found, fmap, dealt)``.

Safe automatic move, once the stock is out: a front card goes up when both cards of the other
colour one rank lower are on the foundations (Aces always). Nothing can then be put on it, so
it stays a front card, and the position without it can copy any line of play. While the stock
lasts a deal may cover the card, and a card under a deal is a handle that moves the dealt card
along; so then foundation moves are searched first but not forced.

Pruning and key: while the stock lasts every pile gets its own stock cards, so piles are told
apart; after it they are alike: the key sorts them, only the first empty pile is a
destination, and a King at the back of its pile never moves to an empty pile.
"""

from ..cards import KING, is_red, parse
from .base import Rules, unjoined
from .suit_foundations import SuitFoundations

OTHER_COLOUR = {0: (1, 2), 3: (1, 2), 1: (0, 3), 2: (0, 3)}


def _builds_on(below: int, above: int) -> bool:
    return (below >> 2) == (above >> 2) + 1 and is_red(below) != is_red(above)


class QueenieRules(SuitFoundations, Rules):
    variant = "queenie"
    strategy = "dfs"

    def __init__(self, state: dict) -> None:
        piles = [tuple(parse(c) for c in p) for p in state["tableau"]]
        found, fmap = self.read_foundations(state["foundations"], parse)
        self.stock = tuple(parse(c) for c in state["stock"])
        notes: list[str] = []
        if not self.stock:
            self._autoplay(piles, found, fmap, notes)
        self.start = (tuple(piles), tuple(found), tuple(fmap), 0)
        self.start_notes = notes

    def _autoplay(self, piles: list, found: list, fmap: list, notes: list) -> None:
        moved = True
        while moved:
            moved = False
            for i, p in enumerate(piles):
                while p:
                    c = p[-1]
                    r = c >> 2
                    s = c & 3
                    a, b = OTHER_COLOUR[s]
                    if found[s] != r - 1 or found[a] < r - 1 or found[b] < r - 1:
                        break
                    notes.append(f"t{i}-f{self.up(c, found, fmap)}")
                    p = p[:-1]
                    piles[i] = p
                    moved = True

    def is_won(self, pos) -> bool:
        return pos[1] == (13, 13, 13, 13)

    def score(self, pos) -> int:
        """Cards not home, and cards not on a card one higher of the other colour."""
        return 2 * (52 - sum(pos[1])) + 3 * unjoined(pos[0], _builds_on)

    def key(self, pos):
        piles, found, _, dealt = pos
        if dealt < len(self.stock):
            return (dealt, found, piles)
        return (dealt, found, tuple(sorted(piles)))

    def children(self, pos):
        piles, found, fmap, dealt = pos
        stock_left = dealt < len(self.stock)
        fronts: dict[int, list[int]] = {}
        empties = []
        for j, p in enumerate(piles):
            if p:
                c = p[-1]
                fronts.setdefault((c >> 2) * 2 + is_red(c), []).append(j)
            elif stock_left or not empties:
                empties.append(j)
        moves = []  # (priority, src, dst, count); dst -1 = foundation
        for i, p in enumerate(piles):
            n = len(p)
            if not n:
                continue
            c = p[-1]
            if found[c & 3] == (c >> 2) - 1:
                moves.append((12, i, -1, 1))
            for x in range(n):
                b = p[x]
                rb = b >> 2
                if x == 0:
                    gain = 3
                else:
                    e = p[x - 1]
                    if found[e & 3] == (e >> 2) - 1:
                        gain = 4
                    elif (e >> 2) == rb + 1 and is_red(e) != is_red(b):
                        gain = -3
                    else:
                        gain = 0
                for j in fronts.get((rb + 1) * 2 + (not is_red(b)), ()):
                    if j != i:
                        moves.append((gain, i, j, n - x))
                if rb == KING and empties and (x > 0 or stock_left):
                    for j in empties:
                        moves.append((gain - 1, i, j, n - x))
        if stock_left:  # dealing early pays: the full tableau is a small, easy game
            cards = self.stock[dealt : dealt + len(piles)]
            new = list(piles)
            for t, c in enumerate(cards):
                new[t] = new[t] + (c,)
            nfound = list(found)
            nfmap = list(fmap)
            notes = ["deal"]
            if dealt + len(cards) >= len(self.stock):
                self._autoplay(new, nfound, nfmap, notes)
            yield (tuple(new), tuple(nfound), tuple(nfmap), dealt + len(cards)), notes

        moves.sort(reverse=True)
        for _, i, j, k in moves:
            new = list(piles)
            nfound = list(found)
            nfmap = list(fmap)
            if j < 0:
                c = new[i][-1]
                new[i] = new[i][:-1]
                notes = [f"t{i}-f{self.up(c, nfound, nfmap)}"]
            else:
                new[j] = new[j] + new[i][-k:]
                new[i] = new[i][:-k]
                notes = [f"t{i}-t{j}:{k}" if k > 1 else f"t{i}-t{j}"]
            if not stock_left:
                self._autoplay(new, nfound, nfmap, notes)
            yield (tuple(new), tuple(nfound), tuple(nfmap), dealt), notes
