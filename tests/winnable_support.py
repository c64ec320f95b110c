"""Fixtures for the winnable-deal searches, which run in the background worker only (in tests a
thread of the test process named `background_…`, BACKGROUND_WORKER=thread): a solver call
anywhere else fails the test."""

from __future__ import annotations

import threading
import time

import pytest
from django.core.cache import cache

from games import winnable, worker
from games.engine import VARIANTS
from games.solver import SolveResult, Verdict


def in_background() -> bool:
    """Whether this code runs in the background worker (its thread, in tests)."""
    return threading.current_thread().name.startswith("background")


_misplaced: list[str] = []
"""Solver calls made outside the worker, kept even when the code that made one catches the
error it raised."""


def _refuse_outside_the_worker(what: str) -> None:
    if not in_background():
        _misplaced.append(f"{what} ran in {threading.current_thread().name!r}, not the worker")
        raise AssertionError(_misplaced[-1])


@pytest.fixture
def solver_off_the_request(monkeypatch) -> list:
    """The solver (and the winnable-deal search) raise unless called in the background worker:
    a request, an action or a socket that asks it fails the test (at once, or at its end if
    something caught the error). Gives the deals the worker asked about."""
    real_solve, real_find = winnable.solve, winnable.find_winnable_seed
    asked = []

    def solve(game, **budget):
        _refuse_outside_the_worker("the solver")
        asked.append(game)
        return real_solve(game, **budget)

    def find_winnable_seed(*args, **kwargs):
        _refuse_outside_the_worker("a winnable-deal search")
        return real_find(*args, **kwargs)

    monkeypatch.setattr(winnable, "solve", solve)
    monkeypatch.setattr("games.solver.solve", solve)
    monkeypatch.setattr(winnable, "find_winnable_seed", find_winnable_seed)
    _misplaced.clear()
    yield asked
    assert not _misplaced, _misplaced


@pytest.fixture
def solver_proves_nothing(monkeypatch) -> None:
    """Every deal the (background) solver is asked about comes back unknown, and a search gives
    up after a fraction of a second."""

    def solve(game, **budget):
        _refuse_outside_the_worker("the solver")
        time.sleep(0.01)
        return SolveResult(Verdict.UNKNOWN)

    monkeypatch.setattr(winnable, "SEARCH_BUDGET_S", 0.3)
    monkeypatch.setattr(winnable, "solve", solve)


def _forget_outcomes() -> None:
    cache.delete_many(
        [winnable._record_key(v, use) for v in VARIANTS for use in winnable.Use.values]
    )


@pytest.fixture
def background_searches(settings, transactional_db):
    """Background searches on (the tests turn them off), on a database the worker's connection
    sees; every search a test started has ended before its tables are emptied, and no outcome
    of an earlier test's search is remembered."""
    settings.WINNABLE_POOL_REFILL = True
    _forget_outcomes()
    yield
    worker.drain(timeout=120)
    _forget_outcomes()


@pytest.fixture
def held_worker(background_searches):
    """The worker busy with another job until the test sets the event: what is handed to it
    meanwhile waits its turn."""
    gate = threading.Event()
    worker.executor().submit(gate.wait, 60)
    yield gate
    gate.set()
