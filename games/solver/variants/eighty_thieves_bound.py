"""Eighty Thieves: a sound test that no tableau pile can ever become empty (so the deal is lost).

A win empties every pile, so a position from which no pile can ever empty is lost. Until the
first pile empties there is no empty pile to move to, so every card that moves goes home or
onto a tableau front copy of its in-suit successor: that restricted game is what ``never_empties``
over-approximates, keeping the one thing the older ``dead`` test gave up (the order of the
deals). Positions are those of ``eighty_thieves`` (``(piles, found, waste, dealt)``, cards
``rank * 4 + suit``).

**Phases.** Phase ``t`` (``dealt <= t <= n``, ``n`` the stock's length) is the time during which
exactly ``t`` stock cards have been turned. In phase ``t`` the waste is the position's waste
with ``stock[dealt:t]`` on top of it, in that order.

**The sets.** ``H_t`` (cards that might have gone home by the end of phase ``t``) and ``B_t``
(cards that might have moved onto a tableau card by then), ``M_t = H_t | B_t``, are the least
sets containing ``H_{t-1}``, ``B_{t-1}`` and closed under these rules, where a card ``x`` is
*free-able in phase t* when every card above it in its tableau pile (in the position) is in
``M_t``, or, for a waste card or ``stock[j]`` with ``j < t``, every card above it in the phase-``t``
waste is in ``M_t``:

- ``x`` is in ``H_t`` when free-able and it is an Ace or ``nhome(x - 4) > home0(x)``, where
  ``home0(c)`` counts the copies of ``c`` home in the position and ``nhome(c) = home0(c) +``
  (copies of ``c`` in ``H_t``);
- ``x`` is in ``B_t`` when free-able, not a King, and ``avail(x + 4) > 0``, where ``avail(c)``
  counts the copies of ``c`` that are tableau cards of the position with every card above them in
  ``M_t`` (the fronts included), plus the copies of ``c`` in ``B_t``.

**Claim.** In any line of play from the position, up to and including the move that first
empties a pile (or the whole line if none does), a move in phase ``u`` of a card ``x`` home has
``x`` in ``H_u``, and a move onto a tableau card has ``x`` in ``B_u``.

*Proof.* Before that move no pile is empty (the position has none: ``never_empties`` requires
it), so every move goes home or onto a tableau card. Take the first move of the line that breaks
the claim, of card ``x`` in phase ``u``. Every earlier move is covered, by a set of its own phase
``u' <= u``, and the sets only grow, so every card that moved before is in ``M_u``. The cards
above ``x`` in its pile at the start, or above it in the phase-``u`` waste (the waste cards above
it and the stock cards turned after it), have all left, so they moved: ``x`` is free-able in
phase ``u``. If ``x`` goes home as the ``k``-th copy of its card home (``k > home0(x)``: cards
never leave the foundations), ``k`` foundation piles hold a copy of ``x`` (counting its target),
each with its own copy of ``x - 4`` under it; each of those copies was home in the position or
went home by a covered move: ``nhome(x - 4) >= k > home0(x)``. If ``x`` goes onto a copy ``y``
of ``x + 4``, ``y`` is a tableau front: it was a tableau card of the position with everything
above it gone (moved, so in ``M_u``), or it came to the tableau by a move onto a tableau card,
covered, so ``y`` is in ``B_u``: ``avail(x + 4) > 0``. Either way ``x`` meets the rule of the
closed set, a contradiction.

**Consequence.** If a pile empties, every card it held in the position moved, by the claim into
``M_u`` for some phase ``u <= n``, so ``M_n`` holds the whole pile. When instead every pile keeps
a card outside ``M_n``, no pile ever empties and the position is lost.
"""


def never_empties(pos, stock) -> bool:
    """True when no tableau pile of ``pos`` can ever become empty (proof in the module
    docstring), which makes ``pos`` lost. False when some pile might, or one is empty now."""
    piles, found, waste, dealt = pos
    for p in piles:
        if not p:
            return False
    nhome = [0] * 60
    for f in found:
        for c in range(f & 3, f + 1, 4):  # every card of that foundation pile
            if c >= 4:
                nhome[c] += 1
    home0 = nhome[:]
    avail = [0] * 60
    for p in piles:
        avail[p[-1]] += 1
    depth = [0] * len(piles)  # per pile: how many cards from its front are in M
    left = list(waste)  # the waste cards not in M, top last (the ones above are all in M)
    n = len(stock)

    not_h: list[int] = []  # cards in M but not (yet) in H
    not_b: list[int] = []  # cards in M but not (yet) in B (Kings never are)

    def move(c: int) -> bool:
        """Enter the free-able card ``c`` into H and/or B if a rule lets it; whether one did
        (the set it did not enter is asked again later, as the counts grow)."""
        h = c < 8 or nhome[c - 4] > home0[c]
        b = c < 52 and avail[c + 4] > 0
        if h:
            nhome[c] += 1
        if b:
            avail[c] += 1
        if h != b:
            if h:
                if c < 52:
                    not_b.append(c)
            else:
                not_h.append(c)
        return h or b

    def late() -> bool:
        """Cards already in M that now meet the rule of the set they are not in."""
        grew = False
        for c in not_h[:]:
            if nhome[c - 4] > home0[c]:
                nhome[c] += 1
                not_h.remove(c)
                grew = True
        for c in not_b[:]:
            if avail[c + 4] > 0:
                avail[c] += 1
                not_b.remove(c)
                grew = True
        return grew

    t = dealt
    while True:
        changed = True
        while changed:
            changed = False
            for i, p in enumerate(piles):
                d = depth[i]
                k = len(p)
                while d < k and move(p[k - 1 - d]):
                    d += 1
                    changed = True
                    if d == k:
                        return False  # the whole pile might leave: it might empty
                    avail[p[k - 1 - d]] += 1
                depth[i] = d
            while left and move(left[-1]):
                left.pop()
                changed = True
            if late():
                changed = True
        # Phase t is closed. Turn stock cards until one enters a set (nothing else changes
        # while a new waste top cannot move).
        while t < n:
            left.append(stock[t])
            t += 1
            if move(left[-1]):
                left.pop()
                break
        else:
            return True
