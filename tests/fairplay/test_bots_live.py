"""The three bots of scripts/bots.py, over the real sockets of a live Daphne, are held for
review: on today's Penguin daily and in a rated quick race. The server assesses each game in
its background worker after the game (or the race) ends; the test reads the stored verdict
from the server's database, then sees the held result leave the day's board (the JSON API) and
the race's rating changes undone.

The six games are played at once, at the bots' own paces, each in a process of its own, before
the first test (`played`): one after another they took 3-5 minutes of a worker's wall clock."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from scripts import bots
from scripts.client import Browser, query
from scripts.servers import ROOT, server_env
from tests.live import live_server_process
from tests.support import within

# One worker for every test (the module's server and games); the lane of tests that wait
# (WAITING_LANES in tests/conftest.py), whose other tests run on that worker before or after.
pytestmark = [pytest.mark.slow, pytest.mark.live, pytest.mark.xdist_group("waiting_b")]

ASSESSMENT_TIMEOUT_S = 120

AHEAD = -10
"""The niceness of the bots and their server. The rules read the server's move times, and a
whole test run beside them (load 10-15 on two cores) held up the greedy bot's frames on both
sides enough to pass for a person's (think times of 90-700 ms around its 333): at this priority,
with the server's database in memory (`server`), they keep the pace a bot on a machine of its
own keeps. Raising a priority needs root (CI
runs as root); elsewhere `nice` says it cannot and they run as they are."""


@pytest.fixture(scope="module")
def server():
    """(base URL, database URL): a Daphne of its own, quick races starting 2 s after the
    second player arrives."""
    # The database in memory where there is a tmpfs: a bot waits for each answer before its
    # next move, and under a whole run's disk load the server's commits to a file on disk took
    # up to hundreds of milliseconds, which the rules read as a person's uneven pace.
    memory = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="fairplay-bots-", dir=memory) as tmp:
        database_url = f"sqlite:///{Path(tmp) / 'db.sqlite3'}"
        # The background worker in a process of its own, as in production: the suite's servers
        # inherit its thread (tests/conftest.py), where each assessment of a game ran under the
        # server's GIL. The greedy bot's game is assessed again each time it sticks (one move in
        # two once it wanders), and on a slow machine each of those held the event loop 100-350
        # ms before the next move was timed: 442, 228, 457, 205, ... ms around its 333, a pace
        # uneven enough to be judged clear.
        env = {
            "DATABASE_URL": database_url,
            "QUICK_RACE_LOBBY_S": "2",
            "BACKGROUND_WORKER": "process",
        }
        launcher = ["nice", "-n", str(AHEAD), sys.executable, "-m", "solitaire_site.daphne_server"]
        with live_server_process(env=env, launcher=launcher) as url:
            stock_race_deals(env)
            yield url, database_url


def stock_race_deals(env: dict[str, str]) -> None:
    """A proved-winnable Penguin deal in the race pool for every bot's quick race, in the
    server's database (migrated as it started), before any bot plays. The solver bots need a
    win to find: a quick race opened on an empty pool takes a random deal unless the search it
    starts is done by its start (the 2-s lobby), and on a slow machine beside a whole run it
    was not, once: a lost deal, "the solver found no win (lost)"."""
    extra = dict(env)
    full = server_env(database_url=extra.pop("DATABASE_URL"), **extra)
    command = ["manage.py", "stock_winnable_deals", "penguin", "--size", str(len(bots.BOTS))]
    subprocess.run([sys.executable, *command], cwd=ROOT, env=full, check=True, capture_output=True)


@pytest.fixture(scope="module")
def played(server):
    """Every bot's daily and its quick race of two, all played at once: {(where, kind): each
    bot's last frame, or what went wrong}. The quick races are placed one at a time (`placing`)
    so that each kind's pair has a race of its own."""
    base, _ = server
    context = multiprocessing.get_context("spawn")  # no forked copy of this process's threads
    jobs = {}
    with (
        context.Manager() as manager,
        concurrent.futures.ProcessPoolExecutor(
            2 * len(bots.BOTS), mp_context=context, initializer=bots.run_ahead, initargs=(AHEAD,)
        ) as pool,
    ):
        placing = manager.Lock()
        for kind in sorted(bots.BOTS):
            jobs["daily", kind] = pool.submit(
                bots.play_in_process, base, kind, "daily", [f"daily-{kind}"]
            )
            names = [f"race-{kind}-{i}" for i in range(2)]
            jobs["quick", kind] = pool.submit(
                bots.play_in_process, base, kind, "quick", names, placing
            )
        concurrent.futures.wait(jobs.values())
        return {key: job.exception() or job.result() for key, job in jobs.items()}


def last_frames(played: dict, where: str, kind: str) -> list[dict]:
    frames = played[where, kind]
    if isinstance(frames, BaseException):
        raise frames
    return frames


def assessment_of(database_url: str, public_id: str) -> tuple[str, str, str]:
    """(verdict, rule, status) of the game's assessment, waiting for the worker to store it; the
    figures and think times are kept for a failure's message (`figures_of`)."""
    deadline = time.monotonic() + ASSESSMENT_TIMEOUT_S
    while time.monotonic() < deadline:
        rows = query(
            database_url,
            "SELECT a.verdict, a.rule, a.status, a.figures, a.think_ms FROM fairplay_assessment a"
            " JOIN games_game g ON g.id = a.game_id WHERE g.public_id = %s",
            [public_id],
        )
        if rows:
            verdict, rule, status, figures, think_ms = rows[0]
            FIGURES[public_id] = (figures, think_ms)
            return verdict, rule, status
        time.sleep(0.5)
    raise AssertionError(f"game {public_id} was not assessed in {ASSESSMENT_TIMEOUT_S} s")


FIGURES: dict[str, tuple] = {}
"""Each assessed game's figures and think times, as stored."""


def eventually(check, what: str, timeout: float = 30.0) -> None:
    if not within(timeout, check, step=0.5):
        raise AssertionError(f"{what} within {timeout:g} s")


def player_id(database_url: str, username: str) -> int:
    return query(
        database_url,
        "SELECT p.id FROM games_player p JOIN auth_user u ON u.id = p.user_id"
        " WHERE u.username = %s",
        [username],
    )[0][0]


@pytest.mark.parametrize("kind", sorted(bots.BOTS))
def test_a_bot_is_held_on_the_daily(server, played, kind):
    base, database_url = server
    [last] = last_frames(played, "daily", kind)
    visitor = Browser(base)
    verdict, rule, status = assessment_of(database_url, last["game"])
    assert verdict in ("review", "likely_bot"), (verdict, rule, FIGURES[last["game"]])
    assert status == "pending"
    me = player_id(database_url, f"daily-{kind}")
    day = dt.datetime.now(dt.UTC).date().isoformat()

    def off_the_board() -> bool:
        _, _, text = visitor.request("GET", f"/api/leaderboards/daily/penguin/{day}/?player={me}")
        board = json.loads(text)
        return board["player"] is None and me not in [r["player"]["id"] for r in board["rows"]]

    eventually(off_the_board, "the held result is off the day's board")


@pytest.mark.parametrize("kind", sorted(bots.BOTS))
def test_bots_are_held_in_a_rated_quick_race(server, played, kind):
    _, database_url = server
    assert len(last_frames(played, "quick", kind)) == 2
    games = query(
        database_url,
        "SELECT g.public_id FROM races_racer r JOIN games_game g ON g.id = r.game_id"
        " JOIN auth_user u ON u.id = (SELECT user_id FROM games_player p WHERE p.id = r.player_id)"
        " WHERE u.username LIKE %s",
        [f"race-{kind}-%"],
    )
    assert len(games) == 2
    for (public_id,) in games:
        verdict, rule, status = assessment_of(database_url, public_id)
        assert verdict in ("review", "likely_bot"), (verdict, rule, FIGURES[public_id])
        assert status == "pending"

    def no_rating_changes() -> bool:
        rows = query(
            database_url,
            "SELECT COUNT(*) FROM races_ratingchange c JOIN races_racer r"
            " ON r.race_id = c.race_id JOIN auth_user u"
            " ON u.id = (SELECT user_id FROM games_player p WHERE p.id = r.player_id)"
            " WHERE u.username LIKE %s",
            [f"race-{kind}-%"],
        )
        return rows[0][0] == 0

    eventually(no_rating_changes, "the race's rating changes are undone")
