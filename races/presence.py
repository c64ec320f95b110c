"""Which racers still have their race's page open, across every server: each process says so for
the racers its sockets show (`Racer.seen_at`), every third of `settings.RACER_GONE_AFTER_S`
(10 s), and within `NEW_WITHIN_S` of a socket that begins to show one (a page that opens,
reconnects, or goes on to its next race). A racer none of whose pages a server has said so for
`RACER_GONE_AFTER_S` has left: the server resigns them once nobody else of their race still
plays (races/holdups.py), so that the race's done racers are not held until its time limit.
The same beat looks for those holdups, every `holdups.LOOK_EVERY_S`, in the races its sockets
show racers of (`holdups.resign_in`).

Counted a process, written together: one statement a process and beat, whatever the number of
its sockets, and none for a socket that closes. A page closed, or a server killed with its
pages, stops being said; a second tab on another server keeps saying it. Only a racer still
racing is written (a done one holds nothing), and a row another transaction holds is passed
over for the next beat (`games.rows.touch`): a move batch's, which says the racer is seen
itself (each move does, races/play.py `RACER_SQL`), or a close's, after which the racer is done.
In a crowd of 1,000 the beats alone, every 10 s, left a racer who was there unseen for up to
20.5 s (a beat passed over, or late behind a wave's database work); a move's write closes
that gap for every racer who plays."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter

from django.conf import settings
from django.utils import timezone

from games.groups import PerLoop
from games.rows import touch
from games.storage import off_loop
from races import holdups
from races.actions import STILL
from races.models import Racer

logger = logging.getLogger(__name__)

BEATS_BEFORE_GONE = 3
"""A process says which racers its sockets show this many times within `RACER_GONE_AFTER_S`:
a beat or two lost (a row held, the database away a moment) does not make a racer gone."""
NEW_WITHIN_S = 1.0
"""How soon a racer a socket of the process begins to show is said (a page back after a drop
is seen again before anything counts it gone)."""


def seen_every_s() -> float:
    """How often a process says again which racers its sockets show."""
    return settings.RACER_GONE_AFTER_S / BEATS_BEFORE_GONE


def say_seen(racer_pks: list[int]) -> int:
    """These racers' pages are open now (those still racing); how many rows it wrote."""
    racers = Racer.objects.filter(pk__in=racer_pks, status__in=STILL)
    return touch(racers, seen_at=timezone.now())


class Presence:
    """The racers this event loop's sockets show, and the beat that says so."""

    def __init__(self) -> None:
        self.shown: Counter[int] = Counter()
        self.race_of: dict[int, int] = {}
        self.new: set[int] = set()
        self.said_at = self.looked_at = time.monotonic()
        self.task: asyncio.Task | None = None

    def add(self, racer_pk: int, race_pk: int) -> None:
        """A socket begins to show this racer, of this race."""
        self.shown[racer_pk] += 1
        self.race_of[racer_pk] = race_pk
        self.new.add(racer_pk)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())

    def discard(self, racer_pk: int) -> None:
        """A socket no longer shows this racer."""
        self.shown[racer_pk] -= 1
        if self.shown[racer_pk] <= 0:
            del self.shown[racer_pk]
            del self.race_of[racer_pk]

    def due(self) -> list[int]:
        """The racers to say now: all of them every `seen_every_s()`, else those new since."""
        now = time.monotonic()
        if now - self.said_at >= seen_every_s():
            self.said_at = now
            racers = list(self.shown)
        else:
            racers = [pk for pk in self.new if pk in self.shown]
        self.new.clear()
        return racers

    def look_due(self) -> bool:
        """Whether to look for holdups in the races shown now (every `holdups.LOOK_EVERY_S`)."""
        now = time.monotonic()
        if now - self.looked_at < holdups.LOOK_EVERY_S:
            return False
        self.looked_at = now
        return True

    async def run(self) -> None:
        """The beat, while the loop's sockets show a racer: who is seen, and who holds up a race
        (its next look makes up for one the database refused)."""
        while self.shown:
            await asyncio.sleep(NEW_WITHIN_S)
            racers = self.due()
            if racers:
                try:
                    await off_loop(say_seen)(racers)
                except Exception:  # the database away a moment: the next beat says them all
                    self.said_at = -seen_every_s()
                    logger.exception("could not say which racers are seen")
            if self.shown and self.look_due():
                try:
                    await off_loop(holdups.resign_in)(set(self.race_of.values()))
                except Exception:
                    logger.exception("could not look for racers who hold up their races")


PRESENCE: PerLoop[Presence] = PerLoop(Presence)
"""This event loop's racers shown (`PRESENCE.get()`)."""
