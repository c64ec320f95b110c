"""Sends to channel groups: each message names its group, and from the actions' worker threads
it is handed to the event loop unwaited.

The listeners of an event loop hear every group the loop is in on its one channel
(games/groups.py), so a message says which group it was sent to (`GROUP`): `group_send` adds it.

Actions run in a worker thread and, after the commit, tell the sockets about the change.
Waiting for the channel layer there (`async_to_sync(layer.group_send)`) holds the worker until
the busy event loop has published. These sends are notifications only (the database is the
record, and a socket that misses one catches up by `seq` and resync), so the worker hands the
send to the loop and goes on. On the event loop itself (a race's progress tick) the send is a
task of that loop. Elsewhere (a management command, a test calling an action directly) there is
no loop to hand it to, and it is sent the blocking way.
"""

from __future__ import annotations

import asyncio
import logging
import os

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

GROUP = "group"
"""The key of a group message that names its group."""


async def group_send(group: str, message: dict) -> None:
    """Send to a channel group (raises if the layer could not)."""
    await get_channel_layer().group_send(group, {**message, GROUP: group})


def _event_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the SyncToAsync call this thread runs in, if any (asgiref keeps it)."""
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(local, "main_event_loop", None)
    return loop if loop is not None and loop.is_running() else None


def group_send_nowait(group: str, message: dict) -> None:
    """Send to a channel group without waiting for it; failures are logged, never raised."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is not None:
        task = running.create_task(group_send(group, message))
        task.add_done_callback(lambda done: _report(done, group))
        return
    loop = _event_loop()
    if loop is None:
        try:
            async_to_sync(group_send)(group, message)
        except Exception:  # a notification must never undo a committed change
            logger.exception("could not send to group %s", group)
        return
    future = asyncio.run_coroutine_threadsafe(group_send(group, message), loop)
    future.add_done_callback(lambda done: _report(done, group))


def _report(done, group: str) -> None:
    if not done.cancelled() and done.exception() is not None:
        logger.error("could not send to group %s", group, exc_info=done.exception())
