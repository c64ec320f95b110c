"""Penelope's Web: a portfolio of searches over one shared graph of positions.

Each phase — one best-first search per guide, then depth-first in the move order of
``children`` — starts from the start position with an equal share of what is left of the
budget, like the portfolio of ``games.solver.search``, but all phases share one graph: a
position is expanded (its moves generated, its children keyed and tested with ``hopeless``)
once, by the first phase that reaches it; later phases walk it along its stored edges.
So a phase runs its own order at the cost of a walk through what is known, and the work of
every phase counts towards searching the whole space.

Proofs of loss, both sound: a phase that runs out of positions has walked everything reachable
from the start (the edges of an expanded position are all its children but those proved lost,
and a won child ends the search); and once no position met is left unexpanded, every reachable
one has been expanded without a win. Winning lines follow the first edge that reached each
position, each a move of the game.
"""

import heapq
import time

from ..result import SolveResult, Verdict


def shared_search(rules, guides, budget) -> SolveResult:
    """Best-first on each priority of ``guides(pos)`` (a tuple, lower first; ties: newest
    position first), then depth-first; ``budget`` is a ``games.solver.search._Budget``."""
    from ..search import _Budget, _line

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
    prio = [guides(start)]
    phases = len(prio[0]) + 1
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
                prio.append(None)
                continue
            positions.append(child)
            prio.append(guides(child))
            waiting += 1
            out.append(cid)
        kids[here] = out
        return None

    won = None
    for phase in range(phases):
        share = _Budget.share(budget, phases - phase, nodes)
        first = nodes
        seen = {0}
        walked = 0
        done = False  # the phase, or the graph, ran out of positions
        if phase < phases - 1:
            heap = [(prio[0][phase], 0)]
            while heap:
                here = -heapq.heappop(heap)[1]
                if kids[here] is None:
                    won = expand(here)
                    if won is not None:
                        break
                for c in kids[here]:
                    if c not in seen:
                        seen.add(c)
                        heapq.heappush(heap, (prio[c][phase], -c))
                walked += 1
                if not waiting or _spent(share, nodes - first, walked):
                    break
            done = not heap or not waiting
        else:
            stack = [(0, 0)]
            while stack:
                here, i = stack.pop()
                if kids[here] is None:
                    won = expand(here)
                    if won is not None:
                        break
                row = kids[here]
                while i < len(row) and row[i] in seen:
                    i += 1
                if i < len(row):
                    seen.add(row[i])
                    stack.append((here, i + 1))
                    stack.append((row[i], 0))
                walked += 1
                if not waiting or _spent(share, nodes - first, walked):
                    break
            done = not stack or not waiting
        if won == -1:
            break
        if won is not None:
            return budget.result(Verdict.WON, _line(parent, steps, won), nodes)
        if done:
            return budget.result(Verdict.LOST, [], nodes)
        if 0 <= budget.cap <= nodes:
            break
    return budget.result(Verdict.UNKNOWN, [], nodes)


def _spent(share, used: int, walked: int) -> bool:
    """Whether a phase has used its share: positions it added, or (read every 256 steps of
    its walk) the clock."""
    if 0 <= share.cap <= used:
        return True
    return share.deadline is not None and walked % 256 == 0 and time.perf_counter() > share.deadline
