"""The load generator, tiny, against a live Daphne (tests/live.py): it runs to the end, ends
with one line of JSON figures, and finds every acknowledged move stored once."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from scripts.servers import ROOT
from tests.live import live_server_process

pytestmark = pytest.mark.slow


def test_four_racers_in_two_races_lose_no_move():
    """4 racers, 2 races, 5 s at one move a second: figures in the JSON line, no error, no lost
    or doubled move in the record."""
    with tempfile.TemporaryDirectory(prefix="loadtest-smoke-") as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'db.sqlite3'}"
        with live_server_process(env={"DATABASE_URL": database_url}) as base_url:
            run = subprocess.run(
                [sys.executable, "scripts/loadtest.py", base_url, "--racers", "4", "--races", "2"]
                + ["--duration", "5", "--database-url", database_url, "--json", "--quiet"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=180,
            )
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["ok"] and figures["errors"] == 0
    assert figures["moves_acked"] == figures["moves_sent"] > 0
    assert figures["verified_racers"] == 4
    assert figures["lost_moves"] == 0 and figures["duplicate_or_unexpected_moves"] == 0
    assert set(figures["latency_ms"]) == {"median", "p95", "p99", "max"}
    assert figures["throughput_moves_per_s"] > 0


def test_a_small_crowd_pressing_quick_race_is_placed_and_started():
    """`--quick`: 10 guests press Quick race on one server (SQLite, a 5 s lobby); the JSON line
    says every one started in a race of 2 to 8 and the record agrees."""
    with tempfile.TemporaryDirectory(prefix="loadtest-quick-") as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'db.sqlite3'}"
        # The lobby outlasts the presses (1 s) and their placements: under a load of 17 these
        # took up to 4 s, and with a 1 s lobby the last press was left alone in a race of its own.
        env = {"DATABASE_URL": database_url, "QUICK_RACE_LOBBY_S": "5"}
        with live_server_process(env=env) as base_url:
            run = subprocess.run(
                [sys.executable, "scripts/loadtest.py", base_url, "--quick", "--racers", "10"]
                + ["--variant", "queenie", "--database-url", database_url, "--json"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=180,
            )
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["players"] == 10 and figures["not_started"] == 0 and figures["errors"] == 0
    sizes = {int(size): n for size, n in figures["race_sizes"].items()}
    assert all(2 <= size <= 8 for size in sizes) and sum(s * n for s, n in sizes.items()) == 10
    assert figures["db_players_in_two"] == 0 and figures["db_not_started"] == []
    assert set(figures["placement_ms"]) == {"median", "p95", "p99", "max"}
