"""Spiderweb: one-deck Spider with face-down cards, a 25-card stock and foundations that double
as cells. The solver knows every card, so face-down cards and the stock are plain data here and
``deal`` is deterministic.

Position: ``(piles, down, fnd, dealt)`` — seven tuples of card codes (back first), how many of
each pile's back cards are face down, each foundation (0 empty, a card code when used as a
cell, -1 when it holds a completed suit) and how many stock cards have been dealt.

No automatic moves: a completed suit may still be worth keeping in the tableau (its cards are
bases, its foundation a cell), so putting it away is a move like any other (tried first).

Pruning: only the first empty foundation takes a card or a suit; no card moves cell to cell;
piles that no deal reaches (t5, t6; all of them once the stock is out) are alike, so only the
first empty one of them is a destination, a whole pile never moves between two of them, and
the canonical key sorts them. Cells are sorted in the key.
"""

from ..cards import parse
from .base import Rules

DEAL_WIDTH = 5


class SpiderwebRules(Rules):
    variant = "spiderweb"
    # Two guides, half the budget each: neither finds every win the other finds.
    portfolio = ("score_digging", "score")

    def __init__(self, state: dict) -> None:
        piles = tuple(tuple(parse(c) for c in p) for p in state["tableau"])
        down = tuple(state["down"])
        fnd = []
        for f in state["foundations"]:
            if not f:
                fnd.append(0)
            elif len(f) == 1:
                fnd.append(parse(f[0]))
            elif len(f) == 13:
                fnd.append(-1)
            else:
                raise ValueError(f"a Spiderweb foundation holds 0, 1 or 13 cards, not {len(f)}")
        self.stock = tuple(parse(c) for c in state["stock"])
        self.start = (piles, down, tuple(fnd), 0)
        self.start_notes: list[str] = []
        # A pile's share of the score, by (pile, face-down count): most children change one or
        # two piles, so the others are looked up, not walked again (the score was 40% of the time).
        self._pile_costs: dict[tuple, int] = {}

    def is_won(self, pos) -> bool:
        return max(pos[2]) < 0

    def score(self, pos, down_weight: int = 3) -> int:
        """Runs to join (each card not on its in-suit successor, stock cards too), face-down
        cards, cells in use (lower is better)."""
        piles, down, fnd, dealt = pos
        score = 2 * (len(self.stock) - dealt) + down_weight * sum(down)
        costs = self._pile_costs
        for pd in zip(piles, down, strict=True):
            cost = costs.get(pd)
            if cost is None:
                p, d = pd
                cost = costs[pd] = (2 if p else 0) + 2 * sum(
                    a != b + 4 for a, b in zip(p[d:], p[d + 1 :], strict=False)
                )
            score += cost
        for f in fnd:
            if f > 0:
                score += 3
        return score

    def score_digging(self, pos) -> int:
        """The score with face-down cards weighing more: finds other deals' wins."""
        return self.score(pos, 10)

    def key(self, pos):
        piles, down, fnd, dealt = pos
        cells = tuple(sorted(fnd))
        if dealt < len(self.stock):
            w = DEAL_WIDTH
            return (
                dealt,
                cells,
                piles[:w],
                down[:w],
                tuple(sorted(zip(down[w:], piles[w:], strict=True))),
            )
        return (dealt, cells, tuple(sorted(zip(down, piles, strict=True))))

    def children(self, pos):
        piles, down, fnd, dealt = pos
        stock_left = dealt < len(self.stock)
        fixed = DEAL_WIDTH if stock_left else 0  # piles 0..fixed-1 are told apart by deals
        by_rank: dict[int, list[int]] = {}
        empties = []
        first_free_empty = -1
        for j, p in enumerate(piles):
            if p:
                by_rank.setdefault(p[-1] >> 2, []).append(j)
            elif j < fixed:
                empties.append(j)
            elif first_free_empty < 0:
                first_free_empty = j
                empties.append(j)
        free_f = -1
        for j, f in enumerate(fnd):
            if f == 0:
                free_f = j
                break
        moves = []  # (priority, kind, src, dst, count); kind 0 pile, 1 cell, 2 suit home
        for j, c in enumerate(fnd):
            if c <= 0:
                continue
            for t in by_rank.get((c >> 2) + 1, ()):
                moves.append((3 if piles[t][-1] == c + 4 else 1, 1, j, t, 1))
            for t in empties:
                moves.append((-1, 1, j, t, 1))
        for i, p in enumerate(piles):
            n = len(p)
            up = n - down[i]
            if up <= 0:
                continue
            run = 1
            while run < up and p[-run - 1] == p[-run] + 4:
                run += 1
            if run == 13 and free_f >= 0:
                moves.append((20, 2, i, free_f, 13))
            for k in range(1, run + 1):
                b = p[-k]
                # Emptying the pile or turning a card up gains; splitting a run costs.
                gain = (6 if down[i] else 4) if k == up else (0 if k == run else -3)
                for t in by_rank.get((b >> 2) + 1, ()):
                    if t != i:
                        moves.append((gain + (3 if piles[t][-1] == b + 4 else 0), 0, i, t, k))
                for t in empties:
                    if k == n and t >= fixed and i >= fixed:
                        continue  # a whole pile between two piles that are alike
                    moves.append((gain - 1, 0, i, t, k))
            if free_f >= 0:
                gain = (6 if down[i] else 4) if up == 1 else (0 if run == 1 else -3)
                moves.append((gain - 4, 0, i, -1, 1))
        moves.sort(reverse=True)
        # Only what a move changes is copied; the rest of the position is shared.
        for _, kind, i, j, k in moves:
            new = list(piles)
            if kind == 1:
                new[j] = piles[j] + (fnd[i],)
                nfnd = list(fnd)
                nfnd[i] = 0
                yield (tuple(new), down, tuple(nfnd), dealt), [f"f{i}-t{j}"]
                continue
            p = piles[i]
            rest = new[i] = p[:-k]
            ndown = down
            if down[i] and down[i] >= len(rest):
                nd = list(down)
                nd[i] = len(rest) - 1 if rest else 0
                ndown = tuple(nd)
            nfnd = fnd
            if kind == 2:
                nfnd = list(fnd)
                nfnd[j] = -1
                nfnd = tuple(nfnd)
                notes = [f"t{i}-f{j}:13"]
            elif j < 0:
                nfnd = list(fnd)
                nfnd[free_f] = p[-1]
                nfnd = tuple(nfnd)
                notes = [f"t{i}-f{free_f}"]
            else:
                new[j] = piles[j] + p[-k:]
                notes = [f"t{i}-t{j}:{k}" if k > 1 else f"t{i}-t{j}"]
            yield (tuple(new), ndown, nfnd, dealt), notes
        if stock_left:
            cards = self.stock[dealt : dealt + DEAL_WIDTH]
            new = list(piles)
            for t, c in enumerate(cards):
                new[t] = new[t] + (c,)
            yield (tuple(new), down, fnd, dealt + len(cards)), ["deal"]
