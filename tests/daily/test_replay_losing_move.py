"""The replay marks the move that threw a winnable game away (games.solver.first_losing_move),
found off the request (records/analysis.py) and stored."""

from __future__ import annotations

import io
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.management import call_command

from daily.models import LosingMove
from games import actions, worker
from games.engine import new_game
from games.models import Game
from records import analysis

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
    assert analysis.losing_frame_of(finished_game(player, log)) == frame


@pytest.fixture
def no_search(monkeypatch):
    """Any losing-move search fails the test."""

    def no_solver(*args, **kwargs):
        raise AssertionError("the solver ran")

    monkeypatch.setattr(analysis, "first_losing_move_from", no_solver)


def test_the_mark_is_searched_once_and_stored(player, monkeypatch):
    """Stored per game and log length: a second analysis of the same log asks the solver
    nothing, and the mark is read back as stored."""
    game = finished_game(player, ["t3-t0"])
    assert analysis.stored(game) == (False, None)
    assert analysis.analyse(game.pk) is True
    assert analysis.stored(game) == (True, 1)
    monkeypatch.setattr(analysis, "first_losing_move_from", None)
    assert analysis.analyse(game.pk) is False
    assert LosingMove.objects.get(game=game).frame == 1


def test_a_longer_log_is_searched_again(player):
    """A mark for a shorter log (a stuck practice game undone and played on) is no mark."""
    game = finished_game(player, ["t5-t4", "t0-t2"])
    LosingMove.objects.create(game=game, seq=1, frame=None)
    assert analysis.stored(game) == (False, None)
    assert analysis.waiting(recent=100, limit=10) == [game.pk]
    analysis.analyse(game.pk)
    assert analysis.stored(game) == (True, None)
    assert analysis.waiting(recent=100, limit=10) == []


def test_the_replay_page_never_searches(client, player, no_search):
    """Before the mark is stored the page says the game is being analysed, without a search in
    the request; once stored, it names the move, ticks the slider there and hands the frame to
    the script."""
    game = finished_game(player, ["t5-t4", "t3-t0"])
    page = client.get(f"/replay/{game.public_id}/").content.decode()
    assert 'class="replay-analysing' in page and "replay-losing" not in page
    assert '"losing_frame":null' in page
    LosingMove.objects.create(game=game, seq=game.seq, frame=2)
    page = client.get(f"/replay/{game.public_id}/").content.decode()
    assert 'class="replay-losing" data-frame="2"' in page
    assert '<datalist id="replay-marks"><option value="2"' in page
    assert '"losing_frame":2' in page
    assert "replay-analysing" not in page


def test_the_command_marks_the_finished_games_that_lack_one(player, make_client, make_race):
    """`analyse_replays` searches every recent finished game without a mark (a resigned or
    stuck practice game, a race's game once the race is over) and leaves games in play alone."""
    lost = finished_game(player, ["t5-t4", "t3-t0"])
    playing = actions.do_create_game(player, "penguin", 3)
    stuck = actions.do_create_game(player, "penguin", 4)
    Game.objects.filter(pk=stuck.pk).update(status=Game.Status.STUCK)
    assert set(analysis.waiting(recent=1000, limit=10)) == {lost.pk, stuck.pk}
    out = io.StringIO()
    call_command("analyse_replays", stdout=out)
    assert "analysed 2 games" in out.getvalue()
    assert LosingMove.objects.get(game=lost).frame == 2
    assert not LosingMove.objects.filter(game=playing).exists()
    call_command("analyse_replays", stdout=out)
    assert "analysed 0 games" in out.getvalue()


def test_the_command_starts_no_search_while_the_cores_are_contended(player, pressure):
    """Live play comes first: a run that finds the cores contended leaves its games to the next."""
    lost = finished_game(player, ["t5-t4", "t3-t0"])
    pressure.now = 60.0
    out = io.StringIO()
    call_command("analyse_replays", stdout=out)
    assert "stopped: the cores are contended (CPU pressure 60%)" in out.getvalue()
    assert "analysed 0 games" in out.getvalue()
    pressure.now = 3.0
    call_command("analyse_replays", stdout=out)
    assert LosingMove.objects.get(game=lost).frame == 2


@pytest.mark.django_db(transaction=True)
def test_a_game_that_ends_is_searched_by_the_worker_after_the_commit(settings, player):
    """With REPLAY_ANALYSIS on, ending a game (the move writer's batch, or a resignation's save)
    hands it to the analysis worker (a process of its own on PostgreSQL), which stores the mark
    after the commit."""
    settings.REPLAY_ANALYSIS = True
    game = actions.do_create_game(player, "penelopes-web", 0, start_state=blunder_state())
    for move in ["t5-t4", "t3-t0"]:
        game = actions.do_play_move(game, move, game.seq).game
    game = Game.objects.get(pk=game.pk)
    game.status = Game.Status.RESIGNED
    game.save(update_fields=["status"])  # a resignation: heard by the post_save receiver
    worker.drain(timeout=60)
    assert analysis.stored(game) == (True, 2)


@pytest.mark.django_db(transaction=True)
def test_the_search_runs_in_a_process_of_its_own_at_a_lower_priority(settings):
    """A search holds its interpreter for seconds: never the web process's, where it would
    stall every socket's moves (games/worker.py)."""
    settings.BACKGROUND_WORKER = "process"  # the tests' own default is a thread
    executor = worker.executor()
    if isinstance(executor, ThreadPoolExecutor):
        pytest.skip("an in-memory SQLite test database: no other process can open it")
    assert executor.submit(os.getpid).result(timeout=60) != os.getpid()
    lower = min(19, os.nice(0) + worker.NICENESS)  # 19 is the lowest: a run under `nice -n 19`
    assert executor.submit(os.nice, 0).result(timeout=60) >= lower


def test_a_game_won_without_an_undo_is_not_searched(player, no_search):
    """No move on a winning line without undos can have lost the game: no search is spent."""
    game = actions.do_create_game(player, "penelopes-web", 0, start_state=blunder_state())
    game = actions.do_play_move(game, "t0-t2", game.seq).game  # 3♣ onto 4♣: on a winning line
    Game.objects.filter(pk=game.pk).update(status=Game.Status.WON)
    assert analysis.losing_frame_of(Game.objects.get(pk=game.pk)) is None
