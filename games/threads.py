"""The process's worker threads for the ORM, which must not run on the event loop.

Moves do not come here (the move writer has its thread: games/writer.py); everything else a
socket asks of the database does: opening a game, loading one, reading a race.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

from channels.db import DatabaseSyncToAsync
from django.db import close_old_connections

# The ORM's worker threads, for the life of the process: frames of different sockets reach the
# database side by side, where Channels' default (one shared thread) queues every socket of the
# process behind every query. Not the event loop's default executor: its threads end with the
# loop, and a connection one still held never went back to the pool.
ORM_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="orm")


def in_worker(function):
    """`function` (sync, using the ORM) as a coroutine run on the ORM threads.

    The connection is closed (given back to the pool) inside the call itself: Channels'
    wrapper closes outside the call's context, where a connection opened inside it was
    measured to stay checked out of psycopg's pool.
    """

    @functools.wraps(function)
    def run_and_close(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return DatabaseSyncToAsync(run_and_close, thread_sensitive=False, executor=ORM_THREADS)
