"""The practice load generator, tiny, against a live Daphne (tests/live.py): it plays, prints
its figures and finds every acknowledged move stored once."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from scripts.servers import ROOT
from tests.live import live_server_process

pytestmark = pytest.mark.slow


def test_three_guests_lose_no_move():
    """3 guests, 4 moves each: no failure, no error frame, every log matches."""
    with tempfile.TemporaryDirectory(prefix="practice-load-smoke-") as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'db.sqlite3'}"
        with live_server_process(env={"DATABASE_URL": database_url}) as base_url:
            run = subprocess.run(
                [sys.executable, "scripts/practice_load.py", base_url, "--players", "3"]
                + ["--moves", "4", "--pace", "0", "--database-url", database_url],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=180,
            )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "players 3, failed 0" in run.stdout
    assert "error frames 0;" in run.stdout
    assert "database check: 3 logs match what was acknowledged" in run.stdout
    assert "round trip ms: median" in run.stdout
