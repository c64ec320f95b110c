"""The replay marks the move that threw a winnable game away (games.solver.first_losing_move)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from daily import replay
from games import actions
from games.engine import new_game
from games.models import Game

pytestmark = pytest.mark.django_db


def suit(s: str) -> list[str]:
    return [rank + s for rank in "A23456789TJQK"]


def blunder_state() -> dict:
    """Penelope's Web, clubs left: 3♣ onto the 4♣ wins at once, but 2♣ onto the 3♣ (t3-t0)
    buries the A♣ for good (no other 3 is left to take the 2♣)."""
    state = new_game("penelopes-web", 0).to_dict()
    tableau = [["AC", "3C"], ["KC", "QC"], ["4C"], ["2C"], ["JC", "TC", "9C"], ["8C"]]
    tableau += [["7C", "6C"], ["5C"]]
    return {
        **state,
        "tableau": tableau,
        "down": [0] * 8,
        "foundations": [suit("D"), [], suit("H"), suit("S")],
        "stock": [],
        "waste": [],
    }


def finished_game(player, log: list[str]) -> Game:
    """A practice game from the blunder position with `log` played, then given up."""
    game = actions.do_create_game(player, "penelopes-web", 0, start_state=blunder_state())
    for move in log:
        if move == "undo":
            game = actions.do_undo(game, game.seq).game
        else:
            game = actions.do_play_move(game, move, game.seq).game
    Game.objects.filter(pk=game.pk).update(status=Game.Status.RESIGNED)
    return Game.objects.get(pk=game.pk)


@pytest.mark.parametrize(
    ("log", "frame"),
    [
        (["t5-t4", "t3-t0"], 2),  # the blunder is the second move: frame 2 follows it
        (["t5-t4", "t3-t0", "undo"], 2),  # taken back, it was still played
        (["t5-t4", "t0-t2"], None),  # still winnable: nothing to mark
    ],
)
def test_the_losing_move_is_found(player, log, frame):
    """The frame after the first move from a winnable to a proved-lost position, or None."""
    assert replay.losing_frame(finished_game(player, log)) == frame


def test_the_losing_move_is_computed_once(player, monkeypatch):
    """The answer is cached per game and log length: a second view asks the solver nothing."""
    game = finished_game(player, ["t3-t0"])
    cache.delete(f"replay-losing:{game.public_id}:{game.seq}")
    assert replay.losing_frame(game) == 1

    def no_solver(*args, **kwargs):
        raise AssertionError("the solver ran again")

    monkeypatch.setattr(replay, "first_losing_move_from", no_solver)
    assert replay.losing_frame(game) == 1


def test_the_replay_page_marks_the_losing_move(client, player):
    """The page names the move, ticks the slider there and hands the frame to the script."""
    game = finished_game(player, ["t5-t4", "t3-t0"])
    page = client.get(f"/replay/{game.public_id}/").content.decode()
    assert 'class="replay-losing" data-frame="2"' in page
    assert '<datalist id="replay-marks"><option value="2"' in page
    assert '"losing_frame": 2' in page
