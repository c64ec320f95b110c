"""The web process's background worker: one process of its own, at a lower priority, for the
solver's searches that follow a request or a move (a replay's losing move, topping up a
winnable-deal pool, picking the daily deals).

Not a thread: a search is pure Python, and in a thread of the web process it would hold the
interpreter lock for seconds at a time, stalling every socket's moves. The worker is started on first use (`spawn`: a fresh interpreter, nothing of the
server's sockets or threads), runs one job at a time, and closes its database connection after
each. It ends with the web process: a Daphne killed (or restarted) would otherwise leave its
worker finishing the queued searches for nobody, for minutes, beside its successor.
`BACKGROUND_WORKER=thread` keeps the jobs in a thread of the web process instead: the
tests do (their monkeypatched solvers must reach the job), and so does an in-memory SQLite
database, which no other process can open.

Work that can wait yields to live play: a `JobQueue(..., yields=True)` (the losing-move
searches, fair play's assessments) hands its next job over only while the cores are not
contended (`contended`: Linux's CPU pressure under `BACKGROUND_YIELD_PRESSURE`), and looks again
every `YIELD_RECHECK_S` meanwhile; the catch-up commands stop while they are (`catch_up`).
Nice 10 alone did not make it yield: in an arena of 1,000 on two cores the worker still took 0.4
of a core, its threads filling every gap the web process's threads left while they waited for the
database or the interpreter lock, and the moves' p99 was a quarter higher for it
(docs/performance-log.md, "Arenas, thirty-sixth day"). The winnable-deal searches a race waits for
never yield.

This module imports nothing of the project's at import time: the worker unpickles `start`
before Django is set up.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import (
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from pathlib import Path

import django
from django.conf import settings
from django.db import connection, transaction

logger = logging.getLogger(__name__)

NICENESS = 10
"""How much lower the worker's priority is than the web process's: moves and pages come first."""

PARENT_CHECK_S = 1.0
"""How often the worker looks whether the web process that started it is still there."""

CPU_PRESSURE = Path("/proc/pressure/cpu")
YIELD_RECHECK_S = 2.0
"""How often a queue that yields looks again whether the cores are free."""


def cpu_pressure() -> float:
    """The percentage of the last 10 s in which a runnable task waited for a core (Linux's
    pressure stall information, `some avg10`); where the kernel gives none, the share of the
    1-minute load average above the core count stands in."""
    try:
        lines = CPU_PRESSURE.read_text().splitlines()
    except OSError:
        try:
            load, cores = os.getloadavg()[0], os.cpu_count() or 1
        except (AttributeError, OSError):  # no load average either (not a Unix)
            return 0.0
        return 0.0 if load <= cores else 100.0 * (1 - cores / load)
    for line in lines:
        kind, *fields = line.split()
        if kind == "some":
            return float(dict(field.split("=", 1) for field in fields)["avg10"])
    return 0.0


def contended() -> bool:
    """Whether work that can wait should wait: the CPU pressure at `BACKGROUND_YIELD_PRESSURE`
    or above (never, at 0)."""
    limit = settings.BACKGROUND_YIELD_PRESSURE
    return limit > 0 and cpu_pressure() >= limit


def catch_up(keys, job: Callable[[object], int], budget: float, say: Callable[[str], None]) -> int:
    """A catch-up command's run (what a `JobQueue` dropped): `job(key)` for each key in turn, what
    the jobs return added up, until `budget` seconds have passed or, before a job, the cores are
    `contended` (live play first: the scheduler's next run takes up the rest, and `say` tells)."""
    started = time.monotonic()
    done = 0
    for key in keys:
        if time.monotonic() - started > budget:
            break
        if contended():
            say(f"stopped: the cores are contended (CPU pressure {cpu_pressure():.0f}%)")
            break
        done += job(key)
    return done


_executors: dict[str, Executor] = {}
_lock = threading.Lock()


def submit(function: Callable, *args, on_done: Callable[[Future], None] | None = None) -> bool:
    """Run `function(*args)` in the worker (a module-level function: it is sent by name), then
    `on_done(future)` in this process; False (and `on_done` at once) if the worker could not
    take it."""
    try:
        pool = executor()
        try:
            future = pool.submit(_call, function, *args)
        except BrokenExecutor:  # its worker died (killed, out of memory): a new one takes it
            logger.warning("the background worker died; starting a new one")
            _forget(pool)
            future = executor().submit(_call, function, *args)
    except Exception as exc:  # the job's own catch-up command will do it
        if isinstance(exc, RuntimeError) and not isinstance(exc, BrokenExecutor):
            # Shut down: this process is exiting (a pool that broke is a BrokenExecutor).
            logger.warning("the background worker has shut down: %s not taken", function.__name__)
        else:
            logger.exception("the background worker could not take %s", function.__name__)
        if on_done is not None:
            on_done(None)
        return False
    if on_done is not None:
        future.add_done_callback(on_done)
    return True


class JobQueue:
    """Jobs of one kind for the worker, keyed (a game's pk), handed over after the current
    transaction commits (a rolled-back one hands nothing over): each key once while its job
    waits or runs, at most `limit` keys at a time (the rest are left to the job's catch-up
    command); `after(result)` then runs in this process. A key handed over again while its job
    runs in the worker runs once more after it: that job may have read the rows before the later
    commit (a game stuck in a race, judged not over, while the race's close committed).
    `job` is a module-level function of the key (it is sent to the worker by name).

    The worker gets one job of a queue at a time; the keys behind it wait here. Its own queue is
    first come, first served, so a queue that handed over all its keys at once (an arena's
    crowd ends a thousand games a minute, each a losing-move search of up to 3 s) would put
    every other job (a winnable-deal search a race is waiting for) behind all of them: this
    way, behind one job of each queue at most. A queue that `yields` hands its next job over
    only while the cores are not `contended`."""

    def __init__(
        self,
        job: Callable,
        limit: int,
        after: Callable[[object], None] | None = None,
        yields: bool = False,
    ) -> None:
        self.job = job
        self.limit = limit
        self.after = after
        self.yields = yields
        self.recheck: threading.Timer | None = None
        """While the cores are contended: the timer that looks again."""
        self.queued: deque = deque()
        """Keys waiting here, in order, for the job in the worker (`running`) to end."""
        self.running = None
        """The key whose job is in the worker, or None."""
        self.again: set = set()
        """Keys handed over again while their job was in the worker: it runs once more."""
        self._lock = threading.Lock()
        _queues.append(self)

    @property
    def waiting(self) -> set:
        """Keys whose job is in the worker (`running`) or waits here for it (`queued`)."""
        return {*self.queued, *([] if self.running is None else [self.running])}

    def request(self, keys) -> None:
        """Hand these keys over once the current transaction commits."""
        keys = list(dict.fromkeys(keys))
        if keys:
            transaction.on_commit(lambda: self.hand_over(keys))

    def hand_over(self, keys) -> None:
        with self._lock:
            for key in keys:
                if key == self.running:
                    self.again.add(key)
                elif key not in self.queued and len(self.waiting) < self.limit:
                    self.queued.append(key)
            key = self._next()
        if key is not None:
            self._submit(key)

    def idle(self) -> bool:
        """Whether no job of this queue is in the worker or waits for it."""
        with self._lock:
            return self.running is None and not self.queued

    def _next(self):
        """Under the lock: the key to send to the worker now, if none is there (and, for a queue
        that yields, the cores are not contended: else a look again is due)."""
        if self.running is not None or not self.queued:
            return None
        if self.yields and contended():
            if self.recheck is None:
                self.recheck = threading.Timer(YIELD_RECHECK_S, self._look_again)
                self.recheck.daemon = True  # a server that stops does not wait for it
                self.recheck.start()
            return None
        self.running = self.queued.popleft()
        return self.running

    def _look_again(self) -> None:
        with self._lock:
            self.recheck = None
            key = self._next()
        if key is not None:
            self._submit(key)

    def _submit(self, key) -> None:
        def done(future: Future | None) -> None:
            with self._lock:
                rerun = future is not None and key in self.again
                self.again.discard(key)
                if not rerun:
                    self.running = None
                if future is None:  # the worker took nothing (shut down with its process)
                    self._drop()
            try:
                if self.after is not None and future is not None and future.exception() is None:
                    self.after(future.result())
            finally:
                if rerun:  # whatever `after` did: the key is still running until it runs again
                    self._submit(key)
                else:
                    with self._lock:
                        following = self._next()
                    if following is not None:
                        self._submit(following)

        submit(self.job, key, on_done=done)

    def _drop(self) -> None:
        """Under the lock, when the worker could not take a job: the keys waiting behind it are
        left to the job's catch-up command (each handed over would fail the same way, each with
        its own traceback, as a server shuts down with a crowd's searches queued)."""
        if self.queued:
            logger.warning(
                "%d %s jobs left to the catch-up command", len(self.queued), self.job.__name__
            )
        self.queued.clear()
        self.again.clear()


_queues: list[JobQueue] = []
"""Every `JobQueue` of this process (`drain` waits for theirs)."""


def drain(timeout: float = 60) -> None:
    """Wait until every job handed to the worker so far has run (tests), and every key a
    `JobQueue` holds back: the worker runs one job at a time, in order, and a queue's next job
    is handed over as the one before it ends (before the worker's next result is told)."""
    deadline = time.monotonic() + timeout
    while True:
        executor().submit(_nothing).result(timeout=max(0.0, deadline - time.monotonic()))
        if all(queue.idle() for queue in _queues):
            return
        if time.monotonic() > deadline:
            raise TimeoutError("the worker's queues did not empty")


def _nothing() -> None:
    pass


def executor() -> Executor:
    """The worker as settings say now: a process (the default), or a thread."""

    database = settings.DATABASES["default"]
    name = str(database["NAME"])
    in_memory = database["ENGINE"].endswith("sqlite3") and (
        name == ":memory:" or "mode=memory" in name
    )
    kind = "thread" if in_memory or settings.BACKGROUND_WORKER == "thread" else "process"
    with _lock:
        if kind not in _executors:
            _executors[kind] = _make(kind, database)
        return _executors[kind]


def _forget(pool: Executor) -> None:
    """Drop a pool whose worker died, so that `executor` starts a new one: a broken pool takes
    no job ever again, and every search would otherwise fail until the server restarts."""
    with _lock:
        for kind, found in list(_executors.items()):
            if found is pool:
                del _executors[kind]
    pool.shutdown(wait=False, cancel_futures=True)


def _make(kind: str, database: dict) -> Executor:
    if kind == "thread":
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="background")
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start,
        initargs=(
            os.environ.get("DJANGO_SETTINGS_MODULE"),
            database["NAME"],
            NICENESS,
            os.getpid(),
        ),
    )


def start(settings_module: str | None, database_name, niceness: int, parent: int) -> None:
    """In the new process: a lower priority, a watch on the parent, Django set up, and the
    parent's database (a test run's own too)."""

    os.nice(niceness)
    threading.Thread(target=_exit_with, args=(parent,), name="parent-watch", daemon=True).start()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", settings_module or "solitaire_site.settings")
    django.setup()
    settings.DATABASES["default"]["NAME"] = database_name


def _exit_with(parent: int) -> None:
    """Exit once the parent is gone (this process is then adopted: its parent id changes),
    whatever job is running. Not `PR_SET_PDEATHSIG`: that fires when the parent *thread* that
    started the worker ends, and the pool starts it from whichever thread submits first."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def _call(function: Callable, *args):

    try:
        return function(*args)
    finally:
        connection.close()  # idle for minutes between jobs: no connection held meanwhile
