"""Searches over the rules' positions with a transposition table on canonical keys.

The variant rules (``games.solver.variants``) give the start position, its children (best
first), a score (lower looks closer to a win) and a key that is the same for positions that
differ only by how interchangeable piles are numbered. Every key is stored once seen, so no
position is expanded twice. When the search runs out of positions without a win, every
reachable position has been searched and the deal is proved lost (the rules' pruning and
automatic moves keep a win whenever there is one).

Two orders, chosen per variant (``Rules.strategy``): best-first on the score (short lines,
good where a score guides well) and depth-first in the rules' move order (little memory, fast
where good moves are easy to tell). A best-first portfolio may also name a search of the
variant's own (a method marked ``whole_search``, called with its share of the budget, that
answers won or unknown, never lost).
"""

import heapq
import time

from .result import SolveResult, Verdict
from .variants.base import Rules

# How often (in new positions) the clock is read.
_CLOCK_EVERY = 256


class _Budget:
    """Counts positions and time; makes the result."""

    def __init__(
        self, max_nodes: int | None, max_seconds: float | None, clock=time.perf_counter
    ) -> None:
        self.clock = clock
        self.started = clock()
        self.deadline = None if max_seconds is None else self.started + max_seconds
        self.cap = max_nodes if max_nodes is not None else -1

    @staticmethod
    def share(whole: "_Budget", parts: int, used_nodes: int) -> "_Budget":
        """One of ``parts`` equal shares of what is left of ``whole``."""
        part = _Budget(None, None, whole.clock)
        if whole.cap >= 0:
            left = whole.cap - used_nodes
            part.cap = left // parts if left // parts >= 2 else left
        if whole.deadline is not None:
            part.deadline = part.started + (whole.deadline - part.started) / parts
        return part

    def spent(self, nodes: int) -> bool:
        if 0 <= self.cap <= nodes:
            return True
        return (
            self.deadline is not None and nodes % _CLOCK_EVERY == 0 and self.clock() > self.deadline
        )

    def result(self, verdict: Verdict, moves: list[str], nodes: int) -> SolveResult:
        return SolveResult(verdict, moves, nodes, self.clock() - self.started)


def search(
    rules: Rules,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    clock=time.perf_counter,
) -> SolveResult:
    """Search from ``rules.start`` until a win, exhaustion, or the budget runs out.

    ``clock`` measures ``max_seconds``: wall-clock time, or ``time.process_time`` for figures
    taken on a shared machine (this process's CPU seconds, whatever else runs)."""
    budget = _Budget(max_nodes, max_seconds, clock)
    if rules.is_won(rules.start):
        return budget.result(Verdict.WON, list(rules.start_notes), 1)
    if rules.hopeless is not None and rules.hopeless(rules.start):
        return budget.result(Verdict.LOST, [], 1)
    if rules.strategy == "dfs":
        return _depth_first(rules, budget)
    nodes = 0
    for i, name in enumerate(rules.portfolio):
        if 0 <= budget.cap <= nodes:
            break
        share = _Budget.share(budget, len(rules.portfolio) - i, nodes)
        guide = getattr(rules, name)
        if getattr(guide, "whole_search", False):
            result = guide(share)  # a search of the rules' own (e.g. a beam): won or unknown
        else:
            result = _best_first(rules, guide, share)
        nodes += result.nodes
        if result.verdict != Verdict.UNKNOWN:
            return budget.result(result.verdict, result.moves, nodes)
    return budget.result(Verdict.UNKNOWN, [], nodes)


def _best_first(rules: Rules, score, budget: _Budget) -> SolveResult:
    """Expand the open position with the lowest ``score`` first (ties: the newest)."""
    key = rules.key
    is_won = rules.is_won
    children = rules.children
    hopeless = rules.hopeless
    start = rules.start
    ids = {key(start): 0}
    parent = [-1]
    steps = [rules.start_notes]
    heap = [(score(start), 0, start)]
    push = heapq.heappush
    pop = heapq.heappop
    nodes = 1
    while heap:
        _, neg_id, pos = pop(heap)
        here = -neg_id
        for child, notes in children(pos):
            k = key(child)
            if k in ids:
                continue
            ids[k] = nodes
            parent.append(here)
            steps.append(notes)
            if is_won(child):
                return budget.result(Verdict.WON, _line(parent, steps, nodes), nodes + 1)
            if hopeless is not None and hopeless(child):
                nodes += 1
                continue
            push(heap, (score(child), -nodes, child))
            nodes += 1
            if budget.spent(nodes):
                return budget.result(Verdict.UNKNOWN, [], nodes)
    return budget.result(Verdict.LOST, [], nodes)


def _line(parent: list[int], steps: list[list[str]], last: int) -> list[str]:
    chain = []
    while last >= 0:
        chain.append(steps[last])
        last = parent[last]
    return [m for step in reversed(chain) for m in step]


def _depth_first(rules: Rules, budget: _Budget) -> SolveResult:
    """Follow each position's children in the rules' order, backtracking when spent."""
    key = rules.key
    is_won = rules.is_won
    children = rules.children
    hopeless = rules.hopeless
    start = rules.start
    seen = {key(start)}
    nodes = 1
    stack = [children(start)]
    path: list[list[str]] = [rules.start_notes]
    while stack:
        for child, notes in stack[-1]:
            k = key(child)
            if k in seen:
                continue
            seen.add(k)
            nodes += 1
            if is_won(child):
                path.append(notes)
                return budget.result(Verdict.WON, [m for step in path for m in step], nodes)
            if budget.spent(nodes):
                return budget.result(Verdict.UNKNOWN, [], nodes)
            if hopeless is not None and hopeless(child):
                continue
            stack.append(children(child))
            path.append(notes)
            break
        else:
            stack.pop()
            path.pop()
    return budget.result(Verdict.LOST, [], nodes)
