"""Penguin, rule by rule (seeds/002 and the contract's rulings): each case legal where the
rule allows it and refused where it does not, with the listing exact in every position."""

import pytest

V = "penguin"
SUITS = "CDHS"


def beak(rank: str) -> dict[int, list[str]]:
    """Foundations as dealt when the beak has ``rank`` and is the spade: f0..f2 started."""
    return {0: [rank + "C"], 1: [rank + "D"], 2: [rank + "H"], 3: []}


@pytest.mark.parametrize(
    ("beak_rank", "front", "onto", "allowed"),
    [
        ("A", "7H", "8H", True),  # down in suit
        ("A", "7H", "8D", False),  # same colour, other suit
        ("A", "7H", "8S", False),
        ("A", "7H", "9H", False),
        ("A", "QH", "KH", True),
        ("5", "KS", "AS", True),  # ranks are circular: a King sits on an Ace
        ("A", "KS", "AS", False),  # … but nothing sits on a card of the beak's rank
        ("5", "4S", "5S", False),
        ("5", "5S", "6S", True),  # the beak's rank itself may sit (a run ends with it)
    ],
)
def test_tableau_builds_down_in_suit_circularly(position, check, beak_rank, front, onto, allowed):
    """A card sits on the card of its suit one rank above it, circularly, never on a card of
    the beak's rank."""
    g = position(
        V,
        tableau={0: ["2D" if "2D" not in (front, onto) else "3D", front], 1: [onto]},
        foundations=beak(beak_rank),
        rest="t2",
    )
    check(g, "t0-t1", allowed, None if allowed else "cannot go on")


RUN = ["QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S"]


def test_a_run_of_any_length_moves_as_a_unit(position, check):
    """Ten cards in suit move at once onto the King, with every cell full (no supermove limit)."""
    g = position(
        V,
        tableau={0: ["2C"] + RUN, 1: ["3D", "KS"]},
        cells={i: c for i, c in enumerate(["4D", "5D", "6D", "7D", "8D", "9D", "TD"])},
    )
    check(g, "t0-t1:10", True)


@pytest.mark.parametrize(("count", "allowed"), [(1, False), (2, False), (3, True), (4, False)])
def test_a_run_moves_onto_the_card_its_back_card_may_sit_on(position, check, count, allowed):
    """9♠ 8♠ 7♠ goes onto 10♠ whole; its front part or more than the run does not."""
    g = position(V, tableau={0: ["2C", "9S", "8S", "7S"], 1: ["3D", "TS"]})
    move = "t0-t1" if count == 1 else f"t0-t1:{count}"
    check(g, move, allowed)


def test_a_broken_sequence_is_not_a_run(position, check):
    """9♠ 7♠ is not a run (8♠ missing), so it cannot move as one."""
    g = position(V, tableau={0: ["2C", "9S", "7S"], 1: ["3D", "TS"], 2: []})
    check(g, "t0-t1:2", False, "not a run")


@pytest.mark.parametrize(
    ("beak_rank", "back", "allowed"),
    [("A", "KH", True), ("A", "QH", False), ("T", "9H", True), ("T", "KH", False)],
)
def test_an_empty_pile_takes_a_run_whose_back_card_is_one_below_the_beak(
    position, check, beak_rank, back, allowed
):
    """Only a card (or run headed by a card) one rank below the beak fills an empty pile."""
    g = position(V, tableau={0: ["2C", back], 1: []}, foundations=beak(beak_rank), rest="t2")
    check(g, "t0-t1", allowed, None if allowed else "one rank below the beak")


def test_an_empty_pile_takes_a_whole_run_from_the_king(position, check):
    """With an Ace beak, K♥ Q♥ J♥ moves to an empty pile as one unit."""
    g = position(V, tableau={0: ["2C", "KH", "QH", "JH"], 1: []})
    check(g, "t0-t1:3", True)


def test_a_lone_king_may_move_between_empty_piles(position, check):
    """A pointless move is still legal (Ace beak: a King fills an empty pile)."""
    g = position(V, tableau={0: ["KH"], 1: []})
    check(g, "t0-t1", True)


@pytest.mark.parametrize(("cell", "allowed"), [(1, True), (0, False)])
def test_a_cell_holds_one_card(position, check, cell, allowed):
    """Any front card goes into an empty cell; an occupied one takes nothing."""
    g = position(V, tableau={4: ["2C", "9D"]}, cells={0: "QS"})
    check(g, f"t4-c{cell}", allowed, None if allowed else "already holds Q♠")


def test_only_single_cards_go_to_a_cell(position, check):
    """A run goes to a cell only one card at a time."""
    g = position(V, tableau={4: ["2C", "9D", "8D"]})
    check(g, "t4-c1:2", False, "only single cards")


@pytest.mark.parametrize(("dst", "allowed"), [("c3", True), ("c1", False)])
def test_a_card_moves_between_cells(position, check, dst, allowed):
    """A card moves from a cell to another empty cell (pointless but legal)."""
    g = position(V, cells={0: "QS", 1: "9H"})
    check(g, f"c0-{dst}", allowed)


@pytest.mark.parametrize(
    ("cell", "dst_pile", "allowed"),
    [("9H", ["3D", "TH"], True), ("9H", ["3D", "TS"], False), ("KH", [], True), ("QH", [], False)],
)
def test_a_cell_card_goes_to_the_tableau_under_the_same_rules(
    position, check, cell, dst_pile, allowed
):
    """From a cell a card goes onto the card it may sit on, or to an empty pile if one rank
    below the beak."""
    g = position(V, tableau={1: dst_pile}, cells={2: cell})
    check(g, "c2-t1", allowed)


@pytest.mark.parametrize(
    ("card", "src", "allowed"),
    [("AH", "t", True), ("2H", "t", False), ("AH", "c", True), ("2H", "c", False)],
)
def test_foundations_wrap_round_from_king_to_ace(position, check, card, src, allowed):
    """Beak 10: after 10♥ J♥ Q♥ K♥ comes A♥, from the tableau or from a cell."""
    found = beak("T")
    found[2] = ["TH", "JH", "QH", "KH"]
    g = position(
        V,
        tableau={0: ["2C", card]} if src == "t" else {},
        cells={0: card} if src == "c" else {},
        foundations=found,
        rest="t3",
    )
    check(g, f"{src}0-f2", allowed)


@pytest.mark.parametrize(("card", "allowed"), [("TS", True), ("9S", False), ("AS", False)])
def test_only_the_beaks_rank_starts_a_foundation(position, check, card, allowed):
    """The empty foundation takes a card of the beak's rank only."""
    g = position(V, tableau={0: ["2C", card]}, foundations=beak("T"), rest="t3")
    check(g, "t0-f3", allowed, None if allowed else "only a 10 (the beak's rank)")


@pytest.mark.parametrize(("foundation", "allowed"), [(1, True), (0, False), (3, False)])
def test_the_beak_goes_to_whichever_foundation_is_empty(position, check, foundation, allowed):
    """Any card that may start a foundation may go to any empty foundation pile: here f1."""
    found = {0: ["TC"], 1: [], 2: ["TD"], 3: ["TH"]}
    g = position(V, tableau={0: ["2C", "TS"]}, foundations=found, rest="t3")
    check(g, f"t0-f{foundation}", allowed)


def test_only_single_cards_go_to_foundations(position, check):
    """A run never goes to a foundation as a group."""
    found = beak("A")
    found[0] = ["AC", "2C"]
    g = position(V, tableau={0: ["9D", "4C", "3C"]}, foundations=found)
    check(g, "t0-f0:2", False, "only single cards")
    check(g, "t0-f0", True)


def test_won_when_every_foundation_holds_thirteen(position):
    """All four foundations built round from the beak: won."""
    ranks = "89TJQKA234567"
    g = position(V, foundations={i: [r + s for r in ranks] for i, s in enumerate(SUITS)})
    assert g.is_won() and not g.is_stuck() and g.foundation_count() == 52


def test_stuck_when_no_legal_move_remains(position):
    """Cells full, no card fits anywhere: stuck."""
    g = position(
        V,
        tableau={i: [c] for i, c in enumerate(["3C", "5C", "7C", "9C", "JC", "KC"])},
        cells={i: c for i, c in enumerate(["3D", "5D", "7D", "9D", "JD", "KD", "3H"])},
        rest="t6",
    )
    assert g.to_dict()["tableau"][6][-1] == "KS"
    assert g.legal_moves() == [] and g.is_stuck() and not g.is_won()
