"""Hostile-input fixtures: the races app's race fixtures and a running race (the harness that
plays frames on sockets is hostile_harness.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hostile_harness import start_running_race

TESTS = Path(__file__).resolve().parent.parent


def load(relative: str, name: str):
    """A test helper module by path (every conftest is a top-level `conftest` to Python)."""
    spec = importlib.util.spec_from_file_location(name, TESTS / relative)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


_races = load("races/conftest.py", "tests_races_conftest_for_hostile")

# The races app's fixtures, reused as they are.
make_client = _races.make_client
make_race = _races.make_race
race_socket = _races.race_socket
run = _races.run
fast_countdown = _races.fast_countdown
near_win_for = _races.near_win_for


@pytest.fixture
def running_race(make_client, make_race):
    """A running race of Ann (host) and Bob on Penelope's Web, no move made yet."""
    return start_running_race(make_client, make_race)


@pytest.fixture
def generous_budget(monkeypatch):
    """Sockets get a frame budget no test session reaches, for tests about something else
    (each of their frames is followed by a ping, which counts too)."""
    from games import consumers as game_consumers
    from games.ratelimit import FrameBudget
    from races import consumers as race_consumers

    def budget() -> FrameBudget:
        return FrameBudget(limit=100_000, flood=100_000)

    monkeypatch.setattr(game_consumers, "FrameBudget", budget)
    monkeypatch.setattr(race_consumers, "FrameBudget", budget)
