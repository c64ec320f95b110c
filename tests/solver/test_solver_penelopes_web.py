"""Penelope's Web search rules: the dead-position test against a plain reference, the moves
marked reversible."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solver_positions import endgame, exhaustive_verdict, replays_to_a_win
from test_solver_api import blunder_position

from games.engine import new_game
from games.solver import Verdict, solve
from games.solver import search as search_module
from games.solver.cards import KING, parse
from games.solver.variants import RULES
from games.solver.variants.penelopes_relax import (
    Relaxation,
    frozen_runs,
    skeleton,
)

RULES_PW = RULES["penelopes-web"]


def reference_hopeless(piles, found) -> bool:
    """The dead-position fixpoint written plainly (sweeps over the piles, every condition
    looked up afresh): a card might move once every card above it might, and then home (every
    lower card of its suit not home might move), onto a card one rank higher that is not home,
    not under it, and might move or has only cards that might move above it, or, a King, into a
    pile that is or might become all movable."""
    where = {c: (i, k) for i, p in enumerate(piles) for k, c in enumerate(p)}
    m = [0] * len(piles)

    def front(c) -> bool:  # c might move
        i, k = where[c]
        return k >= len(piles[i]) - m[i]

    changed = True
    while changed:
        changed = False
        for i, p in enumerate(piles):
            while m[i] < len(p):
                k = len(p) - m[i] - 1
                x = p[k]
                r, s = x >> 2, x & 3
                ok = all(front(y * 4 + s) for y in range(found[s] + 1, r))
                if not ok and r == KING:
                    ok = any(m[j] == len(q) for j, q in enumerate(piles) if j != i)
                elif not ok:
                    for w in range((r + 1) * 4, (r + 1) * 4 + 4):
                        if found[w & 3] > r:
                            continue
                        wi, wk = where[w]
                        if (wi != i or wk > k) and wk >= len(piles[wi]) - m[wi] - 1:
                            ok = True
                if not ok:
                    break
                m[i] += 1
                changed = True
    return any(m[i] < len(p) for i, p in enumerate(piles))


def fixpoint_only(rules) -> None:
    """Cut only what the dead-position fixpoint proves lost (no relaxed game, with or without
    pins): the plain search the others are checked against."""
    rules.hopeless = lambda pos: not pos[3] and rules.stuck(pos[0], pos[1])


def positions_of_searches(states, per_state: int = 1500):
    """Positions the solver meets searching from each state (children included)."""
    seen = []
    for state in states:
        rules = RULES_PW(state)
        children = rules.children

        def record(pos, children=children):
            for child, notes in children(pos):
                seen.append(child)
                yield child, notes

        rules.children = record
        search_module.search(rules, max_nodes=per_state)
    return seen


def test_dead_position_test_matches_the_plain_reference():
    """On thousands of positions from deals and endgames the fast test gives the reference's
    answer (and both answers occur)."""
    states = [new_game("penelopes-web", s).to_dict() for s in range(4)]
    states += [endgame("penelopes-web", s, left=18) for s in range(4)]
    rules = RULES_PW(states[0])
    answers = set()
    for piles, found, fmap, _ in positions_of_searches(states):
        fast = rules.stuck(piles, found)
        assert fast == reference_hopeless(piles, found)
        assert rules.hopeless((piles, found, fmap, False)) >= fast
        answers.add(fast)
    assert answers == {True, False}


def clubs_left() -> dict:
    """Clubs from the 2 up and the four top diamonds left; loose: Q♦ and J♣ on the K♣, Q♣ on
    the K♦, 8♣ and 7♣ on the 9♣."""
    ranks = "A23456789TJQK"
    state = {
        "variant": "penelopes-web",
        "tableau": [
            ["KC", "QD", "JC"],
            ["KD", "QC"],
            ["2C", "3C"],
            ["TD"],
            ["JD", "5C"],
            ["4C", "6C"],
            ["9C", "8C", "7C"],
            ["TC"],
        ],
        "down": [0] * 8,
        "foundations": [["AC"], [r + "D" for r in ranks[:9]], [r + "H" for r in ranks], []],
        "cells": [],
        "stock": [],
        "waste": [],
    }
    state["foundations"][3] = [r + "S" for r in ranks]
    return state


def test_reversible_moves_are_marked_and_skip_the_test():
    """A card leaving a card one rank higher for another, nothing going home, can go straight
    back: the child is marked, and the dead-position test passes it without looking."""
    rules = RULES_PW(clubs_left())
    marks = {notes[0]: child[3] for child, notes in rules.children(rules.start)}
    assert marks["t0-t1"] is True  # J♣ from the Q♦ to the Q♣
    assert marks["t5-t6"] is False  # 6♣ onto the 7♣ left the 4♣
    assert marks["t3-t0"] is False  # 10♦ onto the J♣ left its pile empty
    child = next(c for c, notes in rules.children(rules.start) if notes[0] == "t0-t1")
    assert rules.hopeless(child) is False


def test_relaxed_position_forgets_where_loose_cards_lie():
    """A loose card (on a card one rank higher) moved onto another such card leaves the relaxed
    position (the foundations and the piles' sorted skeletons) as it was; a card leaving a
    skeleton changes it."""
    rules = RULES_PW(clubs_left())
    piles = rules.start[0]

    def after(move):
        return next(c for c, notes in rules.children(rules.start) if notes[0] == move)[0]

    def skeletons(piles):
        return sorted(skeleton(p) for p in piles if p)

    assert skeletons(after("t0-t1")) == skeletons(piles)  # J♣ Q♦ -> Q♣
    assert skeletons(after("t3-t0")) != skeletons(piles)  # 10♦ -> J♣


def test_relaxed_game_proves_a_small_known_loss_the_fixpoint_misses():
    """A♣ under 3♣, 2♣ on the only 4: the 2 can only go onto the 3, which then never comes
    free (the engine tries every move). The fixpoint still finds that each card might move (the
    2 onto the 3, the 4 onto the 5, the 3 onto the 4); the relaxed game counts one free 3 for one
    loose 2. The winnable deal the 2 was taken from it does not call lost."""
    won = blunder_position()
    lost = blunder_position()
    lost["tableau"][2] = ["4C", "2C"]
    lost["tableau"][3] = []
    assert exhaustive_verdict(lost, cap=100_000) == "lost"
    rules = RULES_PW(lost)
    assert not rules.stuck(rules.start[0], rules.start[1])
    assert Relaxation(8).lost(rules.start[0], rules.start[1])
    assert exhaustive_verdict(won, cap=100_000) == "won"
    rules = RULES_PW(won)
    assert not Relaxation(8).lost(rules.start[0], rules.start[1])


@pytest.mark.slow  # over a second of CPU: in make test, not make check
def test_relaxed_loss_is_a_real_loss():
    """Positions met in searches of deals whose relaxed game is lost: the plain depth-first
    search (dead-position fixpoint alone) never wins from them, and proves many of them lost."""
    lost = []
    for seed in range(6):
        state = new_game("penelopes-web", seed).to_dict()
        relaxation = Relaxation(8)
        positions = positions_of_searches([state], per_state=300)
        lost += [(state, p) for p in positions if relaxation.lost(p[0], p[1])][:5]
    proved = 0
    for state, (piles, found, fmap, _) in lost:
        rules = RULES_PW(state)
        rules.start = (piles, found, fmap, False)
        fixpoint_only(rules)
        result = search_module._depth_first(rules, search_module._Budget(2_000, None))
        assert result.verdict != Verdict.WON
        proved += result.verdict == Verdict.LOST
    assert proved >= 10


def verdict_without_relaxation(state: dict, max_nodes: int):
    """The verdict of depth-first search with the dead-position fixpoint alone."""
    rules = RULES_PW(state)
    fixpoint_only(rules)
    return search_module._depth_first(rules, search_module._Budget(max_nodes, None))


def check_same_verdicts(seeds, max_nodes):
    for seed in seeds:
        state = new_game("penelopes-web", seed).to_dict()
        before = verdict_without_relaxation(state, max_nodes)
        assert before.verdict != Verdict.UNKNOWN, seed
        after = solve(state, max_nodes=max_nodes)
        assert after.verdict == before.verdict, seed
        if after.verdict == Verdict.WON:
            assert replays_to_a_win(state, after.moves), seed


def test_deal_verdicts_are_those_of_the_search_without_relaxation():
    """Deals the plain depth-first search settles get the same verdict with the relaxed cut
    and the guides (wins replay on the engine)."""
    check_same_verdicts([0, 1, 2, 5, 7, 8, 27], max_nodes=60_000)


@pytest.mark.slow
def test_more_deal_verdicts_are_those_of_the_search_without_relaxation():
    """The same over more deals, some of them slow for the plain search."""
    check_same_verdicts([6, 18, 21, 26, 29, 36, 38], max_nodes=200_000)


def test_pins_are_the_cards_under_loose_cards_that_cannot_move():
    """Both Kings are covered by a Queen and no other King is in front (no slack one rank up
    from the Queens): the Queens cannot move but home, so the Kings under them are pinned. The
    Jack on the Queen of spades can still move (onto the Queen of diamonds): nothing is pinned
    for it. (Clubs and hearts are home, diamonds to the 10, spades to the Jack.)"""
    piles = (tuple(map(parse, ["KD", "QS", "JD"])), tuple(map(parse, ["KS", "QD"])))
    found = (13, 10, 13, 11)
    assert frozen_runs(piles, found) == ((12, tuple(sorted((parse("KD"), parse("KS"))))),)
    # A third King in front: a Queen may move onto it, nothing is pinned.
    assert frozen_runs((*piles, (parse("KC"),)), (12, 10, 13, 11)) == ()


def pinned_losses(seeds, per_state: int = 300, cap: int = 5):
    """Positions met in searches of deals that the relaxed game with pins proves lost and the
    relaxed game without them does not."""
    out = []
    for seed in seeds:
        state = new_game("penelopes-web", seed).to_dict()
        relaxation = Relaxation(8)
        for piles, found, fmap, _ in positions_of_searches([state], per_state=per_state):
            if relaxation.lost_pinned(piles, found) and not relaxation.lost(piles, found):
                out.append((state, (piles, found, fmap, False)))
                if len([s for s, _ in out if s is state]) >= cap:
                    break
    return out


def test_pinned_relaxed_loss_is_a_real_loss():
    """Positions whose relaxed game is won but lost once the pins hold: the plain depth-first
    search (dead-position fixpoint alone, no relaxed game) never wins from them, and proves
    many of them lost."""
    lost = pinned_losses([3, 5, 17])
    assert len(lost) >= 12
    proved = 0
    for state, start in lost:
        rules = RULES_PW(state)
        rules.start = start
        fixpoint_only(rules)
        result = search_module._depth_first(rules, search_module._Budget(5_000, None))
        assert result.verdict != Verdict.WON
        proved += result.verdict == Verdict.LOST
    assert proved >= 8


@pytest.mark.slow  # over a second of CPU: in make test, not make check
def test_shared_search_expands_each_position_once():
    """The phases of the search share one graph: no position has its moves generated twice,
    and the later phases walk the positions the earlier ones expanded."""
    state = new_game("penelopes-web", 4).to_dict()
    rules = RULES_PW(state)
    expanded = []
    children = rules.children

    def counting(pos):
        expanded.append(rules.key(pos))
        yield from children(pos)

    rules.children = counting
    result = search_module.search(rules, max_nodes=20_000)
    assert result.verdict == Verdict.UNKNOWN
    assert len(expanded) == len(set(expanded)) > 1_000


@pytest.mark.slow  # over a second of CPU: in make test, not make check
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), left=st.integers(24, 44))
def test_shared_search_agrees_with_plain_depth_first(seed, left):
    """On random positions with 24 to 44 cards left (about a fifth of them lost) the search
    (shared graph, pins, guides) and the plain depth-first search (dead-position fixpoint alone)
    give the same verdict whenever both give one; wins replay on the engine."""
    state = endgame("penelopes-web", seed, left=left)
    rules = RULES_PW(state)
    fixpoint_only(rules)
    rules.strategy = "dfs"
    plain = search_module.search(rules, max_nodes=20_000)
    result = solve(state, max_nodes=20_000)
    if Verdict.UNKNOWN not in (plain.verdict, result.verdict):
        assert result.verdict == plain.verdict
    if result.verdict == Verdict.WON:
        assert replays_to_a_win(state, result.moves)


@pytest.mark.slow  # over a second of CPU: in make test, not make check
def test_one_pass_relaxed_test_is_the_two_tests():
    """``lost_either`` (one pass, the moves of each relaxed position remembered for its pinned
    variants) answers ``lost or lost_pinned`` on positions met in searches of deals, whichever
    asks first, and both answers occur."""
    states = [new_game("penelopes-web", s).to_dict() for s in (3, 4, 17)]
    positions = positions_of_searches(states, per_state=2000)
    one, two = Relaxation(8), Relaxation(8)
    answers = set()
    for piles, found, _, _ in positions:
        full = [p for p in piles if p]
        fast = one.lost_either(full, found, [skeleton(p) for p in full])
        assert fast == (two.lost(piles, found) or two.lost_pinned(piles, found))
        answers.add(fast)
    assert answers == {True, False}
