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

Pins: what the relaxed game may keep of the arrangement. ``slack[r]`` is exactly the number
of front cards of rank r (each loose card of rank r-1 covers one card of rank r, a skeleton top
or a loose card, and every card of rank r it does not cover is a front card), the same in every
arrangement. When ``slack[q + 1]`` is 0 no loose card of rank q can move but home (there is no
front card to move onto), so every card under it — the loose cards below it and its pile's
skeleton top — stays covered, hence cannot move, go home or take a card, for as long as that
slack stays 0; going home itself raises the slack. So a real position's pins (per such rank q,
the cards under its loose cards of rank q) are facts of every real position reached while the
relaxed positions on the way keep ``slack[q + 1]`` at 0. The relaxed game with pins keeps them
along (``(found, skeletons, pins)``), forbids the moves that need a pinned card in front, and
drops a rank's pins for good once its slack is no longer 0 (cards that freeze later are not
pinned: where they lie is not known). Every real line still maps to a relaxed line, so a lost
relaxed position with pins proves the real position lost. It is asked only when the relaxed
game without pins is not lost.

A query that would look at more than ``cap`` new relaxed positions (``pin_cap`` with pins)
gives up (the real position counts as not proved lost); positions it finished stay in the memo.
"""

KING = 13
_ALL_HOME = (KING, KING, KING, KING)
# The relaxed positions whose moves are kept at once (``Relaxation._moves``).
MOVES_KEPT = 50_000


def skeleton(pile: tuple) -> tuple:
    """The pile without its loose cards on top."""
    k = len(pile)
    while k >= 2 and (pile[k - 2] >> 2) == (pile[k - 1] >> 2) + 1:
        k -= 1
    return pile[:k]


def frozen_runs(piles, found, skel=None) -> tuple:
    """The pins of a real position: for each rank q whose slack one rank up is 0 (no front
    card of rank q + 1), the cards under the loose cards of rank q — in its pile, the skeleton
    top and the loose cards below it. Those loose cards cannot move but home, so the cards
    under them stay covered while that slack stays 0. ``skel``: the piles' skeletons, if known.
    """
    piles = [p for p in piles if p]
    if skel is None:
        skel = [skeleton(p) for p in piles]
    slack = _slack(piles, skel)
    by_rank: dict[int, list[int]] = {}
    for p, sk in zip(piles, skel, strict=True):
        k = len(sk)
        last = -1
        for j in range(k, len(p)):
            if slack[(p[j] >> 2) + 1] == 0:
                last = j
        if last >= 0:
            by_rank.setdefault(p[last] >> 2, []).extend(p[k - 1 : last])
    return tuple((r, tuple(sorted(by_rank[r]))) for r in sorted(by_rank))


def _slack(piles, skel) -> list[int]:
    """Per rank r, the front cards of rank r: skeleton tops, and loose cards of rank r not
    covered by a loose card of rank r - 1 (non-empty ``piles``, ``skel`` their skeletons)."""
    slack = [0] * 15
    for p, sk in zip(piles, skel, strict=True):
        slack[sk[-1] >> 2] += 1
        for c in p[len(sk) :]:
            slack[c >> 2] += 1
            slack[(c >> 2) + 1] -= 1
    return slack


def _zero_slack(piles, skel) -> frozenset:
    """The ranks q of 1 to 12 with no front card of rank q + 1 (``slack[q + 1] == 0``), which
    are the same for every real position of one relaxed position (see ``frozen_runs``)."""
    slack = _slack(piles, skel)
    return frozenset(q for q in range(1, KING) if slack[q + 1] == 0)


def _covered(pins) -> frozenset:
    """The cards under a pinned card: never in front while the pins hold."""
    return frozenset(c for _, under in pins for c in under)


class _GiveUp(Exception):
    pass


class Relaxation:
    """The relaxed game of one search, with its memo."""

    def __init__(self, piles: int, cap: int = 4000, pin_cap: int = 4000) -> None:
        self.piles = piles
        self.cap = cap
        self.pin_cap = pin_cap
        self.memo: dict = {}
        self.given_up: set = set()
        # Per relaxed position: the ranks q whose slack one rank up is 0 (``_zero_slack``).
        self.zero: dict = {}
        self.moves_of: dict = {}
        self.left = 0

    def lost(self, piles, found, skel=None) -> bool:
        """Whether the relaxed game of this real position is provably lost. ``skel``: the
        skeletons of its piles that are not empty, if known."""
        if skel is None:
            skel = [skeleton(p) for p in piles if p]
        return self._lost((tuple(found), tuple(sorted(skel))), self.cap)

    def lost_pinned(self, piles, found, skel=None) -> bool:
        """Whether the relaxed game with the pins of this real position is provably lost
        (asked when the game without them is not: it is slower)."""
        piles = [p for p in piles if p]
        if skel is None:
            skel = [skeleton(p) for p in piles]
        pins = frozen_runs(piles, found, skel)
        if not pins:
            return False
        return self._lost((tuple(found), tuple(sorted(skel)), pins), self.pin_cap)

    def lost_either(self, piles, found, skel) -> bool:
        """``lost(...) or lost_pinned(...)`` in one pass: ``piles`` the real position's piles
        that are not empty, ``skel`` their skeletons in the same order."""
        st = (found, tuple(sorted(skel)))
        won = self.memo.get(st)
        if won is None:
            if st not in self.given_up and self._lost(st, self.cap):
                return True
        elif not won:
            return True
        zero = self.zero.get(st)
        if zero is None:
            zero = self.zero[st] = _zero_slack(piles, skel)
        if not zero:
            return False
        by_rank: dict[int, list[int]] = {}
        for p, sk in zip(piles, skel, strict=True):
            k = len(sk)
            if k == len(p):
                continue
            last = -1
            for j in range(k, len(p)):
                if (p[j] >> 2) in zero:
                    last = j
            if last >= 0:
                r = p[last] >> 2
                if r in by_rank:
                    by_rank[r].extend(p[k - 1 : last])
                else:
                    by_rank[r] = list(p[k - 1 : last])
        if not by_rank:
            return False
        pins = tuple((r, tuple(sorted(by_rank[r]))) for r in sorted(by_rank))
        return self._lost((st[0], st[1], pins), self.pin_cap)

    def _lost(self, st, cap) -> bool:
        won = self.memo.get(st)
        if won is not None:
            return not won
        if st in self.given_up:
            return False
        self.left = cap
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
        won = st[0] == _ALL_HOME
        if not won:
            for child in self._children(st):
                if self._won(child):
                    won = True
                    break
        self.memo[st] = won
        return won

    def _children(self, st) -> list:
        """The relaxed moves' results; with pins, the pins that still hold go along (a pin
        holds while the slack one rank above its loose card stays 0, so it goes once the move
        changes that slack)."""
        if len(st) == 2:
            return [child for _, _, child, _ in self._moves(st)]
        pins = st[2]
        covered = _covered(pins)
        out = []
        for card, bases, child, changed in self._moves(st[:2]):
            if card in covered:
                continue
            if bases is not None:
                for w in bases:
                    if w not in covered:
                        break
                else:
                    continue
            held = tuple(pin for pin in pins if pin[0] + 1 not in changed)
            out.append((child[0], child[1], held) if held else child)
        return out

    def _moves(self, st) -> list:
        """The relaxed moves of ``(found, skeletons)``, remembered (the same position is met
        with different pins): ``(card, bases, result, changed)`` — the card that must be in
        front, the cards one rank higher it may go onto (one of them must be in front; None for
        a move home or a King's move), the result without pins, the ranks whose slack changes.
        """
        moves = self.moves_of.get(st)
        if moves is None:
            if len(self.moves_of) >= MOVES_KEPT:
                self.moves_of.clear()
            moves = self.moves_of[st] = list(self._make_moves(st))
        return moves

    def _make_moves(self, st):
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
                    # One loose card of rank r fewer: one front card of rank r fewer, one of
                    # rank r + 1 more.
                    yield c, None, (up(c), skel), (r, r + 1)
        empty = self.piles - len(skel)
        for i, p in enumerate(skel):
            t = p[-1]
            r = t >> 2
            if r > 1 and slack[r] < 1:
                continue  # t cannot be in front
            rest = skeleton(p[:-1])
            others = skel[:i] + skel[i + 1 :]
            left = tuple(sorted(others + (rest,))) if rest else others
            # What t leaving changes whatever it does: the cards under it that turn loose (a
            # run from rank a down to rank b: one front card more of rank b, one fewer of rank
            # a + 1) and the pile's new skeleton top (a front card more of its rank).
            delta = [0] * 15
            if len(rest) < len(p) - 1:
                delta[p[-2] >> 2] += 1
                delta[(p[len(rest)] >> 2) + 1] -= 1
            if rest:
                delta[rest[-1] >> 2] += 1
            if found[t & 3] == r - 1:
                delta[r] -= 1  # t home: a skeleton top fewer
                yield t, None, (up(t), left), _changed(delta)
                delta[r] += 1
            if r == KING:
                if len(p) > 1 and empty > 0:
                    yield t, None, (found, tuple(sorted(left + ((t,),)))), _changed(delta)
                continue
            # Onto a front card one rank higher: the result is the same whichever it is.
            bases = tuple(top_cards[r + 1] + loose_cards[r + 1])
            if bases and slack[r + 1] >= 1:
                # t turns loose on a card of rank r + 1: that card is no longer in front.
                delta[r + 1] -= 1
                yield t, bases, (found, left), _changed(delta)


def _changed(delta) -> tuple:
    """The ranks with a nonzero change."""
    return tuple(r for r in range(2, KING + 1) if delta[r])
