"""Penelope's Web: a portfolio of searches that take turns over one shared graph of positions.

The phases — one best-first search per guide, then depth-first in the move order of
``children`` — each start from the start position and take turns of ``TURN`` steps until the
budget is spent, like the portfolio of ``games.solver.search`` but interleaved and sharing one
graph: a position is expanded (its moves generated, its children keyed and tested with
``hopeless``) once, by the first phase that reaches it; the others walk it along its stored
edges. So each phase keeps its own order at the cost of a walk through what is known, each
finds its wins about as soon as it would alone, and the work of every phase counts towards
searching the whole space.

Proofs of loss, both sound: a phase that runs out of positions has walked everything reachable
from the start (the edges of an expanded position are all its children but those proved lost,
and a won child ends the search); and once no position met is left unexpanded, every reachable
one has been expanded without a win. Winning lines follow the first edge that reached each
position, each a move of the game. The turns are counted in steps, so a node budget gives the
same answer every time.
"""

import heapq
import time

from ..result import SolveResult, Verdict

# Steps of its walk a phase takes before the next phase's turn.
TURN = 2000


def shared_search(rules, guides, budget) -> SolveResult:
    """Best-first on each priority of ``guides(pos)`` (a tuple, lower first; ties: newest
    position first) and depth-first, taking turns; ``budget`` is a
    ``games.solver.search._Budget``."""
    from ..search import _line  # noqa: PLC0415 - search imports the variants, this one too

    key = rules.key
    children = rules.children
    hopeless = rules.hopeless
    is_won = rules.is_won
    start = rules.start
    ids = {key(start): 0}
    parent = [-1]
    steps = [rules.start_notes]
    positions = [start]  # until expanded
    kids: list = [None]  # once expanded: the ids of its children not proved lost
    # One list per guide (small ints, so a list of them costs a pointer a position).
    prio = [[g] for g in guides(start)]
    nodes = 1
    waiting = 1  # positions met, not proved lost, not yet expanded

    def expand(here):
        """Generate the children of position ``here``; the id of a won child, -1 when the
        whole budget's positions are spent (``here`` left half expanded), or None."""
        nonlocal nodes, waiting
        pos = positions[here]
        positions[here] = None
        waiting -= 1
        out = []
        for child, notes in children(pos):
            k = key(child)
            cid = ids.get(k)
            if cid is not None:
                if kids[cid] is not None or positions[cid] is not None:
                    out.append(cid)  # (else proved lost, or ``here`` itself)
                continue
            cid = nodes
            nodes += 1
            ids[k] = cid
            parent.append(here)
            steps.append(notes)
            kids.append(None)
            if is_won(child):
                return cid
            if nodes == budget.cap:
                return -1
            if hopeless is not None and hopeless(child):
                positions.append(None)
                for row in prio:
                    row.append(0)
                continue
            positions.append(child)
            for row, g in zip(prio, guides(child), strict=True):
                row.append(g)
            waiting += 1
            out.append(cid)
        kids[here] = tuple(out)
        return None

    def best_first(guide):
        """Walk the graph from the start, lowest priority ``guide`` first, expanding what no
        phase has; yields every ``TURN`` steps."""
        seen = {0}
        prio_of = prio[guide]
        heap = [(prio_of[0], 0)]
        walked = 0
        while heap:
            here = -heapq.heappop(heap)[1]
            if kids[here] is None:
                won = expand(here)
                if won is not None:
                    return won
            for c in kids[here]:
                if c not in seen:
                    seen.add(c)
                    heapq.heappush(heap, (prio_of[c], -c))
            walked += 1
            if walked % TURN == 0:
                yield
        return None

    def depth_first():
        """Walk the graph from the start depth-first in the order of ``children``."""
        seen = {0}
        stack = [(0, 0)]
        walked = 0
        while stack:
            here, i = stack.pop()
            if kids[here] is None:
                won = expand(here)
                if won is not None:
                    return won
            row = kids[here]
            while i < len(row) and row[i] in seen:
                i += 1
            if i < len(row):
                seen.add(row[i])
                stack.append((here, i + 1))
                stack.append((row[i], 0))
            walked += 1
            if walked % TURN == 0:
                yield
        return None

    phases = [best_first(g) for g in range(len(prio))] + [depth_first()]
    while True:
        for phase in phases:
            try:
                next(phase)
            except StopIteration as end:
                if end.value is None:  # the phase walked every position it can reach
                    return budget.result(Verdict.LOST, [], nodes)
                if end.value < 0:
                    return budget.result(Verdict.UNKNOWN, [], nodes)
                return budget.result(Verdict.WON, _line(parent, steps, end.value), nodes)
            if not waiting:  # every position met is expanded
                return budget.result(Verdict.LOST, [], nodes)
            if budget.deadline is not None and time.perf_counter() > budget.deadline:
                return budget.result(Verdict.UNKNOWN, [], nodes)
