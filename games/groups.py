"""The channel-layer groups of an event loop's listeners, heard on the loop's one channel.

Channels gives every consumer a channel of its own, and channels-redis's pub/sub layer
subscribes each one on Redis, behind the lock that every publish of the loop takes (one per
shard): a crowd of sockets opening and closing together queued thousands of round trips behind
the moves' announcements, and sockets waited over ten seconds to close (docs/performance.md,
"1,000 players for a whole arena"). So no socket has a channel. The event loop has one
(`Groups.name`), read by one task; it joins a group while any listener of the loop is in it,
and hands each message of the group to them (`hear`): a socket's inbox, read in turn with its
websocket frames (games/sockets.py `PlaySocket`), a race's relay (races/play.py), an arena's
room (arenas/rooms.py). A group's message names its group (`games.layer.group_send` adds it).

Joining waits until the loop's channel is in the group, so that nothing sent after is missed;
leaving does not wait: the loop leaves the group in a task of its own once its last listener
left (a socket cancelled while it leaves can no longer cancel an unsubscribe halfway, which had
left one process's connection with thousands of subscriptions nobody heard).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from channels.layers import get_channel_layer

from games.layer import GROUP
from games.play import PerLoop

logger = logging.getLogger(__name__)


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

    def deliver(self, message: dict) -> None:
        for listener in list(self.members.get(message.get(GROUP), ())):
            try:
                listener.hear(message)
            except Exception:  # one listener's fault costs the others nothing
                logger.exception("could not hand a message of %s on", message.get(GROUP))

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
            self.deliver(message)


GROUPS: PerLoop[Groups] = PerLoop(Groups)
"""This event loop's groups (`GROUPS.get()`)."""
