"""A race's live progress in one process: one `progress` frame a tick to each of the process's
sockets on the race, carrying every racer who moved since, wherever they play.

Racers of one race may play on different server processes. Each process gathers what its own
racers' acknowledged moves changed (`mark`, as their sockets' seats hold it) and, once a tick
(`RACE_PROGRESS_TICK_MS`), hands those figures to the other processes as one channel message
(`race.live`, to the race's live group, where only each process's relay listens, not every
socket) and sends its own sockets one frame with its racers and whatever the other processes
handed it since its last. So a socket gets at most one live frame a tick, however many
processes its race is spread over, and a channel message is taken in once a process, not once
a socket. Figures from another process carry their own `at_ms` (when they were read there),
which clients go by rather than the frame's.

Live frames are not numbered and not stored: the racer rows, written with each move, are the
record (a reconnect's catch-up reads them). A finish is a numbered event of its own, and a
racer who finished is left out of later ticks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from channels.layers import get_channel_layer
from django.conf import settings

from games.frames import encode
from games.per_loop import PerLoop
from races import events, lifecycle
from races.models import Race, Racer

if TYPE_CHECKING:
    from channels.generic.websocket import AsyncWebsocketConsumer

logger = logging.getLogger(__name__)

MESSAGE = "race.live"


def live_group(race: Race) -> str:
    """The channel group of the race's relays (one member a process that shows the race)."""
    return f"{race.group_name}.live"


def part_message(race: Race, racers: list[Racer], sender: str = "") -> dict:
    """A process's racers' figures for the other processes of the race: as they stand now,
    each with when, in ms from the start."""
    at_ms = events.at_ms_of(race, int(time.time() * 1000))
    return {
        "type": MESSAGE,
        "race": race.pk,
        "from": sender,
        "racers": [{**events.live_racer(racer), "at_ms": at_ms} for racer in racers],
    }


class RaceRelay:
    """One race in one process: its sockets here, and the figures not yet sent to them."""

    def __init__(self, relays: Relays, race: Race) -> None:
        self.relays = relays
        self.race = race
        self.sockets: set[AsyncWebsocketConsumer] = set()
        self.marked: dict[int, Racer] = {}  # this process's racers who moved, by pk
        self.folded: dict[str, dict] = {}  # other processes' racers' figures, by public id
        self.last = 0.0
        self.timer: asyncio.TimerHandle | None = None

    def mark(self, race: Race, racer: Racer) -> None:
        """A racer of this process moved (acknowledged): in the next tick. `race` as their seat
        holds it (the one the relay was made with may predate the start)."""
        self.race = race
        self.marked[racer.pk] = racer
        self.schedule()

    def fold(self, racers: list[dict]) -> None:
        """Another process's racers' figures: in this process's next tick (the newest of each)."""
        for figures in racers:
            held = self.folded.get(figures["id"])
            if held is None or held["at_ms"] <= figures["at_ms"]:
                self.folded[figures["id"]] = figures
        self.schedule()

    def schedule(self) -> None:
        if self.timer is None:
            loop = asyncio.get_running_loop()
            wait = self.last + settings.RACE_PROGRESS_TICK_MS / 1000 - loop.time()
            self.timer = loop.call_later(max(0.0, wait), self.tick)

    def tick(self) -> None:
        self.timer = None
        own = [r for r in self.marked.values() if r.status not in lifecycle.DONE]
        folded = list(self.folded.values())
        self.marked, self.folded = {}, {}
        if not own and not folded:
            return
        loop = asyncio.get_running_loop()
        self.last = loop.time()
        if own:
            events.broadcast(live_group(self.race), part_message(self.race, own, self.relays.name))
        if self.sockets:
            # With no racer of its own, this process's race may be as read before the start (no
            # start time): the frame is as of the latest figures folded in.
            at_ms = None if own else max(figures["at_ms"] for figures in folded)
            frame = events.live_progress_frame(self.race, own, at_ms=at_ms)
            own_ids = {racer.public_id for racer in own}
            frame["racers"] += [
                figures if figures["at_ms"] != frame["at_ms"] else _without_at(figures)
                for figures in folded
                if figures["id"] not in own_ids
            ]
            text = encode(frame)
            task = loop.create_task(self.send(text, list(self.sockets)))
            task.add_done_callback(_report)
        else:
            self.relays.races.pop(self.race.pk, None)  # its last socket left during the tick

    async def send(self, text: str, sockets: list) -> None:
        for socket in sockets:
            await socket.base_send({"type": "websocket.send", "text": text})


def _without_at(figures: dict) -> dict:
    return {k: v for k, v in figures.items() if k != "at_ms"}


def _report(done: asyncio.Task) -> None:
    if not done.cancelled() and done.exception() is not None:
        logger.error("could not send live progress", exc_info=done.exception())


class Relays:
    """This process's (and event loop's) relays, and the one channel they hear other processes
    on."""

    def __init__(self) -> None:
        self.races: dict[int, RaceRelay] = {}
        self.name = ""
        self.reader: asyncio.Task | None = None
        self.ready: asyncio.Future | None = None

    def of(self, race: Race) -> RaceRelay:
        found = self.races.get(race.pk)
        if found is None:
            found = self.races[race.pk] = RaceRelay(self, race)
        return found

    async def join(self, race: Race, socket) -> None:
        """A socket of this process shows the race: it gets the race's live frames."""
        relay = self.of(race)
        first = not relay.sockets
        relay.sockets.add(socket)
        if first:
            await self.listening()
            await get_channel_layer().group_add(live_group(race), self.name)

    async def leave(self, race: Race, socket) -> None:
        relay = self.races.get(race.pk)
        if relay is None:
            return
        relay.sockets.discard(socket)
        if not relay.sockets:
            await get_channel_layer().group_discard(live_group(race), self.name)
            if relay.timer is None:
                del self.races[race.pk]

    async def listening(self) -> None:
        """This loop's channel, made once, and the task that reads it."""
        if self.ready is None:
            loop = asyncio.get_running_loop()
            ready = self.ready = loop.create_future()
            try:
                self.name = await get_channel_layer().new_channel()
            except BaseException as exc:
                self.ready = None  # the next socket tries again
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
            except Exception:  # the layer reconnects; a lost part is made good by the next
                logger.exception("live progress: could not read the relay channel")
                await asyncio.sleep(0.5)
                continue
            if message.get("type") != MESSAGE or message.get("from") == self.name:
                continue
            relay = self.races.get(message["race"])
            if relay is not None and relay.sockets:
                relay.fold(message["racers"])


_relays: PerLoop[Relays] = PerLoop(Relays)


def relays() -> Relays:
    """This event loop's relays (a test's loop gets its own)."""
    return _relays.get()
