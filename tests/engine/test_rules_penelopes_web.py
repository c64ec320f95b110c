"""Penelope's Web, rule by rule (seeds/000): each case legal where the rule allows it and
refused where it does not, with the listing exact in every position."""

import pytest

V = "penelopes-web"


@pytest.mark.parametrize(
    ("front", "onto", "allowed"),
    [
        ("7S", "8H", True),  # down in rank, other suit
        ("7S", "8S", True),  # down in rank, same suit
        ("7S", "9H", False),
        ("7S", "6H", False),
        ("7S", "7H", False),
        ("KS", "AH", False),  # no wrapping round
    ],
)
def test_tableau_builds_down_in_rank_regardless_of_suit(position, check, front, onto, allowed):
    """A front card goes onto a card one rank higher, of any suit."""
    g = position(V, tableau={0: ["2C", front], 1: ["3C", onto]})
    check(g, "t0-t1", allowed, None if allowed else "cannot go on")


def test_refusal_names_both_cards(position):
    """The reason reads like a player would say it: 7♠ cannot go on 9♥."""
    g = position(V, tableau={0: ["2C", "7S"], 1: ["3C", "9H"]})
    with pytest.raises(ValueError, match="7♠ cannot go on 9♥"):
        g.play("t0-t1")


@pytest.mark.parametrize(
    ("onto", "move", "allowed"),
    [("8H", "t0-t1", True), ("8H", "t0-t1:1", True), ("9H", "t0-t1:2", False)],
)
def test_only_single_cards_move(position, check, onto, move, allowed):
    """Only the front card moves, one at a time, even where the two front cards (8♦ 7♠)
    would fit as a sequence."""
    g = position(V, tableau={0: ["8D", "7S"], 1: ["2C", onto]})
    check(g, move, allowed, None if allowed else "only single cards")


@pytest.mark.parametrize(
    ("card", "allowed"), [("KS", True), ("KH", True), ("QS", False), ("AS", False)]
)
def test_only_a_king_fills_an_empty_pile(position, check, card, allowed):
    """An empty pile takes a King and nothing else."""
    g = position(V, tableau={0: ["2C", card], 1: []})
    check(g, "t0-t1", allowed, None if allowed else "only a King may fill an empty pile")


def test_a_lone_king_may_move_between_empty_piles(position, check):
    """A pointless move is still legal: a King alone in its pile moves to an empty one."""
    g = position(V, tableau={0: ["KS"], 1: []})
    check(g, "t0-t1", True)


@pytest.mark.parametrize("foundation", [0, 1, 2, 3])
def test_an_ace_starts_any_empty_foundation(position, check, foundation):
    """An Ace may go to each empty foundation; each is listed as its own move."""
    g = position(V, tableau={0: ["2C", "AH"]})
    check(g, f"t0-f{foundation}", True)


def test_an_ace_is_listed_once_per_empty_foundation(position):
    """With f1 started, an Ace lists t-f0, t-f2, t-f3 and not t-f1."""
    g = position(V, tableau={0: ["2C", "AH"]}, foundations={1: ["AS"]})
    assert {m for m in g.legal_moves() if m.startswith("t0-f")} == {"t0-f0", "t0-f2", "t0-f3"}


@pytest.mark.parametrize(
    ("move", "reason"),
    [("deal", "no stock"), ("t0-c0", "no cells"), ("w-t0", "no waste"), ("t0-w", "no waste")],
)
def test_there_is_no_stock_waste_or_cell(position, check, move, reason):
    """No stock, no redeal, no reserve: deal and cell or waste moves are refused."""
    check(position(V), move, False, reason)


def test_won_when_all_four_foundations_are_complete(position):
    """All 52 cards on the foundations: won, not stuck, no move left."""
    suits = "CDHS"
    g = position(V, foundations={i: [r + s for r in "A23456789TJQK"] for i, s in enumerate(suits)})
    assert g.is_won() and not g.is_stuck() and g.legal_moves() == []
    assert g.foundation_count() == 52


def test_stuck_when_no_legal_move_remains(position):
    """No front card fits anywhere and no pile is empty: stuck, not won."""
    fronts = ["KC", "JC", "9C", "7C", "5C", "3C", "KD", "JD"]
    g = position(V, tableau={i: [card] for i, card in enumerate(fronts)}, rest="t0")
    assert g.legal_moves() == []
    assert g.is_stuck() and not g.is_won()


def test_not_stuck_while_a_move_remains(position):
    """One legal move left (a 2 onto a 3) is enough not to be stuck."""
    fronts = ["KC", "JC", "9C", "7C", "5C", "3C", "KD", "2D"]
    g = position(V, tableau={i: [card] for i, card in enumerate(fronts)}, rest="t0")
    assert g.legal_moves() == ["t7-t5"]
    assert not g.is_stuck()
