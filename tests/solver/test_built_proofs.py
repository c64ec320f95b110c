"""Every Eighty Thieves deal offered as winnable has a winning line that replays to a win on the
engine: the shipped lines of the open built deals, the construction's line of any other built
deal; and `solve` answers won with that line."""

import io
import json

import pytest
from django.core.management import call_command

from games.engine import new_game
from games.engine.built_deals import BUILT_FIRST, OPEN_COUNT, open_numbers, secret_number
from games.solver.proofs import cards_digest, known_line, stored, stored_line


def dealing_order(game) -> list[int]:
    """The deal's cards as the deck was dealt: the piles in rounds, then the stock."""
    return [p[r] for r in range(8) for p in game.t] + game.stock[::-1]


def won_by(number: int, line: list[str]) -> bool:
    game = new_game("eighty-thieves", number)
    for move in line:
        game.play(move)  # IllegalMove if the line is wrong
    return game.is_won()


def test_the_shipped_file_holds_exactly_the_open_deals():
    assert sorted(stored()) == list(open_numbers())
    assert len(stored()) == OPEN_COUNT


@pytest.mark.parametrize("number", open_numbers())
def test_every_shipped_line_wins_its_deal(number):
    """The shipped line replays move by move to a won game, on the cards the deal number deals
    today (the digest pins them)."""
    row = stored()[number]
    game = new_game("eighty-thieves", number)
    assert cards_digest(dealing_order(game)) == row["cards"]
    assert won_by(number, stored_line("eighty-thieves", number))


@pytest.mark.parametrize("draw", [0, 17, 123_456_789])
def test_a_secret_built_deal_is_won_by_its_construction_line(draw):
    number = secret_number(draw)
    assert stored_line("eighty-thieves", number) is None
    assert won_by(number, known_line("eighty-thieves", number))


@pytest.mark.parametrize(
    ("variant", "seed"),
    [("eighty-thieves", 0), ("eighty-thieves", BUILT_FIRST - 1), ("penguin", BUILT_FIRST)],
)
def test_no_line_is_known_for_a_shuffled_deal(variant, seed):
    assert known_line(variant, seed) is None


@pytest.mark.parametrize("number", [BUILT_FIRST + 3, secret_number(99)])
def test_solve_answers_won_with_the_known_line(number):
    out = io.StringIO()
    call_command("solve", "eighty-thieves", str(number), "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["verdict"] == "won" and data["nodes"] == 0
    assert data["moves"] == known_line("eighty-thieves", number)
    assert won_by(number, data["moves"])
