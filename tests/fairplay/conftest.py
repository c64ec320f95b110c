"""Fixtures for fair play: accounts, a ranked daily attempt and a rated race on a Penguin deal
the solver wins, and games played with chosen server times."""

import datetime as dt
import functools
import json

import pytest
from django.utils import timezone

from daily import dealpick
from daily.actions import start_attempt
from daily.models import DailyChallenge
from fairplay import assess
from games import actions
from games.engine import new_game
from games.models import Game, Move, Player
from games.solver import solve
from races.codes import new_code
from races.models import Race, Racer

SEED = 42


@functools.cache
def winning_line(variant: str = "penguin", seed: int = SEED) -> tuple[str, ...]:
    result = solve(new_game(variant, seed), max_nodes=20_000)
    assert result.verdict == "won"
    return tuple(result.moves)


SOLVED: dict[tuple, object] = {}
"""The solver's answers assess asked for in this worker, by position and budget."""


@pytest.fixture(autouse=True)
def each_position_solved_once(monkeypatch):
    """assess asks the solver about every position a move was chosen in, and these tests play
    the same deal's winning line game after game: each position's answer (a search bounded by
    nodes, so the same every time) is worked out once a worker and kept. It was 40% of these
    tests' CPU."""
    solve_for_real = assess.solve

    def solve_once(state: dict, **budget):
        key = (json.dumps(state, sort_keys=True), tuple(sorted(budget.items())))
        if key not in SOLVED:
            SOLVED[key] = solve_for_real(state, **budget)
        return SOLVED[key]

    monkeypatch.setattr(assess, "solve", solve_once)


@pytest.fixture
def challenge(db) -> DailyChallenge:
    return DailyChallenge.objects.create(
        variant="penguin",
        day=dealpick.utc_day(timezone.now()),
        seed=SEED,
        candidate=0,
        proof=DailyChallenge.Proof.WON,
        solution=list(winning_line()),
    )


@pytest.fixture
def ranked_game(account, challenge) -> Game:
    attempt, _ = start_attempt(account, challenge)
    assert attempt.ranked
    return attempt.game


@pytest.fixture
def rated_race_game(make_account):
    """make(player=None, rated=True) -> a racer's game in a finished race on the deal."""

    def make(player: Player | None = None, rated: bool = True) -> Game:
        player = player or make_account()
        now = timezone.now()
        race = Race.objects.create(
            code=new_code(),
            host=player,
            variant="penguin",
            seed=SEED,
            rated=rated,
            status=Race.Status.STARTED,
            starts_at=now,
            ends_at=now + dt.timedelta(minutes=10),
        )
        game = actions.do_create_game(player, "penguin", SEED, kind=Game.Kind.RACE)
        Racer.objects.create(race=race, player=player, name=player.nickname, game=game)
        return game

    return make


def play(game: Game, thinks_ms: list[int], moves: list[str] | None = None) -> Game:
    """Play the winning line's first len(thinks_ms) + 1 moves (or `moves`), then set the rows'
    server times: the first 3 s after the start, each next `thinks_ms` after the one before."""
    moves = list(moves or winning_line()[: len(thinks_ms) + 1])
    live = game
    for move in moves:
        live = actions.do_play_move(live, move, live.seq).game
    game = Game.objects.get(pk=game.pk)
    start = game.started_at
    at = 3000
    rows = list(Move.objects.filter(game=game).order_by("seq"))
    for i, row in enumerate(rows):
        if i:
            at += thinks_ms[i - 1]
        row.at = start + dt.timedelta(milliseconds=at)
    Move.objects.bulk_update(rows, ["at"])
    ended = game.status if game.status != Game.Status.PLAYING else Game.Status.RESIGNED
    Game.objects.filter(pk=game.pk).update(
        status=ended, finished_at=start + dt.timedelta(milliseconds=at)
    )
    game.refresh_from_db()
    return game


# Think times of a person (ms): varied, long-tailed, a pause.
PERSON = [900, 1400, 400, 2600, 700, 1100, 5200, 350, 800, 1900, 600, 3100, 1200, 450, 9000,
          1000, 700, 2200, 300, 1300, 800, 4100, 650, 1500, 500]  # fmt: skip


@pytest.fixture(autouse=True)
def small_solver_budget(monkeypatch):
    """The solver's budget a position, small in tests that do not weigh its agreement."""
    from fairplay import assess

    monkeypatch.setattr(assess, "SOLVER_NODES_PER_POSITION", 300)
