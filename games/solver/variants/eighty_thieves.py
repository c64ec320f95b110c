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
alike, and so are piles), waste and stock as they are. ``dead`` proves a position lost when
some card can never move again (its proof is in its docstring), and
``eighty_thieves_bound.never_empties`` when no tableau pile can ever become empty (it keeps the
order of the deals: a stock card is free only once turned, and then only while the cards turned
after it have left; proof in that module); the search asks both of the start position only
(see ``hopeless``).

Search: a beam over the deals (``beam``: wins only) and then best-first on ``score``
(complete, so it can prove small positions lost), each with half of the budget.
"""

import heapq

from ..cards import parse
from ..result import Verdict
from .base import Rules
from .eighty_thieves_bound import never_empties

TYPICAL_BEST_HOME = 76
"""Cards home of the best line the search finds in 10 s on a random deal: the median over
seeds 0-99 (docs/solvability.md, "Eighty Thieves: how far good play gets"; p10 50, p90 112).
The daily page and race results give it as what a good result is."""

# Beam search (``beam``): the widths tried in turn, and how many new positions each kept
# position may open between two deals (more at the end, where nothing is dealt any more).
BEAM_WIDTHS = (8, 32, 128, 512, 2048)
BEAM_OPEN = 40
BEAM_OPEN_LAST = 2000


def _home(found) -> int:
    """Cards home: a foundation pile's top card code is its rank times four plus its suit."""
    return sum(f >> 2 for f in found)


def _breaks(piles) -> int:
    """Cards in the tableau not on their in-suit successor (each pile's back card counts)."""
    n = 0
    for p in piles:
        if p:
            n += 1
            prev = p[0]
            for c in p[1:]:
                if prev != c + 4:
                    n += 1
                prev = c
    return n


class EightyThievesRules(Rules):
    variant = "eighty-thieves"
    # A beam over the deals first (finds wins), then best-first on the score (complete:
    # proves small positions lost).
    portfolio = ("beam", "score")

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
        self.best_home = _home(found)
        """The most cards home in any position the search has met (the best line's result)."""

    @staticmethod
    def _up(c: int, found: list) -> int:
        """The foundation pile a safe move sends ``c`` to, or -1 (see the module docstring)."""
        if c < 8:  # an Ace: the first empty pile
            return found.index(0) if 0 in found else -1
        prev = c - 4
        if prev not in found:
            return -1
        s = c & 3
        n = 0
        for f in found:
            if f & 3 == s and f >= prev:
                n += 1
        return found.index(prev) if n == 4 else -1

    def _autoplay(self, piles: list, found: list, waste: tuple, notes: list) -> tuple:
        """Send up every safe front card and waste top, until none is."""
        up = self._up
        moved = True
        while moved:
            moved = False
            for i, p in enumerate(piles):
                # Most front cards have no foundation to go to: look that up first, inline.
                while p and (p[-1] - 4 if p[-1] >= 8 else 0) in found:
                    c = p[-1]
                    j = up(c, found)
                    if j < 0:
                        break
                    found[j] = c
                    notes.append(f"t{i}-f{j}")
                    p = p[:-1]
                    piles[i] = p
                    moved = True
            while waste:
                c = waste[-1]
                j = up(c, found)
                if j < 0:
                    break
                found[j] = c
                notes.append(f"w-f{j}")
                waste = waste[:-1]
                moved = True
        return waste

    def is_won(self, pos) -> bool:
        return min(pos[1]) >= 52  # a King on every foundation pile

    def score(self, pos) -> int:
        """Cards not home, cards not on their in-suit successor, waste size."""
        home = _home(pos[1])
        if home > self.best_home:
            self.best_home = home
        return 2 * (self.total - home) + 3 * _breaks(pos[0]) + len(pos[2])

    def score_layer(self, pos) -> int:
        """The beam's measure between positions with as many cards dealt: the waste weighs
        like a break (each waste card must come out again, in order)."""
        home = _home(pos[1])
        if home > self.best_home:
            self.best_home = home
        return 2 * (self.total - home) + 3 * _breaks(pos[0]) + 3 * len(pos[2])

    def beam(self, budget):
        """Beam search over the deals: from each kept position, up to ``BEAM_OPEN`` positions
        reachable without dealing are opened (depth-first in move order); every deal from
        them is a candidate for the next layer, of which the ``width`` best on
        ``score_layer`` are kept. Widths grow (``BEAM_WIDTHS``) until the budget is spent or
        a pass cut nothing. Incomplete: it answers won or unknown, never lost."""
        nodes = 0
        for width in BEAM_WIDTHS:
            result, nodes, cut = self._beam_pass(budget, width, nodes)
            if result is not None:
                return result
            if not cut:
                break
        return budget.result(Verdict.UNKNOWN, [], nodes)

    beam.whole_search = True

    def _beam_pass(self, budget, width: int, nodes: int):
        key = self.key
        children = self.children
        is_won = self.is_won
        measure = self.score_layer
        last = len(self.stock)
        layer = [(self.start, (tuple(self.start_notes), None))]
        cut = False
        while layer:
            seen = set()
            nxt: dict = {}
            cap = BEAM_OPEN_LAST if layer[0][0][3] == last else BEAM_OPEN
            for pos0, line0 in layer:
                seen.add(key(pos0))
                stack = [(pos0, line0)]
                opened = 0
                while stack:
                    pos, line = stack.pop()
                    kids = []
                    for child, notes in children(pos):
                        nodes += 1
                        link = (notes, line)
                        if is_won(child):
                            return budget.result(Verdict.WON, _unroll(link), nodes), nodes, cut
                        if budget.spent(nodes):
                            return budget.result(Verdict.UNKNOWN, [], nodes), nodes, cut
                        k = key(child)
                        if child[3] != pos[3]:
                            if k not in nxt:
                                nxt[k] = (measure(child), child, link)
                        elif k not in seen:
                            seen.add(k)
                            kids.append((child, link))
                            if child[1] != pos[1] and _home(child[1]) > self.best_home:
                                self.best_home = _home(child[1])
                    opened += len(kids)
                    stack.extend(reversed(kids))
                    if opened >= cap:
                        cut = cut or bool(stack)
                        break
            if len(nxt) > width:
                cut = True
            layer = [(c, link) for _, c, link in heapq.nsmallest(width, nxt.values(), key=_first)]
        return None, nodes, cut

    def hopeless(self, pos) -> bool:
        """``never_empties(pos)`` or ``dead(pos)``, for the start position only. Neither fires on
        the positions of real deals (``dead``: stock cards count as free, and one pile that might
        empty frees every card; ``never_empties``: silent on the starts of seeds 0–199 and on
        every position of seed 0's first 55 deals), so they are not worth their cost (0.1–0.5 ms
        a position) inside a search; on small random positions ``never_empties`` fires where
        ``dead`` is silent."""
        return pos is self.start and (never_empties(pos, self.stock) or self.dead(pos))

    def dead(self, pos) -> bool:
        """True when some card not home can provably never move again (so the deal is lost).

        ``M``, the cards that *might* move, is the least set closed under: a card is in ``M``
        when it is free-able (tableau: every card above it in its pile is in ``M``; waste:
        every waste card above it is in ``M``; stock: always) and has somewhere to go — home
        (every lower rank of its suit has a copy home or in ``M``), onto a copy of its in-suit
        successor that is in ``M`` or lies in the tableau with every card above it in ``M``,
        or to an empty pile (some pile whose cards are all in ``M``, or that is empty now).

        Proof that every card that ever moves is in ``M``: take the first move, in any line of
        play, of a card ``x`` outside ``M``. Every card that moved before it is in ``M``. The
        cards above ``x`` (and any put on it since) have left, so they moved: ``x`` is
        free-able. If it goes home, each lower rank of its suit has a copy home, which was home
        at the start or moved there: the home condition holds. If it goes onto a successor
        copy ``y``, ``y`` is a front card of the tableau: it moved there (in ``M``) or was there
        at the start with everything above it gone (in ``M``). If it goes to an empty pile,
        that pile's cards all moved (in ``M``). So ``x`` meets the rule and is in ``M``, a
        contradiction. A win moves every card not home, so a card outside ``M`` loses.
        """
        piles, found, waste, dealt = pos
        home = [0, 0, 0, 0]  # per suit: every rank up to this one might be home
        for f in found:
            if f and f >> 2 > home[f & 3]:
                home[f & 3] = f >> 2
        in_m = [0] * 60  # copies of each card code in M
        avail = [0] * 60  # copies in M or at a tableau frontier (everything above in M)
        full = 0  # piles whose cards are all in M (empty ones too)
        for p in piles:
            if p:
                avail[p[-1]] += 1
            else:
                full += 1
        stacks = (*piles, waste)
        nw_index = len(piles)
        depth = [0] * len(stacks)
        pending = self.stock[dealt:]

        def enter(c: int) -> None:
            in_m[c] += 1
            s = c & 3
            r = home[s]
            while r < 13 and in_m[(r + 1) * 4 + s]:
                r += 1
            home[s] = r

        def way_out(c: int) -> bool:  # home, onto a successor copy, or to an empty pile
            return home[c & 3] >= (c >> 2) - 1 or (c < 52 and avail[c + 4] > 0) or full > 0

        changed = True
        while changed:
            changed = False
            for i, p in enumerate(stacks):  # peel each pile, and the waste, from its front
                d = depth[i]
                k = len(p)
                while d < k:
                    c = p[k - 1 - d]
                    if not way_out(c):
                        break
                    d += 1
                    enter(c)
                    changed = True
                    if i == nw_index:
                        avail[c] += 1  # a waste card that moves may land in the tableau
                    elif d < k:
                        avail[p[k - 1 - d]] += 1
                    else:
                        full += 1
                depth[i] = d
            rest = []
            for c in pending:
                if way_out(c):
                    enter(c)
                    avail[c] += 1
                    changed = True
                else:
                    rest.append(c)
            pending = rest
        return bool(pending) or any(d < len(p) for d, p in zip(depth, stacks, strict=True))

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
                if (0 if e < 8 else e - 4) in found:
                    gain = 4
                elif e == c + 4:
                    gain = -3
                else:
                    gain = 0
            if (0 if c < 8 else c - 4) in found:
                moves.append((10 + gain, i, -1))
            for j in fronts.get(c + 4, ()):
                if j != i:
                    moves.append((5 + gain, i, j))
            if empty >= 0 and (i < 0 or n > 1):
                moves.append((gain - 1, i, empty))
        moves.sort(reverse=True)
        autoplay = self._autoplay
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
                j = nfound.index(0 if c < 8 else c - 4)
                nfound[j] = c
                notes = [f"{src}-f{j}"]
            else:
                new[j] = new[j] + (c,)
                notes = [f"{src}-t{j}"]
            nwaste = autoplay(new, nfound, nwaste, notes)
            yield (tuple(new), tuple(nfound), nwaste, dealt), notes
        if dealt < len(self.stock):
            new = list(piles)
            nfound = list(found)
            notes = ["deal"]
            nwaste = autoplay(new, nfound, waste + (self.stock[dealt],), notes)
            yield (tuple(new), tuple(nfound), nwaste, dealt + 1), notes


def _first(item):
    return item[0]


def _unroll(link) -> list[str]:
    """The moves of a line kept as nested ``(notes, parent)`` links."""
    steps = []
    while link is not None:
        steps.append(link[0])
        link = link[1]
    return [m for step in reversed(steps) for m in step]
