"""Spiderweb, rule by rule (seeds/003 and the contract's rulings): each case legal where the
rule allows it and refused where it does not, with the listing exact in every position."""

import pytest

V = "spiderweb"
SUIT_SPADES = [r + "S" for r in "KQJT98765432A"]


@pytest.mark.parametrize(
    ("front", "onto", "allowed"),
    [
        ("4C", "5C", True),
        ("4C", "5H", True),  # any suit
        ("4C", "5D", True),
        ("4C", "7C", False),
        ("4C", "3C", False),
        ("KC", "AH", False),  # ranks are not circular
    ],
)
def test_a_card_goes_onto_any_card_one_rank_above(position, check, front, onto, allowed):
    """Any face-up card goes onto a card exactly one rank above it, whatever the suit."""
    g = position(V, tableau={0: ["9D", front], 1: ["8D", onto]})
    check(g, "t0-t1", allowed, None if allowed else "cannot go on")


@pytest.mark.parametrize(
    ("pile", "move", "allowed"),
    [
        (["6H", "5S", "4S"], "t0-t1:2", True),  # 4♠ 5♠ onto 6♦
        (["6H", "5S", "4S"], "t0-t1:3", False),  # 6♥ is another suit
        (["5D", "3D", "2D"], "t0-t2:2", True),  # 2♦ 3♦ onto 4♥
        (["5D", "3D", "2D"], "t0-t2:3", False),  # 3 and 5 are not consecutive
    ],
)
def test_a_run_in_one_suit_moves_as_a_group(position, check, pile, move, allowed):
    """Front cards of one suit in consecutive ranks move together; the back card decides
    where (the rule text's two examples)."""
    g = position(V, tableau={0: ["9C"] + pile, 1: ["8C", "6D"], 2: ["8H", "4H"]})
    check(g, move, allowed, None if allowed else "not face-up cards of one suit in sequence")


def test_a_group_never_includes_a_face_down_card(position, check):
    """5♠ is face down under 4♠, so only 4♠ moves."""
    g = position(V, tableau={0: ["9C", "5S", "4S"], 1: [], 2: ["8C", "5H"]}, down={0: 2})
    check(g, "t0-t1:2", False)
    check(g, "t0-t2", True)


@pytest.mark.parametrize("move", ["t0-t1", "t0-t1:2", "t0-t1:3"])
def test_any_card_or_group_goes_onto_an_empty_pile(position, check, move):
    """An empty pile takes any card or run."""
    g = position(V, tableau={0: ["KD", "7S", "6S", "5S"], 1: []})
    check(g, move, True)


def test_an_exposed_face_down_card_turns_up_as_part_of_the_move(position):
    """Moving 4♠ off exposes the face-down 9♥, which is face up at once; undo turns it down."""
    g = position(V, tableau={0: ["2C", "9H", "4S"], 1: ["8C", "5H"]}, down={0: 2})
    g.play("t0-t1")
    assert g.to_dict()["down"][0] == 1
    assert g.to_dict(view="player")["tableau"][0] == ["??", "9H"]
    g.undo()
    assert g.to_dict()["down"][0] == 2
    assert g.to_dict(view="player")["tableau"][0] == ["??", "??", "4S"]


@pytest.mark.parametrize("empty", [True, False])
def test_deal_puts_one_card_face_up_on_each_of_the_first_five_piles(position, empty):
    """deal: stock[0] onto t0, … stock[4] onto t4, face up, empty piles or not; t5, t6
    get nothing."""
    stock = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
    tableau = {0: [], 3: []} if empty else {}
    g = position(V, tableau=tableau, stock=stock)
    before = g.to_dict()
    g.play("deal")
    d = g.to_dict()
    assert [p[-1] for p in d["tableau"][:5]] == stock[:5]
    assert d["tableau"][5:] == before["tableau"][5:]
    assert d["stock"] == stock[5:]
    assert d["down"] == before["down"]
    g.undo()
    assert g.to_dict() == before


@pytest.mark.parametrize("foundation", [0, 1, 2, 3])
def test_an_empty_foundation_takes_any_single_card_as_a_cell(position, check, foundation):
    """Each empty foundation is a cell: any single front card goes in."""
    g = position(V, tableau={0: ["2C", "7D"]})
    check(g, f"t0-f{foundation}", True)


def test_a_group_does_not_go_into_a_cell(position, check):
    """Only a single card goes into a cell."""
    g = position(V, tableau={0: ["2C", "8D", "7D"]})
    check(g, "t0-f0:2", False, "only a single card or a complete suit")


@pytest.mark.parametrize("held", [["9H"], SUIT_SPADES])
def test_a_foundation_in_use_takes_no_card(position, check, held):
    """A foundation holding a card (a cell in use) or a completed suit takes nothing."""
    g = position(V, tableau={0: ["2C", "7D"]}, foundations={1: held})
    check(g, "t0-f1", False, "only an empty foundation takes cards")


@pytest.mark.parametrize(
    ("dst_pile", "allowed"),
    [(["2C", "TS"], True), (["2C", "TH"], True), (["2C", "JS"], False), ([], True)],
)
def test_a_cell_card_goes_back_to_the_tableau_under_the_normal_rules(
    position, check, dst_pile, allowed
):
    """9♥ in f2 goes onto any 10, or onto an empty pile, and nowhere else in the tableau."""
    g = position(V, tableau={1: dst_pile}, foundations={2: ["9H"]})
    check(g, "f2-t1", allowed)


def test_a_cell_card_does_not_move_to_another_foundation(position, check):
    """A card in a cell goes back only to the tableau (the contract names no other way out)."""
    g = position(V, foundations={2: ["9H"]})
    check(g, "f2-f0", False, "only go back to the tableau")


@pytest.mark.parametrize("foundation", [0, 3])
def test_a_complete_suit_goes_to_an_empty_foundation(position, check, foundation):
    """King at the back to Ace at the front, one suit, all face up: tN-fM:13."""
    g = position(V, tableau={0: ["2C"] + SUIT_SPADES}, foundations={1: ["9H"]})
    check(g, f"t0-f{foundation}:13", True)
    g.play(f"t0-f{foundation}:13")
    assert g.to_dict()["foundations"][foundation] == SUIT_SPADES
    assert g.foundation_count() == 13


def test_a_complete_suit_does_not_go_to_a_foundation_in_use_as_a_cell(position, check):
    """To qualify as empty a foundation must not hold a card."""
    g = position(
        V,
        tableau={0: ["2C"] + SUIT_SPADES},
        foundations={i: [c] for i, c in enumerate(["9H", "8H", "7H", "6H"])},
    )
    check(g, "t0-f1:13", False, "only an empty foundation takes cards")


@pytest.mark.parametrize("count", [2, 12])
def test_part_of_a_suit_does_not_go_to_a_foundation(position, check, count):
    """Only the whole suit, thirteen cards, goes to a foundation as a group."""
    g = position(V, tableau={0: ["2C"] + SUIT_SPADES})
    check(g, f"t0-f0:{count}", False, "only a single card or a complete suit")


def test_a_suit_with_a_face_down_card_does_not_go_up(position, check):
    """All thirteen must be face up: a face-down King keeps the suit in the tableau."""
    g = position(V, tableau={0: ["2C"] + SUIT_SPADES}, down={0: 2})
    check(g, "t0-f0:13", False)


def test_a_completed_suit_stays_on_its_foundation(position, check):
    """Once a suit is up it never comes back, not even its Ace."""
    g = position(V, tableau={1: []}, foundations={0: SUIT_SPADES})
    check(g, "f0-t1", False, "a completed suit stays")


def test_a_complete_suit_may_also_move_within_the_tableau(position, check):
    """A full suit is a run like any other: it moves onto an empty pile."""
    g = position(V, tableau={0: ["2C"] + SUIT_SPADES, 1: []})
    check(g, "t0-t1:13", True)


def test_won_when_four_suits_are_up(position):
    """All four foundations complete: won; a card in a cell is not counted as up."""
    g = position(V, foundations={i: [r + s for r in "KQJT98765432A"] for i, s in enumerate("CDHS")})
    assert g.is_won() and g.foundation_count() == 52 and not g.is_stuck()
    g = position(V, foundations={0: ["9H"]})
    assert g.foundation_count() == 0


def test_a_game_with_stock_is_not_stuck(position):
    """While the stock has cards a deal is always possible."""
    fronts = ["KC", "JC", "9C", "7C", "5C", "3C", "KD"]
    cells = {i: [c] for i, c in enumerate(["KH", "JH", "9H", "7H"])}
    g = position(
        V,
        tableau={i: [c] for i, c in enumerate(fronts)},
        foundations=cells,
        stock=["AS"],
        rest="t0",
    )
    assert g.legal_moves() == ["deal"] and not g.is_stuck()
    g.play("deal")
    assert g.legal_moves() == [] and g.is_stuck()


def test_a_deal_may_be_made_at_any_time(position):
    """deal is legal whatever else is possible, empty piles or not."""
    g = position(V, tableau={5: [], 6: []}, stock=["AS", "2S", "3S", "4S", "5S"])
    moves = g.legal_moves()
    assert "deal" in moves and len(moves) > 1
