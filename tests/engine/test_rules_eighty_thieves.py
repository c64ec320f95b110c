"""Eighty Thieves, rule by rule (seeds/001 and the contract's rulings): each case legal where
the rule allows it and refused where it does not, with the listing exact in every position."""

import pytest

V = "eighty-thieves"


@pytest.mark.parametrize(
    ("front", "onto", "allowed"),
    [
        ("7C", "8C", True),  # down in suit
        ("7C", "8S", False),  # same colour, other suit
        ("7C", "8H", False),
        ("7C", "9C", False),
        ("7C", "6C", False),
        ("KC", "AC", False),  # no wrapping round
    ],
)
def test_tableau_builds_down_in_suit(position, check, front, onto, allowed):
    """A front card goes onto the card of its suit one rank higher, nothing else."""
    g = position(V, tableau={0: ["2D", front], 1: ["3D", onto]})
    check(g, "t0-t1", allowed, None if allowed else "cannot go on")


@pytest.mark.parametrize("card", ["2S", "QH", "KD", "AC"])
def test_any_single_card_fills_an_empty_pile(position, check, card):
    """An empty pile takes any single card, from the tableau or from the waste."""
    g = position(V, tableau={0: ["5D", card], 1: []}, waste=[card])
    check(g, "t0-t1", True)
    check(g, "w-t1", True)


def test_a_lone_card_may_move_between_empty_piles(position, check):
    """A pointless move is still legal: a card alone in its pile moves to an empty one."""
    g = position(V, tableau={0: ["9H"], 1: []})
    check(g, "t0-t1", True)


@pytest.mark.parametrize(
    ("move", "allowed"), [("t0-t1", True), ("t0-t1:1", True), ("t0-t1:2", False)]
)
def test_only_one_card_moves_at_a_time(position, check, move, allowed):
    """Sequences never move as a group, even in suit and in order (8♣ 7♣ onto 9♣)."""
    onto = "8C" if move != "t0-t1:2" else "9C"
    g = position(V, tableau={0: ["8C", "7C"], 1: ["2D", onto]})
    check(g, move, allowed, None if allowed else "only single cards")


@pytest.mark.parametrize("foundation", [0, 7, 15])
def test_an_ace_starts_any_of_the_sixteen_empty_foundations(position, check, foundation):
    """An Ace may go to each of the sixteen empty foundations."""
    g = position(V, tableau={0: ["2D", "AH"]})
    check(g, f"t0-f{foundation}", True)
    assert sum(m.startswith("t0-f") for m in g.legal_moves()) == 16


def test_a_card_fitting_two_foundations_is_listed_for_each(position):
    """With four decks two foundations can both want the same card: both moves are listed."""
    g = position(V, tableau={0: ["9D", "3S"]}, foundations={2: ["AS", "2S"], 9: ["AS", "2S"]})
    assert {m for m in g.legal_moves() if m.startswith("t0-f")} == {"t0-f2", "t0-f9"}


def test_deal_turns_the_next_stock_card_onto_the_waste(position):
    """deal moves stock[0] face up onto the waste; undo puts it back."""
    g = position(V, stock=["QH", "3C"], waste=["9S"])
    g.play("deal")
    d = g.to_dict()
    assert d["waste"] == ["9S", "QH"] and d["stock"] == ["3C"]
    g.undo()
    assert g.to_dict()["stock"] == ["QH", "3C"]


@pytest.mark.parametrize(
    ("move", "allowed"),
    [("w-t1", True), ("w-f0", True), ("w-t0", False)],
)
def test_the_top_of_the_waste_plays_like_a_tableau_card(position, check, move, allowed):
    """The waste's top card goes to the tableau or a foundation under the same rules."""
    g = position(V, tableau={0: ["2D", "9C"], 1: []}, waste=["5H", "AD"])
    check(g, move, allowed)


def test_only_the_top_of_the_waste_is_available(position, check):
    """A card under the waste's top stays put: 4♣ is covered, so nothing goes onto 5♣ from it."""
    g = position(V, tableau={0: ["2D", "5C"]}, waste=["4C", "JH"])
    check(g, "w-t0", False, "J♥ cannot go on 5♣")


def test_nothing_goes_onto_the_waste(position, check):
    """Only the stock feeds the waste."""
    g = position(V, tableau={0: ["2D", "9C"]}, waste=["KH"])
    check(g, "t0-w", False)


def test_a_deal_is_a_move_so_a_game_with_stock_is_not_stuck(position):
    """With no other move left, deal remains while the stock has cards."""
    fronts = ["KC", "JC", "9C", "7C", "5C", "3C", "KD", "JD", "9D", "7D"]
    g = position(V, tableau={i: [c] for i, c in enumerate(fronts)}, stock=["4S"], rest="t0")
    assert g.legal_moves() == ["deal"] and not g.is_stuck()
    g.play("deal")
    assert g.legal_moves() == [] and g.is_stuck()


def test_won_when_all_208_cards_are_on_the_foundations(position):
    """Sixteen complete foundations: won."""
    full = {i: [r + "CDHS"[i % 4] for r in "A23456789TJQK"] for i in range(16)}
    g = position(V, foundations=full)
    assert g.is_won() and g.foundation_count() == 208 and not g.is_stuck()


def test_stock_cards_are_face_down_until_drawn_to_the_waste(position):
    """In the player view the stock is hidden and the waste is shown."""
    g = position(V, stock=["QH", "3C"])
    g.play("deal")
    view = g.to_dict(view="player")
    assert view["stock"] == ["??"] and view["waste"] == ["QH"]


def test_deal_may_be_made_while_other_moves_remain(position):
    """Drawing from the stock is a move at any time, not only when nothing else is possible."""
    g = position(V, tableau={0: ["2D", "AH"]}, stock=["QH"])
    moves = g.legal_moves()
    assert "deal" in moves and len(moves) > 1
