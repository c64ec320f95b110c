"""The background worker (games/worker.py) outlives no web process."""

import os
import subprocess
import sys
import time

import pytest

from games import worker

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


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for the init process to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
