"""The background worker (games/worker.py) outlives no web process, and its job queues lose
no hand-over that commits."""

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest
from django.db import transaction

from games import worker
from tests.support import within

WEB_PROCESS = """
import os, sys, time
import django
django.setup()
from games import worker
executor = worker._make("process", {"NAME": sys.argv[1]})
print(executor.submit(os.getpid).result(timeout=240), flush=True)
executor.submit(time.sleep, 600)  # a long search in progress when the web process dies
time.sleep(600)
"""


@pytest.mark.slow  # a web process and its worker started and killed: 7-9 s, in make test only
def test_the_worker_ends_with_the_web_process_that_started_it(tmp_path):
    """A killed Daphne's worker does not go on searching for nobody (nor beside the Daphne that
    replaces it): it exits in the middle of a job."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "solitaire_site.settings"}
    web = subprocess.Popen(
        [sys.executable, "-c", WEB_PROCESS, str(tmp_path / "db.sqlite3")],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        child = int(web.stdout.readline())
        os.kill(child, 0)  # alive while its parent is
        time.sleep(2 * worker.PARENT_CHECK_S)
        os.kill(child, 0)
    finally:
        web.kill()
        web.wait()
    # The worker looks every PARENT_CHECK_S, at a lower priority: on a loaded machine (a whole
    # run beside other runs, load 19) its start took over 60 s; a worker that stays is still
    # there after a minute, in the middle of its ten-minute job.
    deadline = time.monotonic() + 60 * worker.PARENT_CHECK_S
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child)


@pytest.mark.slow  # a worker started, killed and started again: some seconds, in make test only
def test_a_worker_that_died_is_replaced_by_a_new_one_for_the_next_job(settings, monkeypatch):
    """A worker killed in a job (out of memory, say) breaks its pool, which takes no job ever
    again: the next job starts a new worker instead of every search failing until the server
    restarts."""
    settings.BACKGROUND_WORKER = "process"
    monkeypatch.setattr(worker, "_executors", {})
    if not isinstance(worker.executor(), ProcessPoolExecutor):  # an in-memory SQLite test run
        pytest.skip("the worker is a thread beside an in-memory database")
    first = worker.executor().submit(os.getpid).result(timeout=240)
    assert first != os.getpid()
    worker.executor().submit(time.sleep, 600)  # the job in hand when it is killed
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 240
    pid = None
    while pid is None and time.monotonic() < deadline:
        future = _answer(os.getpid)
        if future is not None and future.exception() is None:
            pid = future.result()  # a job handed over before the death showed fails; the next
    try:
        assert pid is not None and pid != first and _alive(pid)
    finally:
        for pool in worker._executors.values():
            pool.shutdown(wait=False, cancel_futures=True)


def _answer(function):
    """What `worker.submit` hands its `on_done`: the job's future, or None if it took nothing."""
    answered = []
    worker.submit(function, on_done=answered.append)
    until(lambda: answered, timeout=240)
    return answered[0]


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for the init process to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


# ------------------------------------------------------------------ job queues

RUNS: list = []
"""The keys `look` was run with, in order."""

FIRST_RUN_GOES_ON = threading.Event()


def look(key):
    """A job that holds the worker on its first run until the test lets it go on."""
    RUNS.append(key)
    if len(RUNS) == 1:
        assert FIRST_RUN_GOES_ON.wait(30)
    return key


@pytest.fixture
def queue(db):
    RUNS.clear()
    FIRST_RUN_GOES_ON.clear()
    done = []
    yield worker.JobQueue(look, limit=4, after=done.append), done
    FIRST_RUN_GOES_ON.set()


def until(condition, timeout: float = 30.0) -> None:
    assert within(timeout, condition, step=0.01), "the worker did not get there"


def test_a_key_handed_over_while_its_job_runs_runs_again_after_it(
    queue, django_capture_on_commit_callbacks
):
    """The job in the worker may have read the rows before the later commit (a game stuck in a
    race, judged not over, as the race's close committed): it runs once more after it, not
    never."""
    jobs, done = queue
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([7])
    until(lambda: RUNS == [7])
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([7, 7])
        jobs.request([7])
    FIRST_RUN_GOES_ON.set()
    until(lambda: done == [7, 7])
    worker.drain()
    assert RUNS == [7, 7] and jobs.waiting == set()


def test_a_hand_over_rolled_back_hands_nothing_over(queue, django_capture_on_commit_callbacks):
    """Only a committed hand-over reaches the worker, and one rolled back leaves no key behind
    that would turn the next one away."""
    jobs, done = queue
    FIRST_RUN_GOES_ON.set()
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            jobs.request([7])
            raise RuntimeError("rolled back")
        assert jobs.waiting == set()
        jobs.request([7])
    until(lambda: done == [7])
    assert RUNS == [7]


def test_past_the_limit_keys_are_left_to_the_catch_up(queue, django_capture_on_commit_callbacks):
    jobs, done = queue
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request(range(6))
    assert jobs.waiting == {0, 1, 2, 3}
    FIRST_RUN_GOES_ON.set()
    until(lambda: sorted(done) == [0, 1, 2, 3])
    assert sorted(RUNS) == [0, 1, 2, 3] and jobs.waiting == set()


def other(key):
    """Another kind of job (a winnable-deal search, say)."""
    RUNS.append(key)
    return key


def test_a_queue_hands_the_worker_one_job_at_a_time_so_other_jobs_wait_for_one_at_most(
    queue, django_capture_on_commit_callbacks
):
    """A crowd's games all handed over at once (each a search of seconds) would otherwise stand
    in the worker's own queue, first come first served, before the search a race waits for."""
    jobs, done = queue
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([1, 2, 3])
    until(lambda: RUNS == [1])
    assert jobs.running == 1 and list(jobs.queued) == [2, 3] and jobs.waiting == {1, 2, 3}
    worker.submit(other, "search")
    FIRST_RUN_GOES_ON.set()
    worker.drain()
    assert RUNS == [1, "search", 2, 3] and done == [1, 2, 3]
    assert jobs.idle() and jobs.waiting == set()


def test_a_key_handed_over_again_before_its_job_began_runs_once(
    queue, django_capture_on_commit_callbacks
):
    """Still waiting here, its job has read nothing yet: the later commit needs no second run."""
    jobs, done = queue
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([1, 2])
    until(lambda: RUNS == [1])
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([2])
    FIRST_RUN_GOES_ON.set()
    worker.drain()
    assert RUNS == [1, 2] and done == [1, 2]


def test_a_worker_that_takes_nothing_leaves_the_waiting_keys_to_the_catch_up(
    queue, django_capture_on_commit_callbacks, monkeypatch, caplog
):
    """A server shutting down with a crowd's searches queued: the first job the worker cannot
    take says so once, and the keys behind it are not handed over one by one, each to fail with
    its own traceback."""
    jobs, done = queue

    def shut_down():
        raise RuntimeError("cannot schedule new futures after shutdown")

    monkeypatch.setattr(worker, "executor", shut_down)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([1, 2, 3])
    assert jobs.idle() and jobs.waiting == set() and RUNS == [] and done == []
    assert not [record for record in caplog.records if record.exc_info]  # a line, no traceback
    assert caplog.text.count("the background worker has shut down: look not taken") == 1
    assert "2 look jobs left to the catch-up command" in caplog.text


# ------------------------------------------------------------------ yielding to live play


def test_a_queue_that_yields_waits_while_the_cores_are_contended_then_goes_on(
    db, pressure, django_capture_on_commit_callbacks
):
    """The losing-move searches wait for live play: a crowd's games are handed over while the
    cores are contended, and searched once they are not."""
    RUNS.clear()
    FIRST_RUN_GOES_ON.set()
    done = []
    jobs = worker.JobQueue(look, limit=4, after=done.append, yields=True)
    pressure.now = 35.0
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([1, 2])
    time.sleep(0.3)  # six looks again, each finding the cores contended
    assert RUNS == [] and list(jobs.queued) == [1, 2] and jobs.running is None
    pressure.now = 2.0
    until(lambda: done == [1, 2])
    assert RUNS == [1, 2] and jobs.idle()


def test_a_queue_that_does_not_yield_runs_however_busy_the_cores(
    queue, pressure, django_capture_on_commit_callbacks
):
    """What a race waits for (a winnable deal) is not held back."""
    jobs, done = queue
    FIRST_RUN_GOES_ON.set()
    pressure.now = 95.0
    with django_capture_on_commit_callbacks(execute=True):
        jobs.request([5])
    until(lambda: done == [5])


def test_nothing_yields_at_a_pressure_limit_of_zero(pressure, settings):
    pressure.now = 100.0
    assert worker.contended()
    settings.BACKGROUND_YIELD_PRESSURE = 0
    assert not worker.contended()


def test_the_cpu_pressure_is_linux_s_share_of_the_last_10_s_with_a_task_waiting(
    tmp_path, monkeypatch
):
    psi = tmp_path / "cpu"
    psi.write_text(
        "some avg10=23.51 avg60=49.20 avg300=69.97 total=564805131\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    )
    monkeypatch.setattr(worker, "CPU_PRESSURE", psi)
    assert worker.cpu_pressure() == 23.51


def test_without_pressure_figures_the_load_above_the_cores_stands_in(tmp_path, monkeypatch):
    monkeypatch.setattr(worker, "CPU_PRESSURE", tmp_path / "absent")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    assert worker.cpu_pressure() == 0.0
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 1.0, 1.0))
    assert worker.cpu_pressure() == 75.0  # six of eight runnable tasks waited for a core
