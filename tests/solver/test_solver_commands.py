"""The solve and solvability management commands (thin wrappers over the solver)."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from solver_positions import replays_to_a_win

from games.engine import new_game
from games.solver.report import percentile, wilson


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_solve_json_is_one_object_with_a_line_that_wins():
    """`solve --json` prints exactly one JSON object whose moves win the deal from the start."""
    data = json.loads(run("solve", "penguin", "3", "--budget", "10", "--json"))
    assert set(data) == {"verdict", "moves", "nodes", "seconds"}
    assert data["verdict"] == "won"
    assert replays_to_a_win(new_game("penguin", 3).to_dict(), data["moves"])


def test_solve_prints_verdict_and_line():
    """Without --json, the verdict and the moves are printed for a person."""
    text = run("solve", "queenie", "1", "--budget", "10")
    assert text.startswith("queenie seed 1: won")
    assert "moves:" in text


def test_solve_out_of_budget_says_unknown():
    """A node cap too small for a verdict gives unknown."""
    data = json.loads(run("solve", "eighty-thieves", "1", "--nodes", "5", "--json"))
    assert data == data | {"verdict": "unknown", "moves": [], "nodes": 5}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("klondike", "1"), "unknown variant 'klondike'"),
        (("penguin", "x"), "bad seed 'x'"),
        (("penguin", str(2**63)), "bad seed"),
        (("penguin", "1", "--budget", "0"), "--budget"),
    ],
)
def test_solve_refuses_bad_input(args, message):
    """An unknown variant, a seed out of range or not a number, or no budget is a
    CommandError that says so."""
    with pytest.raises(CommandError, match=message):
        run("solve", *args)


def test_solvability_json_counts_every_deal():
    """`solvability --json` prints one object whose counts add up to the deals run."""
    data = json.loads(
        run(
            "solvability", "penguin", "--deals", "3", "--budget", "5", "--start-seed", "7", "--json"
        )
    )
    summary = data["variants"]["penguin"]
    assert summary["deals"] == 3
    assert sum(summary["counts"].values()) == 3
    assert summary["counts"]["won"] == 3
    lo, hi = summary["ci95"]["won"]
    assert 0 < lo < 1 == hi
    assert summary["median_seconds"] <= summary["p95_seconds"]


def test_solvability_prints_a_table():
    """Without --json, a Markdown table with one row per variant is printed."""
    text = run("solvability", "penguin", "--deals", "2", "--budget", "5")
    assert "| variant | won | lost | unknown |" in text
    assert "| penguin | 2 (100%" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("klondike",), "unknown variant"),
        (("penguin", "--deals", "0"), "--deals"),
        (("penguin", "--budget", "-1"), "--budget"),
        (("penguin", "--start-seed", "-1"), "--start-seed"),
    ],
)
def test_solvability_refuses_bad_input(args, message):
    """Bad options are a CommandError that names them."""
    with pytest.raises(CommandError, match=message):
        run("solvability", *args)


def test_wilson_interval_matches_known_values():
    """The Wilson interval of 8 in 10 is about [0.490, 0.943]; of 0 in 10, [0, 0.278]."""
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    lo, hi = wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-3)


def test_percentile_is_nearest_rank():
    """p50 of 1..10 is 5 and p95 is 10 (nearest rank); no values give None."""
    values = [float(x) for x in range(10, 0, -1)]
    assert percentile(values, 50) == 5
    assert percentile(values, 95) == 10
    assert percentile([], 50) is None


def test_solve_stops_quietly_when_its_reader_goes_away():
    """`solve … | head`: output into a closed pipe ends the command without a traceback."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "manage.py", "solve", "queenie", "5", "--budget", "2"]
    proc = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err, err.decode()
    assert proc.returncode == 0
