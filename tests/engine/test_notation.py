"""Move strings are parsed strictly: anything malformed raises IllegalMove and changes nothing."""

import pytest

from games.engine import VARIANTS, IllegalMove, new_game

MALFORMED = [
    "",
    " t0-t1",
    "t0-t1 ",
    "t0 -t1",
    "t0-t1\n",
    "t0-\tt1",
    "T0-T1",
    "t00-t1",  # leading zero
    "t01-t1",
    "t0-t01",
    "t0-t1:0",  # N >= 1
    "t0-t1:01",
    "t0-t1:-1",
    "t0-t1:",
    "t0-t1:1:1",
    "t-t1",
    "t0t1",
    "t0-t0",  # source and destination the same pile
    "t3-t3:2",
    "w-w",
    "f1-f1",
    "w0-t1",
    "t0-w1",
    "x0-t1",
    "t0-t1-t2",
    "t٣-t1",  # a non-ASCII digit
    "t0-t１",
    "Deal",
    "deal ",
    "deal:1",
    "undo",
    "t0-t1:99999999999999999999",
    "t" + "1" * 5000 + "-t0",
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("move", MALFORMED)
def test_malformed_moves_are_refused_and_change_nothing(variant, move):
    """A malformed move string raises IllegalMove and leaves the game as it was."""
    g = new_game(variant, 11)
    before = g.to_dict()
    with pytest.raises(IllegalMove):
        g.play(move)
    assert g.to_dict() == before and g.history == []


@pytest.mark.parametrize("move", [None, 3, b"t0-t1", ["t0-t1"], ("t0", "t1")])
def test_a_move_that_is_not_a_string_is_refused(move):
    """Only str moves are read."""
    g = new_game("queenie", 1)
    with pytest.raises(IllegalMove, match="must be a string"):
        g.play(move)


def test_illegal_move_is_a_value_error():
    """IllegalMove is a ValueError, so callers may catch either."""
    assert issubclass(IllegalMove, ValueError)


@pytest.mark.parametrize(
    ("variant", "move"),
    [
        ("penelopes-web", "t8-t0"),
        ("penelopes-web", "t0-f4"),
        ("eighty-thieves", "t10-t0"),
        ("eighty-thieves", "t0-f16"),
        ("penguin", "t7-t0"),
        ("penguin", "t0-c7"),
        ("penguin", "c7-t0"),
        ("spiderweb", "t0-f4"),
        ("spiderweb", "t7-t0"),
        ("queenie", "t0-t7"),
        ("queenie", "t0-c0"),
    ],
)
def test_pile_indices_outside_the_variant_are_refused(variant, move):
    """A pile the variant does not have makes the move illegal, with the pile named."""
    g = new_game(variant, 2)
    with pytest.raises(IllegalMove, match="no pile|no cells|no waste"):
        g.play(move)


def test_colon_one_is_the_same_move_as_no_suffix():
    """``t0-t1:1`` plays exactly as ``t0-t1`` and is recorded without the suffix."""
    g = new_game("queenie", 3)
    single = next(m for m in g.legal_moves() if m.startswith("t") and ":" not in m and "-t" in m)
    a, b = g.copy(), g.copy()
    a.play(single)
    b.play(single + ":1")
    assert a.to_dict() == b.to_dict()
    assert b.history == [single]


def test_legal_moves_list_single_cards_without_suffix_and_groups_with_it():
    """A one-card move is listed bare; a group of N with ``:N`` (N >= 2)."""
    for variant in VARIANTS:
        for seed in range(5):
            for move in new_game(variant, seed).legal_moves():
                if ":" in move:
                    assert int(move.split(":")[1]) >= 2
