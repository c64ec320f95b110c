"""Channel groups: sends that name their group, and the one channel of each event loop that
hears the groups its listeners are in.

**Hearing.** Channels gives every consumer a channel of its own, and channels-redis's pub/sub
layer subscribes each one on Redis, behind the lock that every publish of the loop takes (one per
shard): a crowd of sockets opening and closing together queued thousands of round trips behind
the moves' announcements, and sockets waited over ten seconds to close (docs/performance-log.md,
"1,000 players for a whole arena"). So no socket has a channel. The event loop has one
(`Groups.name`), read by one task; it joins a group while any listener of the loop is in it,
and hands each message of the group to them (`hear`): a socket's inbox, read in turn with its
websocket frames (games/sockets.py `PlaySocket`), a race's relay (races/play.py), an arena's
room (arenas/rooms.py). Joining waits until the loop's channel is in the group, so that nothing
sent after is missed; leaving does not wait: the loop leaves the group in a task of its own once
its last listener left (a socket cancelled while it leaves can no longer cancel an unsubscribe
halfway, which had left one process's connection with thousands of subscriptions nobody heard).

**Sending.** A group's message names its group (`GROUP`: `group_send` adds it), which is how the
loop's channel knows whose it is. Actions run in a worker thread and, after the commit, tell the
sockets about the change: waiting for the channel layer there (`async_to_sync`) would hold the
worker until the busy event loop has published. These sends are notifications only (the database
is the record, and a socket that misses one catches up by `seq` and resync), so
`group_send_nowait` hands the send to the loop and goes on; on the event loop itself the send is
a task of that loop; elsewhere (a management command, a test calling an action directly) there
is no loop to hand it to, and it is sent the blocking way.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

T = TypeVar("T")


class PerLoop(Generic[T]):
    """`get()`: the running event loop's `make()`, made at its first call. What the sockets of
    a process share holds asyncio locks, futures and timers, which belong to the loop that made
    them; a test run makes a loop a test, and those of closed loops are dropped."""

    def __init__(self, make: Callable[[], T]) -> None:
        self.make = make
        self.found: dict[asyncio.AbstractEventLoop, T] = {}

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        found = self.found.get(loop)
        if found is None:
            for old in [lp for lp in self.found if lp.is_closed()]:
                del self.found[old]
            found = self.found[loop] = self.make()
        return found

    def values(self):
        return self.found.values()


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


# ------------------------------------------------------------------ hearing


class Listener(Protocol):
    def hear(self, message: dict) -> None:
        """A message of a group it is in (on the event loop; must not block)."""


class Groups:
    """This event loop's channel, and the groups it is in for whom."""

    def __init__(self) -> None:
        self.name = ""
        self.reader: asyncio.Task | None = None
        self.ready: asyncio.Future | None = None
        self.members: dict[str, set[Listener]] = {}
        self.joined: dict[str, asyncio.Task] = {}
        """The group's join, by group: done once the channel is in it."""
        self.leaving: dict[str, asyncio.Task] = {}
        """A group's leave not yet made: a join of it waits for it (the layer then takes both
        in the order they were asked)."""

    async def add(self, group: str, listener: Listener) -> None:
        """Hear the group's messages from now on (raises if the channel layer could not join
        it: the caller is then in no group, as if it had not asked)."""
        self.members.setdefault(group, set()).add(listener)
        join = self.joined.get(group)
        if join is None or (join.done() and join.exception() is not None):
            join = self.joined[group] = asyncio.get_running_loop().create_task(self._join(group))
        try:
            await asyncio.shield(join)
        except BaseException:
            self.discard(group, listener)
            raise

    def discard(self, group: str, listener: Listener) -> None:
        """Hear no more of the group; the last listener's leave takes the channel out of it."""
        members = self.members.get(group)
        if members is None or listener not in members:
            return
        members.discard(listener)
        if members:
            return
        del self.members[group]
        join = self.joined.pop(group, None)
        if join is not None:
            leave = asyncio.get_running_loop().create_task(self._leave(group, join))
            self.leaving[group] = leave

    async def _join(self, group: str) -> None:
        leave = self.leaving.get(group)
        if leave is not None:
            await leave  # never raises
        await self.listening()
        await get_channel_layer().group_add(group, self.name)

    async def _leave(self, group: str, join: asyncio.Task) -> None:
        try:
            await join
            await get_channel_layer().group_discard(group, self.name)
        except Exception:  # the join had failed, or the layer is away: nothing to undo
            logger.warning("could not take this loop's channel out of %s", group, exc_info=True)
        finally:
            if self.leaving.get(group) is asyncio.current_task():
                del self.leaving[group]

    async def listening(self) -> None:
        """This loop's channel, made once, and the task that reads it."""
        if self.ready is None:
            loop = asyncio.get_running_loop()
            ready = self.ready = loop.create_future()
            try:
                self.name = await get_channel_layer().new_channel()
            except BaseException as exc:
                self.ready = None  # the next join tries again
                ready.set_exception(exc)
                ready.exception()  # retrieved: whoever waits on it is told by its own await
                raise
            self.reader = loop.create_task(self.read())
            ready.set_result(None)
        await asyncio.shield(self.ready)

    async def read(self) -> None:
        """Hand each message of the loop's channel to the listeners in its group."""
        layer = get_channel_layer()
        while True:
            try:
                message = await layer.receive(self.name)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer reconnects; what was lost, the listeners make good
                logger.exception("could not read this loop's channel")
                await asyncio.sleep(0.5)
                continue
            for listener in list(self.members.get(message.get(GROUP), ())):
                try:
                    listener.hear(message)
                except Exception:  # one listener's fault costs the others nothing
                    logger.exception("could not hand a message of %s on", message.get(GROUP))


GROUPS: PerLoop[Groups] = PerLoop(Groups)
"""This event loop's groups (`GROUPS.get()`)."""
