"""Penelope's Web, relaxed: a smaller game whose loss proves the real position lost.

Call *loose* the cards at the top of a pile that each sit on a card one rank higher (any suit),
and the rest of the pile its *skeleton*: the skeleton's top card sits on a card that is not one
rank higher, or is the pile's bottom card (a card deeper down that happens to sit on a card one
rank higher belongs to the skeleton). The relaxed game
keeps only the foundations and the skeletons (piles sorted: they are all alike) and forgets
where the loose cards are. A loose card moving from one card to another changes neither,
so the millions of orders in which the cards of one rank shuffle over the bases of the rank
above collapse to one relaxed position.

What the relaxed game knows of the forgotten arrangement is a count. Every loose card of rank
r-1 sits on its own card of rank r, which is a skeleton top or loose itself; so for a set X of
cards to be the front cards of their piles at once, the loose cards of rank r-1 must fit on the
other bases: ``slack[r] = tops[r] + loose[r] - loose[r-1] >= |X of rank r|`` for every rank.

Relaxed moves, each allowed whenever a real position with these skeletons and foundations could
make it (so whenever the counts allow the cards it needs to be front cards):

- a loose card, or a skeleton top, goes home (it is its suit's next card and can be in front);
- a skeleton top moves onto a card one rank higher that is another skeleton top or a loose card
  (both in front at once): it becomes loose, and its pile's skeleton loses it and whatever
  becomes loose under it;
- a King that is a skeleton top above other cards moves to an empty pile (a pile is empty
  exactly when it has no skeleton): its own one-card skeleton.

Soundness: every real move maps to a relaxed move or leaves the relaxed position as it is. The
front card of a pile is loose (moving onto another front card keeps it loose and both
skeletons; home keeps the skeletons) or the skeleton top (home; onto a front card one rank
higher; a King into an empty pile; a King at the bottom of its pile moving to another empty
pile changes nothing but the pile's place). Automatic moves are moves home. So a real win
gives a relaxed win, and a relaxed position that cannot be won proves every real position
with its skeletons and foundations lost. The relaxed game has no cycles (each move sends a card
home, takes a card from the skeletons, or takes a King from above other cards to a pile's
bottom), so a memo of won/lost relaxed positions is exact.

A query that would look at more than ``cap`` new relaxed positions gives up (the real
position counts as not proved lost); positions it finished stay in the memo.
"""

KING = 13


def skeleton(pile: tuple) -> tuple:
    """The pile without its loose cards on top."""
    k = len(pile)
    while k >= 2 and (pile[k - 2] >> 2) == (pile[k - 1] >> 2) + 1:
        k -= 1
    return pile[:k]


def relaxed_key(piles, found) -> tuple:
    """The relaxed position of a real one: foundations and sorted skeletons."""
    return (tuple(found), tuple(sorted(skeleton(p) for p in piles if p)))


class _GiveUp(Exception):
    pass


class Relaxation:
    """The relaxed game of one search, with its memo."""

    def __init__(self, piles: int, cap: int = 4000) -> None:
        self.piles = piles
        self.cap = cap
        self.memo: dict = {}
        self.given_up: set = set()
        self.left = 0

    def lost(self, piles, found) -> bool:
        """Whether the relaxed game of this real position is provably lost."""
        st = relaxed_key(piles, found)
        won = self.memo.get(st)
        if won is not None:
            return not won
        if st in self.given_up:
            return False
        self.left = self.cap
        try:
            return not self._won(st)
        except _GiveUp:
            self.given_up.add(st)
            return False

    def _won(self, st) -> bool:
        won = self.memo.get(st)
        if won is not None:
            return won
        self.left -= 1
        if self.left < 0:
            raise _GiveUp
        won = st[0] == (KING, KING, KING, KING) or any(self._won(c) for c in self._moves(st))
        self.memo[st] = won
        return won

    def _moves(self, st):
        found, skel = st
        in_skel = set()
        tops = [0] * 15
        top_cards: list[list[int]] = [[] for _ in range(15)]
        for p in skel:
            in_skel.update(p)
            tops[p[-1] >> 2] += 1
            top_cards[p[-1] >> 2].append(p[-1])
        loose = [0] * 15
        loose_cards: list[list[int]] = [[] for _ in range(15)]
        for s in range(4):
            for r in range(found[s] + 1, KING + 1):
                c = r * 4 + s
                if c not in in_skel:
                    loose[r] += 1
                    loose_cards[r].append(c)
        slack = [0] * 15
        for r in range(2, KING + 1):
            slack[r] = tops[r] + loose[r] - loose[r - 1]
            if slack[r] < 0:
                return  # no real position has these skeletons (never met from one)

        def up(c):
            f = list(found)
            f[c & 3] += 1
            return tuple(f)

        for r in range(1, KING + 1):
            for c in loose_cards[r]:
                if found[c & 3] == r - 1 and (r == 1 or slack[r] >= 1):
                    yield up(c), skel
        empty = self.piles - len(skel)
        for i, p in enumerate(skel):
            t = p[-1]
            r = t >> 2
            if r > 1 and slack[r] < 1:
                continue  # t cannot be in front
            rest = skeleton(p[:-1])
            others = skel[:i] + skel[i + 1 :]
            left = tuple(sorted(others + (rest,))) if rest else others
            if found[t & 3] == r - 1:
                yield up(t), left
            if r == KING:
                if len(p) > 1 and empty > 0:
                    yield found, tuple(sorted(left + ((t,),)))
                continue
            # Onto a front card one rank higher: the result is the same whichever it is.
            bases = [w for w in top_cards[r + 1] if w != t] + loose_cards[r + 1]
            if bases and slack[r + 1] >= 1:
                yield found, left
