"""A thread with a database connection of its own, for tests of what two connections at once do
(two tabs, two servers, a move batch holding a row while something else waits for it)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


class ConnectionThread(threading.Thread):
    """Runs `target(*args)` (after `barrier`, to start several at the same moment) on a
    connection of its own, closed as it ends: `result` is what it returned, `error` what it
    raised (None if nothing), so the test asserts on either after `join`."""

    def __init__(self, target: Callable, *args, barrier: threading.Barrier | None = None) -> None:
        super().__init__(daemon=True)
        self.target, self.args, self.barrier = target, args, barrier
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            if self.barrier is not None:
                self.barrier.wait()
            self.result = self.target(*self.args)
        except Exception as exc:  # the test's to report
            self.error = exc
        finally:
            connection.close()


def all_at_once(target: Callable, args: list[tuple], timeout: float = 30) -> list[ConnectionThread]:
    """`target` run once for each of `args`, every thread released at the same moment; the
    threads, ended (or `timeout` gone)."""
    barrier = threading.Barrier(len(args))
    threads = [ConnectionThread(target, *each, barrier=barrier) for each in args]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return threads
