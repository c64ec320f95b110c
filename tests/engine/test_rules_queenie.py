"""Queenie, rule by rule (seeds/004 and the contract's rulings): each case legal where the rule
allows it and refused where it does not, with the listing exact in every position."""

import pytest

V = "queenie"


@pytest.mark.parametrize(
    ("back", "onto", "allowed"),
    [
        ("5H", "6S", True),  # red on black, one rank lower
        ("5H", "6C", True),
        ("5S", "6D", True),  # black on red
        ("5H", "6D", False),  # same colour
        ("5S", "6C", False),
        ("5H", "7S", False),
        ("5H", "4S", False),
        ("KH", "AS", False),  # ranks are not circular
    ],
)
def test_tableau_builds_down_in_alternating_colours(position, check, back, onto, allowed):
    """A card goes onto a card one rank higher of the other colour."""
    g = position(
        V,
        tableau={
            0: ["9D" if back != "9D" else "9H", back],
            1: ["8D" if onto != "8D" else "8H", onto],
        },
    )
    check(g, "t0-t1", allowed, None if allowed else "cannot go on")


@pytest.mark.parametrize(("count", "allowed"), [(1, False), (2, False), (3, True), (4, False)])
def test_any_group_moves_whatever_its_order(position, check, count, allowed):
    """9♣ 2♥ K♦ (no sequence at all) moves as a group onto 10♥, because its back card 9♣
    fits there; its front parts do not fit."""
    g = position(V, tableau={0: ["JS", "9C", "2H", "KD"], 1: ["4D", "TH"]})
    move = "t0-t1" if count == 1 else f"t0-t1:{count}"
    check(g, move, allowed)


def test_a_group_is_named_by_its_size_counted_from_the_front(position):
    """``t0-t1:K`` moves the K front cards; the listing names each group by that count."""
    g = position(V, tableau={0: ["JS", "9C", "2H", "KD"], 1: ["4D", "TH"]})
    assert "t0-t1:3" in g.legal_moves()
    g.play("t0-t1:3")
    assert g.to_dict()["tableau"][:2] == [["JS"], ["4D", "TH", "9C", "2H", "KD"]]


@pytest.mark.parametrize(
    ("pile", "count", "allowed"),
    [
        (["5C", "KH"], 1, True),
        (["KH", "5C", "2D"], 3, True),
        (["QH"], 1, False),
        (["KH", "5C"], 1, False),
    ],
)
def test_only_a_king_or_a_group_with_a_king_at_the_back_fills_an_empty_pile(
    position, check, pile, count, allowed
):
    """An empty pile takes a King, or a group whose back card is a King, and nothing else."""
    g = position(V, tableau={0: pile, 1: []})
    move = "t0-t1" if count == 1 else f"t0-t1:{count}"
    check(g, move, allowed, None if allowed else "only a King may fill an empty pile")


def test_a_whole_pile_headed_by_a_king_may_move_to_an_empty_pile(position, check):
    """A pointless move is legal: the King-headed pile moves between empty piles."""
    g = position(V, tableau={0: ["KH", "5C"], 1: []})
    check(g, "t0-t1:2", True)


@pytest.mark.parametrize("foundation", [0, 1, 2, 3])
def test_an_ace_may_go_to_any_empty_foundation(position, check, foundation):
    """Any card that may start a foundation may go to any empty foundation pile."""
    g = position(V, tableau={0: ["9D", "AS"]})
    check(g, f"t0-f{foundation}", True)


def test_only_front_cards_go_to_foundations(position, check):
    """A group never goes to a foundation; the card behind the front one does not either."""
    g = position(V, tableau={0: ["AS", "9D"]})
    check(g, "t0-f0:2", False, "only front cards")


@pytest.mark.parametrize("empty", [(), (0,), (2, 6)])
def test_deal_puts_one_card_face_up_on_every_pile_empty_ones_too(position, empty):
    """deal: stock[0] onto t0, stock[1] onto t1, … stock[6] onto t6, empty piles included."""
    stock = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
    g = position(V, tableau={i: [] for i in empty}, stock=stock)
    before = g.to_dict()
    g.play("deal")
    d = g.to_dict()
    assert [p[-1] for p in d["tableau"]] == stock[:7]
    assert d["stock"] == stock[7:]
    g.undo()
    assert g.to_dict() == before


def test_the_last_deal_of_three_covers_t0_to_t2(position):
    """With three cards left, deal covers t0, t1, t2 and leaves t3..t6 alone."""
    g = position(V, stock=["JH", "QH", "KH"])
    before = g.to_dict()["tableau"]
    g.play("deal")
    after = g.to_dict()["tableau"]
    assert [p[-1] for p in after[:3]] == ["JH", "QH", "KH"]
    assert after[3:] == before[3:]
    assert g.to_dict()["stock"] == []


def test_a_dealt_game_deals_exactly_four_times(position):
    """24 stock cards: three deals of seven, then one of three, then none."""
    from games.engine import new_game

    g = new_game(V, 5)
    sizes = []
    while "deal" in g.legal_moves():
        n = len(g.to_dict()["stock"])
        g.play("deal")
        sizes.append(n - len(g.to_dict()["stock"]))
    assert sizes == [7, 7, 7, 3]


def test_stuck_only_once_the_stock_is_gone(position):
    """Only black cards left and no empty pile: no move but the deal; after it, stuck."""
    up = "A23456789TJQK"
    foundations = {0: [r + "H" for r in up], 1: [r + "D" for r in up]}
    foundations |= {2: [r + "C" for r in up[:5]], 3: [r + "S" for r in up[:5]]}
    piles = [["6C", "7C"], ["6S", "8S", "7S"], ["9C"], ["TC"], ["JC", "QC", "KC"], ["9S", "TS"]]
    piles.append(["JS", "QS", "KS"])
    g = position(V, tableau=dict(enumerate(piles)), foundations=foundations, stock=["8C"])
    assert g.legal_moves() == ["deal"] and not g.is_stuck()
    g.play("deal")
    assert g.legal_moves() == [] and g.is_stuck() and not g.is_won()


def test_won_when_all_52_are_on_the_foundations(position):
    """Four complete foundations: won."""
    g = position(V, foundations={i: [r + s for r in "A23456789TJQK"] for i, s in enumerate("CDHS")})
    assert g.is_won() and g.foundation_count() == 52


def test_each_empty_pile_may_take_the_king(position):
    """With two empty piles a King-headed group is listed to each of them."""
    g = position(V, tableau={0: ["KH", "5C"], 1: [], 2: []})
    moves = set(g.legal_moves())
    assert {"t0-t1:2", "t0-t2:2"} <= moves
    assert "t0-t1" not in moves and "t0-t2" not in moves
