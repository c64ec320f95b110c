"""Penguin: in-suit runs, seven cells, circular ranks counted from the beak.

Cards are recoded by rank relative to the beak (the beak's rank becomes 1, the rank below it
13), which turns Penguin into a plain game: foundations build 1…13 in suit, the tableau builds
down in suit and stops at 1, and only a run headed by a 13 fills an empty pile.

Position: ``(piles, cells, found, fmap)``.

Safe automatic move: every card that can go to its foundation goes. The only card that could
ever be put on it (its suit, one rank lower) is already on that foundation, and nothing leaves
a foundation, so the card is of no further use in the tableau or a cell.

Pruning: only the first empty cell and the first empty pile are destinations; no card moves
cell to cell; a run headed by a 13 that fills its whole pile never moves to an empty pile.
Canonical key: cells sorted, tableau piles sorted, foundations by suit.
"""

from ..cards import KING, RANKS, SUITS
from .base import Rules, in_suit, unjoined
from .suit_foundations import SuitFoundations


def _relative_parser(beak_rank: int):
    def parse_rel(card: str) -> int:
        rank = RANKS.index(card[0]) + 1
        return ((rank - beak_rank) % 13 + 1) * 4 + SUITS.index(card[1])

    return parse_rel


def beak_rank(state: dict) -> int:
    """The beak's rank (1 = Ace): the rank each foundation starts with."""
    for f in state["foundations"]:
        if f:
            return RANKS.index(f[0][0]) + 1
    raise ValueError("a Penguin position has at least one started foundation")


class PenguinRules(SuitFoundations, Rules):
    variant = "penguin"

    def __init__(self, state: dict) -> None:
        parse_rel = _relative_parser(beak_rank(state))
        piles = [tuple(parse_rel(c) for c in p) for p in state["tableau"]]
        cells = [parse_rel(c) if c else 0 for c in state["cells"]]
        found, fmap = self.read_foundations(state["foundations"], parse_rel)
        notes: list[str] = []
        self._autoplay(piles, cells, found, fmap, notes)
        self.start = (tuple(piles), tuple(cells), tuple(found), tuple(fmap))
        self.start_notes = notes

    def _autoplay(self, piles: list, cells: list, found: list, fmap: list, notes: list) -> None:
        moved = True
        while moved:
            moved = False
            for i, p in enumerate(piles):
                while p and found[p[-1] & 3] == (p[-1] >> 2) - 1:
                    notes.append(f"t{i}-f{self.up(p[-1], found, fmap)}")
                    p = p[:-1]
                    piles[i] = p
                    moved = True
            for i, c in enumerate(cells):
                if c and found[c & 3] == (c >> 2) - 1:
                    notes.append(f"c{i}-f{self.up(c, found, fmap)}")
                    cells[i] = 0
                    moved = True

    def is_won(self, pos) -> bool:
        return pos[2] == (13, 13, 13, 13)

    def score(self, pos) -> int:
        """Cards not home, cards not on their in-suit successor, cards in cells."""
        cells = sum(1 for c in pos[1] if c)
        return 2 * (52 - sum(pos[2])) + 3 * unjoined(pos[0], in_suit) + cells

    def key(self, pos):
        return (pos[2], tuple(sorted(pos[1])), tuple(sorted(pos[0])))

    def children(self, pos):
        piles, cells, found, fmap = pos
        front: dict[int, int] = {}
        empty = -1
        for j, p in enumerate(piles):
            if p:
                front[p[-1]] = j
            elif empty < 0:
                empty = j
        free_cell = -1
        nfree = 0
        for j, c in enumerate(cells):
            if not c:
                nfree += 1
                if free_cell < 0:
                    free_cell = j
        moves = []  # (priority, kind, src, dst, count); kind 0 tableau, 1 cell source
        for j, c in enumerate(cells):
            if not c:
                continue
            dst = front.get(c + 4, -1)
            if dst >= 0:
                moves.append((8, 1, j, dst, 1))
            elif (c >> 2) == KING and empty >= 0:
                moves.append((6, 1, j, empty, 1))
        for i, p in enumerate(piles):
            if not p:
                continue
            n = len(p)
            k = 1
            while k < n and p[-k - 1] == p[-k] + 4:
                k += 1
            back = p[-k]
            if k == n:
                gain = 4
            else:
                e = p[-k - 1]
                gain = 5 if found[e & 3] == (e >> 2) - 1 else 0
            dst = front.get(back + 4, -1)
            if dst >= 0:
                moves.append((5 + gain, 0, i, dst, k))
            elif (back >> 2) == KING and empty >= 0 and k < n:
                moves.append((3 + gain, 0, i, empty, k))
            if free_cell >= 0:
                e = p[-2] if n > 1 else 0
                cg = 4 if n == 1 else (5 if e and found[e & 3] == (e >> 2) - 1 else 0)
                moves.append((cg - 8 + nfree, 0, i, -1, 1))
        moves.sort(reverse=True)
        for _, kind, i, j, k in moves:
            new = list(piles)
            ncells = list(cells)
            if kind == 1:
                new[j] = new[j] + (cells[i],)
                ncells[i] = 0
                notes = [f"c{i}-t{j}"]
            elif j < 0:
                ncells[free_cell] = new[i][-1]
                new[i] = new[i][:-1]
                notes = [f"t{i}-c{free_cell}"]
            else:
                new[j] = new[j] + new[i][-k:]
                new[i] = new[i][:-k]
                notes = [f"t{i}-t{j}:{k}" if k > 1 else f"t{i}-t{j}"]
            nfound = list(found)
            nfmap = list(fmap)
            self._autoplay(new, ncells, nfound, nfmap, notes)
            yield (tuple(new), tuple(ncells), tuple(nfound), tuple(nfmap)), notes
