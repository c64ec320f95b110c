"""Eighty Thieves: four decks, single front cards built down in suit, any card to an empty pile,
one pass through a stock whose order the solver knows.

Position: ``(piles, found, waste, dealt)`` — ten tuples of card codes, the top card code of each
of the sixteen foundation piles (0 when empty), the waste (top last) and how many stock cards
have been turned.

Safe automatic move: a card goes up once all four copies of its suit's next lower rank are home
(Aces always). Nothing can then be built on it, each copy of it still out has a foundation pile
of its own to go to, and the waste only gives its top card, so the position without the card can
copy any line of play. (The one-deck rule "once every card two ranks lower is home" fails here:
the card could take the only pile a copy of it needs, while the copy blocks the card below it.)

Pruning: a card alone in its pile never moves to an empty pile; only the first empty pile is a
destination. Canonical key: tableau piles sorted, foundations sorted (copies of a card are
alike, and so are piles), waste and stock as they are.
"""

from ..cards import parse
from .base import Rules, in_suit, unjoined


class EightyThievesRules(Rules):
    variant = "eighty-thieves"

    def __init__(self, state: dict) -> None:
        piles = [tuple(parse(c) for c in p) for p in state["tableau"]]
        found = [parse(f[-1]) if f else 0 for f in state["foundations"]]
        self.stock = tuple(parse(c) for c in state["stock"])
        self.total = 52 * len(found) // 4
        waste = tuple(parse(c) for c in state["waste"])
        notes: list[str] = []
        waste = self._autoplay(piles, found, waste, notes)
        self.start = (tuple(piles), tuple(found), waste, 0)
        self.start_notes = notes

    @staticmethod
    def _slots(found) -> dict[int, int]:
        """Top card code -> the first foundation pile with that top (0: first empty pile)."""
        slot = {}
        for i in range(len(found) - 1, -1, -1):
            slot[found[i]] = i
        return slot

    @staticmethod
    def _lows(found) -> list[int]:
        """Per suit, the lowest rank on its four foundation piles (0 unless all four started)."""
        ranks: list[list[int]] = [[], [], [], []]
        for f in found:
            if f:
                ranks[f & 3].append(f >> 2)
        return [min(r) if len(r) >= 4 else 0 for r in ranks]

    def _autoplay(self, piles: list, found: list, waste: tuple, notes: list) -> tuple:
        """Send up every safe front card and waste top, until none is."""
        slot = self._slots(found)
        low = self._lows(found)

        def up(c: int) -> int | None:
            r = c >> 2
            if r > 1 and low[c & 3] < r - 1:
                return None
            j = slot.get(0 if r == 1 else c - 4)
            if j is None:
                return None
            found[j] = c
            del slot[0 if r == 1 else c - 4]
            slot.update(self._slots(found))
            low[c & 3] = self._lows(found)[c & 3]
            return j

        moved = True
        while moved:
            moved = False
            for i, p in enumerate(piles):
                while p:
                    j = up(p[-1])
                    if j is None:
                        break
                    notes.append(f"t{i}-f{j}")
                    p = p[:-1]
                    piles[i] = p
                    moved = True
            while waste:
                j = up(waste[-1])
                if j is None:
                    break
                notes.append(f"w-f{j}")
                waste = waste[:-1]
                moved = True
        return waste

    def is_won(self, pos) -> bool:
        found = pos[1]
        return sum(f >> 2 for f in found) == self.total

    def score(self, pos) -> int:
        """Cards not home, cards not on their in-suit successor, waste size."""
        home = sum(f >> 2 for f in pos[1])
        return 2 * (self.total - home) + 3 * unjoined(pos[0], in_suit) + len(pos[2])

    def key(self, pos):
        return (pos[3], pos[2], tuple(sorted(pos[1])), tuple(sorted(pos[0])))

    def children(self, pos):
        piles, found, waste, dealt = pos
        fronts: dict[int, list[int]] = {}
        empty = -1
        for j, p in enumerate(piles):
            if p:
                fronts.setdefault(p[-1], []).append(j)
            elif empty < 0:
                empty = j
        slot = self._slots(found)
        moves = []  # (priority, src, dst); src -1 = waste; dst -1 = foundation
        sources = [(i, p) for i, p in enumerate(piles) if p]
        if waste:
            sources.append((-1, waste))
        for i, p in sources:
            c = p[-1]
            n = len(p)
            if i < 0:
                gain = 2
            elif n == 1:
                gain = 3
            else:
                e = p[-2]
                if (0 if (e >> 2) == 1 else e - 4) in slot:
                    gain = 4
                elif e == c + 4:
                    gain = -3
                else:
                    gain = 0
            if (0 if (c >> 2) == 1 else c - 4) in slot:
                moves.append((10 + gain, i, -1))
            for j in fronts.get(c + 4, ()):
                if j != i:
                    moves.append((5 + gain, i, j))
            if empty >= 0 and (i < 0 or n > 1):
                moves.append((gain - 1, i, empty))
        moves.sort(reverse=True)
        for _, i, j in moves:
            new = list(piles)
            nfound = list(found)
            nwaste = waste
            if i < 0:
                c = waste[-1]
                nwaste = waste[:-1]
                src = "w"
            else:
                c = new[i][-1]
                new[i] = new[i][:-1]
                src = f"t{i}"
            if j < 0:
                j = slot[0 if (c >> 2) == 1 else c - 4]
                nfound[j] = c
                notes = [f"{src}-f{j}"]
            else:
                new[j] = new[j] + (c,)
                notes = [f"{src}-t{j}"]
            nwaste = self._autoplay(new, nfound, nwaste, notes)
            yield (tuple(new), tuple(nfound), nwaste, dealt), notes
        if dealt < len(self.stock):
            new = list(piles)
            nfound = list(found)
            notes = ["deal"]
            nwaste = self._autoplay(new, nfound, waste + (self.stock[dealt],), notes)
            yield (tuple(new), tuple(nfound), nwaste, dealt + 1), notes
