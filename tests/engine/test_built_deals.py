"""Built Eighty Thieves deals (games/engine/built_deals.py): numbers of their own, ordinary
layouts of four full decks, a winning line each, and every other number keeps its shuffle."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import new_game
from games.engine.built_deals import (
    BUILT_COUNT,
    BUILT_FIRST,
    OPEN_COUNT,
    build,
    is_built,
    open_numbers,
    secret_number,
)
from games.engine.shuffle import shuffled, stream_key

LAST = BUILT_FIRST + BUILT_COUNT - 1
# A few built deals' first pile, pinned: the same number must deal the same cards for good.
PINNED_T0 = {
    BUILT_FIRST: ["6H", "4C", "5H", "4S", "2C", "4H", "3H", "3C"],
    BUILT_FIRST + 199: ["9C", "QD", "6H", "2C", "3D", "JD", "8D", "3D"],
    LAST: ["6S", "4D", "AD", "3H", "TH", "5H", "AH", "KD"],
}


def replays_to_a_win(number: int, line) -> bool:
    game = new_game("eighty-thieves", number)
    for move in line:
        game.play(move)  # IllegalMove if the line is wrong
    return game.is_won()


@pytest.mark.parametrize("number", [BUILT_FIRST, BUILT_FIRST + 1, BUILT_FIRST + 12345, LAST])
def test_a_built_deal_is_an_ordinary_layout_of_four_full_decks(number):
    """Ten piles of eight face up, 128 cards in the stock, an empty waste and foundations: what
    the ordinary rules deal."""
    d = new_game("eighty-thieves", number).to_dict()
    assert [len(p) for p in d["tableau"]] == [8] * 10
    assert len(d["stock"]) == 128
    assert d["waste"] == [] and d["down"] == [0] * 10
    assert all(f == [] for f in d["foundations"])
    cards = Counter(c for p in d["tableau"] for c in p) + Counter(d["stock"])
    assert len(cards) == 52 and set(cards.values()) == {4}
    assert d["seed"] == number


@pytest.mark.parametrize("number", sorted(PINNED_T0))
def test_built_deals_never_change(number):
    assert new_game("eighty-thieves", number).to_dict()["tableau"][0] == PINNED_T0[number]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=BUILT_COUNT - 1))
def test_every_built_deal_comes_with_a_line_that_wins_it(index):
    """The construction's line, read forwards, is legal move after move and wins."""
    deck, line = build(index)
    assert replays_to_a_win(BUILT_FIRST + index, line)


@pytest.mark.parametrize(
    "number", [0, 1, 42, BUILT_FIRST - 1, BUILT_FIRST + BUILT_COUNT, 2**63 - 1]
)
def test_every_other_number_keeps_its_shuffled_deal(number):
    """Outside the built range a number deals the documented shuffle, as before."""
    assert not is_built(number)
    deck = shuffled(list(range(52)) * 4, stream_key("eighty-thieves", number))
    game = new_game("eighty-thieves", number)
    assert game.t == [[deck[r * 10 + i] for r in range(8)] for i in range(10)]


@pytest.mark.parametrize("number", [BUILT_FIRST, BUILT_FIRST + 7])
def test_other_variants_deal_their_shuffle_on_a_built_number(number):
    """Built deals are Eighty Thieves only: Penguin's deal of the same number is shuffled."""
    game = new_game("penguin", number)
    assert game.seed == number
    assert game.to_dict()["tableau"] != new_game("penguin", number + 1).to_dict()["tableau"]


@pytest.mark.parametrize("draw", [0, 1, 2**63 - 1, BUILT_COUNT - OPEN_COUNT - 1])
def test_secret_numbers_are_built_deals_that_are_not_open(draw):
    number = secret_number(draw)
    assert is_built(number) and number not in open_numbers()


def test_the_open_deals_are_the_first_built_numbers():
    assert open_numbers() == range(BUILT_FIRST, BUILT_FIRST + OPEN_COUNT)
    assert all(is_built(n) for n in (open_numbers()[0], open_numbers()[-1]))
