"""Penelope's Web: single front cards, built down regardless of suit, Kings to empty piles.

Position: ``(piles, found, fmap, back)`` — eight tuples of card codes, the top rank on each
suit's foundation, which foundation pile holds each suit (-1 before its Ace goes up), and whether
the move that led here can be undone at once (below).

Safe automatic move: a card of rank r goes up once every card of rank r-2 is home (Aces and
Twos at once). Its only tableau use is as a base for cards of rank r-1, and each of those can go
home itself whenever it could move onto it (single cards move, so it is a front card then, and
its predecessor is home). So the position without the card can copy any line of play.

Pruning: positions whose relaxed game (``penelopes_relax``: foundations and pile skeletons, the
cards sitting on a card one rank higher free to lie anywhere but where they are pinned) is
lost, and positions where some card can provably never move (``stuck``), are not searched
(``hopeless``); the test is skipped after a reversible move — a card that sat on a card one
rank higher moved onto another such card and nothing went home: the card can move straight
back, so the child and its parent (which passed the test) reach each other and share their
verdict, and skipping an optional cut never loses a win (the test fired on none of 24,000 such
children measured, and it is most of the cost of a position). A King alone in its pile never
moves to an empty pile; of several empty piles only the first is a destination. Canonical key:
the tableau piles sorted (they are all alike), the foundation piles by suit. A move that sends
nothing home is followed by automatic moves only when the card it uncovers is safe: the
position before it had no safe front card and the same foundations.

Search: best-first on three guides (which find different wins fast) and depth-first, each
from the start, taking turns over one shared graph of the positions met (``penelopes_search``):
a position is expanded once, by the first phase that reaches it, so the phases together search
the space once, and the deal is proved lost when a phase runs out of positions or no position
met is left unexpanded.
"""

from ..cards import KING, parse
from .base import Rules
from .penelopes_relax import Relaxation, skeleton
from .penelopes_search import shared_search
from .suit_foundations import SuitFoundations


def _pile_pieces(pile: tuple) -> int:
    """Cards of a non-empty pile that do not sit on a card one rank higher (its back card
    counts): how many pieces the pile is in."""
    n = 1
    r = pile[0] >> 2
    for c in pile[1:]:
        q = c >> 2
        if r != q + 1:
            n += 1
        r = q
    return n


def _pile_info(pile: tuple) -> tuple:
    """A pile's skeleton (``penelopes_relax.skeleton``) and how many pieces it is in (``_pile_pieces``)."""
    return skeleton(pile), _pile_pieces(pile)


def _next_buried(piles, found) -> int:
    """How many cards lie on the next card of each suit."""
    n = 0
    for s in range(4):
        c = (found[s] + 1) * 4 + s
        for p in piles:
            if c in p:
                n += len(p) - 1 - p.index(c)
                break
    return n


class PenelopesWebRules(SuitFoundations, Rules):
    variant = "penelopes-web"
    strategy = "best"
    # Three guides and depth-first, taking turns over one graph (``shared``).
    portfolio = ("shared",)

    def __init__(self, state: dict) -> None:
        piles = tuple(tuple(parse(c) for c in p) for p in state["tableau"])
        found, fmap = self.read_foundations(state["foundations"], parse)
        notes: list[str] = []
        piles_l = list(piles)
        self._autoplay(piles_l, found, fmap, notes)
        self.start = (tuple(piles_l), tuple(found), tuple(fmap), False)
        self.relaxed = Relaxation(len(piles))
        # Per pile met (a tuple): its skeleton and pieces (``_pile_info``).
        self.pile_info: dict = {}
        self.start_notes = notes

    def _autoplay(self, piles: list, found: list, fmap: list, notes: list) -> None:
        """Send up every front card that is safe, until none is."""
        moved = True
        while moved:
            moved = False
            low = min(found)
            for i, p in enumerate(piles):
                if not p:
                    continue
                c = p[-1]
                r = c >> 2
                s = c & 3
                if found[s] == r - 1 and low >= r - 2:
                    piles[i] = p[:-1]
                    notes.append(f"t{i}-f{self.up(c, found, fmap)}")
                    low = min(found)
                    moved = True

    def is_won(self, pos) -> bool:
        return pos[1] == (13, 13, 13, 13)

    def score(self, pos) -> int:
        """Cards not home, and cards not on a card one rank higher (lower is better)."""
        info = self.pile_info
        n = 0
        for p in pos[0]:
            if p:
                x = info.get(p)
                if x is None:
                    x = info[p] = _pile_info(p)
                n += x[1]
        return 2 * (52 - sum(pos[1])) + 3 * n

    def shared(self, budget):
        """The three guides and depth-first, taking turns over one graph
        (``penelopes_search``)."""
        return shared_search(self, self.guides, budget)

    shared.whole_search = True

    def guides(self, pos) -> tuple[int, int, int]:
        """``score``, then plus once and twice how many cards lie on each suit's next card
        (each guide finds wins the others miss)."""
        base = self.score(pos)
        buried = _next_buried(pos[0], pos[1])
        return base, base + buried, base + 2 * buried

    def hopeless(self, pos) -> bool:
        """Whether the position is provably lost: its relaxed game is (``penelopes_relax``),
        or some card can never move (``stuck``). Not asked after a reversible move."""
        if pos[3]:
            return False
        piles, found = pos[0], pos[1]
        info = self.pile_info
        full = []
        skel = []
        for p in piles:
            if p:
                x = info.get(p)
                if x is None:
                    x = info[p] = _pile_info(p)
                full.append(p)
                skel.append(x[0])
        return self.relaxed.lost_either(full, found, skel) or self.stuck(piles, found)

    def stuck(self, piles, found) -> bool:
        """Whether some tableau card can provably never move (so never go home).

        The cards that might ever move are over-estimated by a fixpoint. A card can move only
        once every card above it has moved, and then only home (when every lower card of its
        suit not yet home might move, none of them being under it), onto a card one rank higher
        that is not home, not under it, and either might move or has only cards that might move
        above it, or, a King, into a pile that is or might become empty. The cards that might
        move form the front part of each pile; their count per pile is ``m``. Kept per suit
        is the lowest card neither home nor found movable (a card may go home exactly when it
        is that card) and the number of piles found all movable (a King's empty pile), so each
        card is judged in a few steps.
        """
        pile_of = [0] * 56
        index_of = [0] * 56
        movable = [False] * 56
        lens = []
        for i, p in enumerate(piles):
            lens.append(len(p))
            for k, c in enumerate(p):
                pile_of[c] = i
                index_of[c] = k
        # Per suit the lowest rank neither home nor found movable: a card may go home once it
        # is that card (every lower one of its suit might move, so none is under it).
        low = [f + 1 for f in found]
        n = len(piles)
        m = [0] * n
        free = [i for i in range(n) if lens[i]]  # piles not yet all movable
        whole = n - len(free)  # piles all movable (empty ones included)
        progress = True
        while progress:
            progress = False
            for i in free:
                p = piles[i]
                li = lens[i]
                mi = m[i]
                while mi < li:
                    k = li - mi - 1
                    x = p[k]
                    r = x >> 2
                    s = x & 3
                    if low[s] != r:
                        if r == KING:
                            if not whole:
                                break
                        else:
                            for w in range(r * 4 + 4, r * 4 + 8):
                                if found[w & 3] > r:
                                    continue
                                wi = pile_of[w]
                                wk = index_of[w]
                                if (wi != i or wk > k) and wk >= lens[wi] - m[wi] - 1:
                                    break
                            else:
                                break
                    movable[x] = True
                    if low[s] == r:
                        r += 1
                        while r <= KING and movable[r * 4 + s]:
                            r += 1
                        low[s] = r
                    mi += 1
                    m[i] = mi
                    progress = True
                if mi == li:
                    whole += 1
            if progress:
                free = [i for i in free if m[i] < lens[i]]
        return bool(free)

    def key(self, pos):
        return (pos[1], tuple(sorted(pos[0])))

    def children(self, pos):
        piles, found, fmap = pos[0], pos[1], pos[2]
        by_rank: dict[int, list[int]] = {}
        empty = -1
        for j, p in enumerate(piles):
            if p:
                by_rank.setdefault(p[-1] >> 2, []).append(j)
            elif empty < 0:
                empty = j
        moves = []
        for i, p in enumerate(piles):
            if not p:
                continue
            c = p[-1]
            r = c >> 2
            s = c & 3
            n = len(p)
            # What leaving this pile gains: an empty pile, or a card that can go up next.
            if n == 1:
                gain = 3
            else:
                b = p[-2]
                if found[b & 3] == (b >> 2) - 1:
                    gain = 4
                elif (b >> 2) == r + 1:
                    gain = -2  # c sits on a fitting card already: a sideways move
                else:
                    gain = 0
            if found[s] == r - 1:
                moves.append((10 + gain, i, -1))
            for j in by_rank.get(r + 1, ()):
                if j != i:
                    moves.append((gain, i, j))
            if r == KING and empty >= 0 and n > 1:
                moves.append((gain + 1, i, empty))
        moves.sort(reverse=True)
        low = min(found)
        for _, i, j in moves:
            new = list(piles)
            p = piles[i]
            c = p[-1]
            new[i] = p[:-1]
            b = p[-2] if len(p) > 1 else -1  # the card the move uncovers
            if j >= 0:
                new[j] = piles[j] + (c,)
                notes = [f"t{i}-t{j}"]
                # The position was left with no safe card in front, and found is as it was:
                # only the card uncovered can have become safe.
                if b < 0 or found[b & 3] != (b >> 2) - 1 or low < (b >> 2) - 2:
                    back = b >= 0 and (b >> 2) == (c >> 2) + 1
                    yield (tuple(new), found, fmap, back), notes
                    continue
                nfound = list(found)
                nfmap = list(fmap)
            else:
                nfound = list(found)
                nfmap = list(fmap)
                notes = [f"t{i}-f{self.up(c, nfound, nfmap)}"]
            self._autoplay(new, nfound, nfmap, notes)
            # Reversible: the card left a card one rank higher and nothing went home.
            back = j >= 0 and len(notes) == 1 and b >= 0 and (b >> 2) == (c >> 2) + 1
            yield (tuple(new), tuple(nfound), tuple(nfmap), back), notes
