"""An arena under load: N simulated players in one arena, spread over the servers given, for a set
time (`scripts/loadtest.py --arena`).

A guest sets the arena up with the "set up an arena" form (starting now); every player is a
guest browser without a browser (scripts/client.py's `Browser`): it loads the arena's page and
opens /ws/arena/<id>/ as a spectator, presses Join as the page's script does (the answer is JSON,
the page stays), and opens the socket again as the player's. When the server places it, the
`placed` frame names its race: it closes the arena's socket and loads the race's page (the page
leaves for it), opens the race's socket, plays random legal moves of its own board at a set pace
(scripts/loadtest.py's `Racer`: it never sees a hidden card) for `--race-s` seconds, resigns
(once the race's own clock is up, a page takes no move and has nothing to resign: the racer
stops), and then, done in the race, it stays on the race's page, as the page does
(js/arena-next.js): it sends `wait` on the race's socket (again on a socket that came back),
where it is placed again once the race closes, and opens the next race's socket: the page
shows the next race in place, with no page load (js/race.js; it keeps the last race's socket
until it has heard the race's end, for the figures). At the end of a time-boxed run (`--duration`)
everyone resigns and stops. In a whole arena (`--whole-arena`) each player plays the race in hand
out, as players do (a race under way at the arena's end still counts), and is not placed again.
`--sockets-only` leaves out the first race's page too (the generator before 2026-12-01 loaded
no page; before 2026-12-04 it loaded the arena's page again after joining, as the page did then;
before 2026-12-05 it loaded each race's page).

It prints how many placements there were, the time from being free (after joining, from the
join's answer; after a race, from the later of its end and its `wait` sent) to being
placed (median, p95, p99, max: the issue's bound is 5 s, and those over it, all of them and
those with another player free beside them for over 5 s of it: the arena places free players
as soon as there are two, so a wait alone counts from the second's coming), the same counted
from the end of the player's last race as the server recorded it (the `finished` event's `finished_at`; the
client's clock is taken for the server's, so run it on the servers' machine), the time from that end to hearing the `finished` event, a
first placement's wait in its parts (its socket's accept, the wait for `placed`), the
move round trip, and, given the database and the servers' Redis, checks the record: nobody in
two races at once, every race 2 to 8 players, and the arena's sorted set in Redis (read by the
app's own key: the API reads the record itself when Redis lost the set) holding every player
with the points and in the order (tie-breaks included) the app's recount of the results gives
(read again once a second until they agree, for up to 30 s: the servers close a crowd's last
races after the run, and each board is written after its commit). The
placements and the moves' round trips are drawn by 30 s of play too (a bar of their p99 a
window, with those over 5 s): when in the arena the slow ones came. A player's race socket opens
on the player's own server, or with `--race-affinity` on the server the race's code picks (as
deploy/nginx routes a race's sockets: every racer of a race on one server); a socket that drops
opens again there (with `Crowd.fail_over`, a fault drill's, on the next server, as a proxy hands
a dead server's sockets to a live one). The run fails (`ok`, the exit status) on an error, a
player sent back to a race they had been in, a placement over 5 s with company (as timed here,
or in the record: a race's end to its racer's next placement), or a failed record check.

    python scripts/loadtest.py --arena --racers 60 --duration 60 --pace 1 \\
        http://127.0.0.1:8001 http://127.0.0.1:8002 --database-url postgres://… \\
        --redis-url redis://…
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import concurrent.futures
import contextlib
import datetime as dt
import json
import math
import random
import re
import subprocess
import sys
import time
import traceback
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import zip_longest
from urllib.parse import urlsplit

import websockets

from arenas import points
from games.percentiles import percentile
from scripts.client import Browser, query
from scripts.procstat import (
    ServerCpu,
    client_cpu_s,
    cores_text,
    cores_used,
    load_average,
)
from scripts.servers import ROOT, server_env

VARIANT = "penguin"
"""The arena's game without `--variant`."""
POOL_SIZE = 24
"""A race pool's own depth (games.winnable.POOL_SIZES)."""
ARENA_MINUTES = 10
RACE_LIMIT_S = 60
PLACED_TIMEOUT_S = 30.0
FINISH_TIMEOUT_S = 90.0
OVERDUE_S = 15
"""A race still open this long after its time limit at the record check is a failure: every
socket on it asks for its close at the limit, and reads the record 5 s later."""
UNANSWERED_SHOWN = 50  # the moves let go of unanswered that a run lists (all are counted)
SILENCE_S = 30.0
"""How long a racer waits in silence for its board before asking with `sync`. A page asks only
on a gap in the events or when its socket opens again (frontend/static/js/socket.js pings every
20 s and takes a line unanswered for 10 s as dead): asked after 5 s, the racers of a busy server
(whose boards came late, not lost) had asked some 2,300 times in an arena of 1,000, each a
read of the race the page would not have made (docs/performance-log.md, arenas' nineteenth day)."""


def deals_to_stock(players: int) -> int:
    """The race deals stocked before a crowd of `players` comes, as the scheduler stocks them
    for an arena that many players joined ahead: a quarter of them (arenas.placement.deals_wanted),
    at least the pool's own depth."""
    return max(POOL_SIZE, math.ceil(players / 4))


def spread(values: list[float]) -> dict:
    def at(p: float) -> float | None:
        return round(percentile(values, p), 1) if values else None

    return {
        "median": at(50),
        "p95": at(95),
        "p99": at(99),
        "max": round(max(values), 1) if values else None,
    }


def set_up_arena(base: str, variant: str, lead_s: float = 0) -> str:
    """The organiser's form: an arena of `variant` starting now, or with `lead_s`, at the first
    whole minute (the form's) at least that far ahead; its id."""
    browser = Browser(base)
    browser.request("GET", "/arenas/new/")
    start = start_after(dt.datetime.now(dt.UTC), lead_s).strftime("%Y-%m-%dT%H:%M")
    form = {
        "name": "Load arena",
        "variant": variant,
        "starts_at": start,
        "minutes": str(ARENA_MINUTES),
        "race_time_limit_s": str(RACE_LIMIT_S),
        "visibility": "link",
    }
    status, headers, _ = browser.request("POST", "/arenas/new/", form)
    match = re.fullmatch(r"/arenas/([\w-]+)/", headers.get("Location", ""))
    if status != 302 or match is None:
        raise RuntimeError(f"the arena form answered {status} {headers.get('Location')}")
    return match.group(1)


def start_after(now: dt.datetime, lead_s: float) -> dt.datetime:
    """The form's start for a lead: this minute (so the arena runs at once) without one, else
    the first whole minute at least `lead_s` ahead."""
    if lead_s <= 0:
        return now.replace(second=0, microsecond=0)
    later = now + dt.timedelta(seconds=lead_s)
    whole = later.replace(second=0, microsecond=0)
    return whole if whole == later else whole + dt.timedelta(minutes=1)


def arena_times(base: str, arena_id: str) -> tuple[dt.datetime, dt.datetime]:
    """When the arena starts and ends, as its JSON document says."""
    status, _, text = Browser(base).request("GET", f"/api/arenas/{arena_id}/")
    if status != 200:
        raise RuntimeError(f"the arena's document answered {status}")
    document = json.loads(text)
    return (
        dt.datetime.fromisoformat(document["starts_at"]),
        dt.datetime.fromisoformat(document["ends_at"]),
    )


def join(browser: Browser, arena_id: str) -> str:
    """The page's Join button, as its script sends it: the answer is JSON, and the page stays;
    its ticket (which the page sends over its socket)."""
    status, _, text = browser.request(
        "POST", f"/arenas/{arena_id}/join/", {}, accept="application/json"
    )
    if status != 200:
        raise RuntimeError(f"join answered {status}: {text[:200]}")
    return json.loads(text)["ticket"]


@dataclass
class ArenaPlayer:
    index: int
    base: str
    browser: Browser
    placements_ms: list[float] = field(default_factory=list)
    placed_at_s: list[float] = field(default_factory=list)
    """When each placement came, in seconds from the start of play (`placements_ms`'s order)."""
    returns_ms: list[float] = field(default_factory=list)
    """From the end of the player's race (the server's `finished_at`) to its next `placed`."""
    ended_heard_ms: list[float] = field(default_factory=list)
    """From the end of the player's race to hearing that it ended."""
    untimed: int = 0
    """Placements after a race whose end the race's socket never told (over when it opened)."""
    snapshot_ms: list[float] = field(default_factory=list)
    """From opening a race's socket to its first frame (the connect's `snapshot`)."""
    board_late_ms: list[float] = field(default_factory=list)
    """From the race's start (its `starts_at`) to the player's first board, 0 when it came before."""
    start_board_late_ms: list[float] = field(default_factory=list)
    """The same, for the race sockets whose snapshot came before the start (the board comes at
    the start, not with the connect)."""
    races: list[str] = field(default_factory=list)
    first_parts_ms: tuple[float, float] | None = None
    """The first placement's wait in its parts, from the join's answer: the page's arena socket
    made the player's (the answer to the ticket: `standings` with their own row), and from then
    to `placed`."""
    error: str | None = None


class Crowd:
    def __init__(self, args, racer_class, stats) -> None:
        self.args = args
        self.racer_class = racer_class
        self.stats = stats
        self.arena_id = ""
        self.stop_at = 0.0
        self.played_s = 0.0
        self.began = time.perf_counter()
        """The start of play: now, or the arena's start for a crowd that joins before it."""
        self.began_ms = time.time() * 1000
        """`began` on the wall clock (the server's `finished_at` and the placements' times)."""
        self.at_start = None
        """Called at the start of play, for a crowd that joined before it (the CPU's sample)."""
        self.bases: list[str] = []
        """The servers the crowd is spread over (`run`'s)."""
        self.players: list[ArenaPlayer] = []
        self.syncs = 0
        """Boards at a race's start that had to be asked for (`sync` after a silence)."""
        self.rng = random.Random(args.rng_seed)
        self.reopened = 0
        """Arena sockets the server closed, opened again."""
        self.pages = 0
        """Pages loaded (the arena's before joining, each race's)."""
        self.placed_heard = 0
        """`placed` frames heard (each sends a page to its race), timed or not."""
        self.counting: set[asyncio.Future] = set()
        """Placements after a race whose race's end is still to be heard (`count_return`)."""
        self.fail_over = False
        """Whether a dropped socket opens again on the next server (the fault drill that kills a
        server: as a page's does behind a proxy that hands a dead server's sockets to a live
        one); without it, where it was, as a page's opens again at the address it had."""

    def ws(self, player: ArenaPlayer, path: str):
        return websockets.connect(
            player.base.replace("http://", "ws://", 1) + path,
            origin=player.base,
            additional_headers={"Cookie": player.browser.cookie_header()},
            open_timeout=60,
            ping_interval=None,
            max_queue=None,
        )

    async def placed(self, player: ArenaPlayer, after=None, page_socket=None) -> str | None:
        """Wait to be placed; the race's address. Just joined, on the arena's page (its socket,
        `page_socket`, made the player's with the join's ticket, as the page does); `after` a race, on
        that race's page, as soon as the player is done in it (the arena places them when the
        race closes), on the race's own socket (`wait`), open until the page leaves."""
        opened_ms = time.time() * 1000
        try:
            if after is None:
                url = await self.wait_placed(player, opened_ms, page_socket)
            else:
                url = await self.wait_on_race(player, after)
        except BaseException:
            if after is not None:
                await after.close()
            raise
        if after is not None:
            if url is None:
                await after.close()
            else:  # counted once the race's end is heard, which may come after `placed`
                placed = (time.time() * 1000, time.perf_counter() - self.began)
                task = asyncio.ensure_future(self.count_return(player, after, opened_ms, placed))
                self.counting.add(task)
                task.add_done_callback(self.counting.discard)
        return url

    async def count_return(self, player: ArenaPlayer, racer, opened_ms: float, placed: tuple):
        """A placement after a race, timed from the race's end as the server recorded it (its
        `finished_at`; the generator runs on the servers' machine, so their clocks agree): the
        close commits, the placement follows within a tick, and the `finished` event and the
        `placed` frame travel apart, so the end may be heard after the placement. The page
        leaves at `placed`; the generator keeps the race's socket open until the end is heard."""
        try:
            await asyncio.wait_for(racer.finished.wait(), FINISH_TIMEOUT_S)
        except TimeoutError:
            player.error = "the race's end was not heard"
            return
        finally:
            await racer.close()
        ended_ms = racer.ended_at_ms
        if ended_ms is None:  # over already when the socket opened: no `finished_at` heard
            player.untimed += 1
            return
        placed_ms, placed_at_s = placed
        player.placements_ms.append(placed_ms - max(opened_ms, ended_ms))
        player.placed_at_s.append(placed_at_s)
        player.returns_ms.append(placed_ms - ended_ms)

    async def wait_on_race(self, player: ArenaPlayer, racer) -> str | None:
        """On the race's page, done: `wait` on the race's socket, sent again on a socket that
        came back (as the page sends it), until `placed` comes; placed within 30 s of the race's
        end, which may be the race's time limit away."""
        left = min(self.stop_at - time.perf_counter(), PLACED_TIMEOUT_S + FINISH_TIMEOUT_S)
        if left <= 0:
            return None
        asked_on = None
        try:
            async with asyncio.timeout(left):
                while racer.placed_url is None:
                    if racer.ws is not asked_on:
                        asked_on = racer.ws
                        with contextlib.suppress(websockets.ConnectionClosed):
                            await racer.send({"type": "wait"})
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(racer.placed.wait(), 1.0)
        except TimeoutError:
            if time.perf_counter() < self.stop_at:
                player.error = f"not placed within {PLACED_TIMEOUT_S + FINISH_TIMEOUT_S:g} s"
            return None
        self.placed_heard += 1
        return racer.placed_url

    async def wait_placed(self, player: ArenaPlayer, opened_ms: float, ws=None) -> str | None:
        """Just joined: the page's arena socket `ws` (the player's since its ticket), or one
        opened again when the server closed it (as the page's is: the session says who the
        player is), until `placed` comes."""
        before_start = max(0.0, self.began - time.perf_counter())  # joined before the start
        left = min(self.stop_at - time.perf_counter(), PLACED_TIMEOUT_S + before_start)
        if left <= 0:
            if ws is not None:
                await ws.close()
            return None
        accepted_ms = None
        try:
            async with asyncio.timeout(left):
                while True:
                    if ws is None:
                        ws = await retried(
                            lambda: self.ws(player, f"/ws/arena/{self.arena_id}/"),
                            refused=lambda: self.server_gone(player),
                        )
                        accepted_ms = time.time() * 1000  # the session's player's from the accept
                    with contextlib.suppress(websockets.ConnectionClosed):
                        async with ws:
                            async for text in ws:
                                frame = json.loads(text)
                                if frame.get("type") == "standings" and frame.get("you"):
                                    accepted_ms = accepted_ms or time.time() * 1000
                                if frame.get("type") == "placed":
                                    self.placed_heard += 1
                                    now_ms = time.time() * 1000  # free since the socket opened
                                    free_ms = max(opened_ms, self.began_ms)  # or since the start
                                    # (placed before the start: no wait, its race begins then)
                                    player.placements_ms.append(max(0.0, now_ms - free_ms))
                                    theirs_ms = accepted_ms or now_ms
                                    player.first_parts_ms = (
                                        theirs_ms - opened_ms,
                                        max(0.0, now_ms - max(theirs_ms, free_ms)),
                                    )
                                    at_s = time.perf_counter() - self.began
                                    player.placed_at_s.append(max(0.0, at_s))
                                    return frame["url"]
                    ws = None
                    self.reopened += 1
        except TimeoutError:
            if time.perf_counter() < self.stop_at:
                player.error = f"not placed within {PLACED_TIMEOUT_S:g} s"
            return None

    async def load_page(self, player: ArenaPlayer, path: str) -> None:
        """Load a page as the player's browser does: the HTML alone, on the player's own server."""
        status = await player.browser.load(path)
        self.pages += 1
        if status != 200:
            raise RuntimeError(f"{path} answered {status}")

    async def race(self, player: ArenaPlayer, url: str, before=None):
        """One race: load its page and open its socket (the first, from the arena's page), or go
        on on the socket of the race `before` (the race's page shows each next race in place, on
        the socket the server moved on to it), play at the pace for `--race-s` (no longer than
        the race's clock), resign; the racer, its socket still open (the page stays, and waits
        there for the race's end and the next race)."""
        if before is None and not getattr(self.args, "sockets_only", False):
            await self.load_page(player, urlsplit(url).path)
        code = url.rstrip("/").rsplit("/", 1)[1]
        player.races.append(code)
        base = self.race_server(player, code)
        racer = self.racer_class(
            player.index, self.reopened_on(base), self.stats, self.args, _NoBar()
        )
        racer.base, racer.browser, racer.code = base, player.browser, code
        # This race's end as the server recorded it (`finished_at`), from the first frame that
        # says it is over; kept on the racer, as the next race may end before this one is heard.
        racer.ended_at_ms = None
        racer.placed_url, racer.placed = None, asyncio.Event()  # the next race, once waiting
        on_frame = racer.on_frame
        opened_ms = time.time() * 1000
        snapshot_seen = False
        starts_at_ms: int | None = None  # the race's start, until the first board is counted
        before_start = False  # the snapshot came in the countdown

        def take(frame: dict) -> None:
            nonlocal snapshot_seen, starts_at_ms, before_start
            on_frame(frame)
            kind = frame.get("type")
            now_ms = time.time() * 1000
            if kind == "snapshot" and not snapshot_seen:
                snapshot_seen = True
                player.snapshot_ms.append(now_ms - opened_ms)
                starts_at_ms = frame["race"].get("starts_at")
                before_start = starts_at_ms is not None and frame.get("now", 0) < starts_at_ms
            elif kind == "state" and starts_at_ms:
                player.board_late_ms.append(max(0.0, now_ms - starts_at_ms))
                if before_start:
                    player.start_board_late_ms.append(max(0.0, now_ms - starts_at_ms))
                starts_at_ms = None
            over = kind == "finished" or (
                kind == "snapshot" and frame["race"]["status"] == "finished"
            )
            if over and racer.ended_at_ms is None and frame["race"].get("finished_at"):
                racer.ended_at_ms = frame["race"]["finished_at"]
                player.ended_heard_ms.append(time.time() * 1000 - racer.ended_at_ms)
            if kind == "snapshot" and over:
                racer.finished.set()  # the answer to a `sync`: over already
            if kind == "placed" and racer.placed_url is None:
                racer.placed_url = frame["url"]
                racer.handed_over = True  # the next frame is the next race's snapshot
                racer.placed.set()

        racer.on_frame = take
        if before is None:
            await retried(racer.connect)
        else:
            racer.take_over(before)
        try:
            await self.asking(racer, racer.board_ready)
            until = time.perf_counter() + self.race_seconds()
            if not getattr(self.args, "whole_arena", False):  # a time-boxed crowd stops at its end
                until = min(until, self.stop_at)
            await racer.play(until)
            if not racer.out_of_time():  # once time is up the close ends everyone's game
                await racer.resign()
            # As a page does: once the server says the racer is done (its resignation's event,
            # or the race's end), it waits for the next race from there (`placed`), and for the
            # end in silence (a racer who resigned early hears no ticks; a close whose event was
            # lost the server sends 5 s after `ends_at`). Asked at the resignation's sending, the
            # server would refuse the wait (`still_racing`) while the resignation is stored.
            await asyncio.wait_for(racer.done.wait(), FINISH_TIMEOUT_S)
        except BaseException:
            await racer.close()
            raise
        return racer

    def race_server(self, player: ArenaPlayer, code: str) -> str:
        """Where a race's socket opens: the player's own server, or with `--race-affinity` the
        server its code hashes to, as a proxy that routes /ws/race/<code>/ by the code does
        (every racer of a race on one server)."""
        if not getattr(self.args, "race_affinity", False):
            return player.base
        return self.bases[zlib.crc32(code.encode()) % len(self.bases)]

    def reopened_on(self, base: str) -> list[str]:
        """The servers a race's socket on `base` may open again on when it drops
        (`Racer.reconnect` tries the one after its own first, then each in turn): its own
        alone, or with `fail_over` every one."""
        return list(self.bases) if self.fail_over else [base]

    def server_gone(self, player: ArenaPlayer) -> None:
        """A connection to the player's server was refused: with `fail_over` the player's
        sockets open on the next server from now on (the session's cookies go with them)."""
        if not self.fail_over:
            return
        base = self.bases[(self.bases.index(player.base) + 1) % len(self.bases)]
        browser = Browser(base)
        browser.cookies = player.browser.cookies
        player.base, player.browser = base, browser

    def race_seconds(self) -> float:
        """How long this race is played: `--race-s`, or with `--race-spread` a time drawn
        evenly within that fraction either side of it (players do not all finish together)."""
        spread = self.args.race_spread
        return self.args.race_s * (1 + self.rng.uniform(-spread, spread))

    async def asking(self, racer, event: asyncio.Event) -> None:
        """Wait for the board at the start; after a silence (no frame at all for `SILENCE_S`,
        the longest a page goes without noticing a dead line), ask with `sync` (the channel
        layer may have lost it, as a Redis restart does), as a page asks when it reconnects:
        for the events after the newest it holds (`Racer.sync_frame`), not for a whole
        snapshot."""
        deadline = time.perf_counter() + FINISH_TIMEOUT_S
        heard = racer.frames
        while not event.is_set():
            try:
                await asyncio.wait_for(event.wait(), SILENCE_S)
            except TimeoutError:
                if time.perf_counter() > deadline:
                    raise
                if racer.frames == heard:
                    self.syncs += 1
                    with contextlib.suppress(websockets.ConnectionClosed):
                        await racer.send(racer.sync_frame())
                heard = racer.frames

    async def join(self, player: ArenaPlayer, pool):
        """As a browser joins: the arena's page, its socket open as a spectator's until the Join
        button's answer, whose ticket then makes it the player's (`placed` comes over it); the
        socket."""
        loop = asyncio.get_running_loop()
        await self.load_page(player, f"/arenas/{self.arena_id}/")  # and its CSRF cookie
        page_socket = await retried(lambda: self.ws(player, f"/ws/arena/{self.arena_id}/"))
        try:
            await asyncio.wait_for(page_socket.recv(), 60)  # the board, as the page shows it
            ticket = await loop.run_in_executor(pool, join, player.browser, self.arena_id)
            await page_socket.send(json.dumps({"type": "player", "ticket": ticket}))
        except BaseException:
            await page_socket.close()
            raise
        return page_socket

    async def play(self, player: ArenaPlayer, pool) -> None:
        try:
            page_socket = await self.join(player, pool)
            racer = None  # the last race's, its page waiting for the next
            if time.perf_counter() >= self.stop_at:  # over before the first placement
                await page_socket.close()
            while time.perf_counter() < self.stop_at:
                url = await self.placed(player, after=racer, page_socket=page_socket)
                page_socket = None
                before, racer = racer, None
                if url is None:
                    break
                racer = await self.race(player, url, before)
            if racer is not None:
                await racer.close()
        except Exception as exc:  # noqa: BLE001 - every failure is a figure
            where = traceback.extract_tb(exc.__traceback__)[-1]
            player.error = f"{type(exc).__name__}: {exc} ({where.name}:{where.lineno})"[:200]

    async def run(self, bases: list[str]) -> list[ArenaPlayer]:
        args = self.args
        self.bases = bases
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(min(32, args.racers)) as pool:
            lead_s = getattr(args, "join_before", 0)
            if not self.arena_id:  # else one made beforehand (a drill's, its races short)
                self.arena_id = await loop.run_in_executor(
                    pool, set_up_arena, bases[0], args.variant or VARIANT, lead_s
                )
            starts, ends = await loop.run_in_executor(pool, arena_times, bases[0], self.arena_id)
            players = [
                ArenaPlayer(i, bases[i % len(bases)], Browser(bases[i % len(bases)]))
                for i in range(args.racers)
            ]
            self.rng.shuffle(players)
            self.players = players
            now = time.perf_counter()
            self.began = max(now, now + (starts - dt.datetime.now(dt.UTC)).total_seconds())
            self.began_ms = time.time() * 1000 + (self.began - now) * 1000
            self.stop_at = self.began + args.duration
            if args.whole_arena:  # until the arena's own end, however long the form made it
                self.stop_at = now + (ends - dt.datetime.now(dt.UTC)).total_seconds()
            if self.began > now and self.at_start is not None:
                loop.call_later(self.began - now, self.at_start)
            await asyncio.gather(*(self.play(p, pool) for p in players))
            self.played_s = min(time.perf_counter(), self.stop_at) - self.began
            await asyncio.gather(*list(self.counting))
        return players


async def retried(connect, tries: int = 20, refused=None):
    """A socket's connection, tried again as the page's socket does when the handshake fails (a
    server that cannot reach Redis for the session answers 500 for a moment). `refused()` is
    called when no server answered at all (the connection refused: a server gone)."""
    delay = 0.5
    for attempt in range(tries):
        try:
            return await connect()
        except (
            OSError,
            TimeoutError,
            websockets.InvalidHandshake,
            websockets.InvalidStatus,
        ) as failure:
            if attempt == tries - 1:
                raise
            if refused is not None and isinstance(failure, ConnectionRefusedError):
                refused()
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 4.0)
    return None  # pragma: no cover


class _NoBar:
    def update(self, _n: int) -> None:
        pass


def settled_record_check(
    database_url: str, redis_url: str, arena_id: str, within_s: float = 30.0
) -> dict:
    """The board in the servers' Redis against the record (`settled_board_check`), then the
    record's own checks (`record_check`)."""
    board = settled_board_check(database_url, redis_url, arena_id, within_s)
    return {**record_check(database_url, arena_id), **board}


BOARD_CHECK = "board-check"
"""This module's command for the board check's own process (`settled_board_check`)."""


def settled_board_check(database_url: str, redis_url: str, arena_id: str, within_s: float) -> dict:
    """`board_check` in a process of the app's own on the servers' database and Redis (this one
    may be a test's, on another database), again once a second while the board differs from
    the record, for up to `within_s`: a race's board is written after its close commits, and
    servers still working off a crowd's backlog close its last races after the run (a lag,
    which settles; a lost point never does). `record_settled_s`: how long it took, None if it
    never did."""
    command = [sys.executable, "-m", "scripts.arena_crowd", BOARD_CHECK, arena_id, str(within_s)]
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=server_env(database_url, redis_url),
        capture_output=True,
        text=True,
        timeout=within_s + 120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the board check failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def board_settled(arena_id: str, within_s: float) -> dict:
    """`board_check` until the board agrees with the record or `within_s` has passed (run
    with Django set up)."""
    started = time.monotonic()
    while True:
        found = board_check(arena_id)
        waited = time.monotonic() - started
        agrees = not (
            found["board_points_differ"]
            or found["board_order_differ"]
            or found["board_missing_from_redis"]
        )
        if agrees or waited >= within_s:
            return {**found, "record_settled_s": round(waited, 1) if agrees else None}
        time.sleep(1.0)


def board_check(arena_id: str) -> dict:
    """The arena's sorted set as the rank store holds it (read by the app's own key, not
    through the API, which reads the record itself when the store lost the set) against
    every player's standing counted again from the results (the app's own recount, as
    `rebuild_leaderboards` counts it). Run with Django set up on the servers' settings."""
    from arenas import board
    from arenas.models import Arena
    from games.rankstore import get_rank_store

    arena = Arena.objects.get(public_id=arena_id)
    recounted = board.recount(arena)
    return compare_board(recounted, get_rank_store().range(board.key(arena), 0, -1))


def compare_board(record: dict[int, points.Standing], on_board: list[tuple[str, float]]) -> dict:
    """A board (its members and scores, in its order) against every player's standing in the
    record: how many players it holds, how many of the record's it lacks, how many players'
    points differ (a player missing from either side has none there), and at how many places
    the board's order is not the record's (`points.board_order`: points, then the tie-breaks,
    equal scores by member as Redis orders them)."""
    found = {int(member): points.points_of(score) for member, score in on_board}
    wanted = {pid: standing.points for pid, standing in record.items()}
    order = points.board_order(record)
    return {
        "board_players": len(found),
        "board_missing_from_redis": len(wanted.keys() - found.keys()),
        "board_points_differ": sum(
            1 for pid in wanted.keys() | found.keys() if found.get(pid) != wanted.get(pid)
        ),
        "board_order_differ": sum(
            1 for on, due in zip_longest((int(m) for m, _ in on_board), order) if on != due
        ),
    }


def record_check(database_url: str, arena_id: str) -> dict:
    """From the database: the arena's races (sizes), players in two races at once, and each
    return as the server recorded it (a race's end, `finished_at`, to its racer's next
    placement, the racer's `joined_at`: the race's `placed_at` for everyone placed with it,
    later for a player placed alone in its countdown; the placement's own time, without the
    frame's way to the generator)."""
    races = query(
        database_url,
        "SELECT r.id, r.status, r.ends_at, r.winnable, count(x.id) FROM races_race r "
        "JOIN arenas_arenarace ar ON ar.race_id = r.id JOIN arenas_arena a ON a.id = ar.arena_id "
        "JOIN races_racer x ON x.race_id = r.id WHERE a.public_id = %s "
        "GROUP BY r.id, r.status, r.ends_at, r.winnable",
        [arena_id],
    )
    overdue_before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=OVERDUE_S)
    spans = query(
        database_url,
        "SELECT x.player_id, r.starts_at, r.finished_at, x.joined_at FROM races_racer x "
        "JOIN races_race r ON r.id = x.race_id JOIN arenas_arenarace ar ON ar.race_id = r.id "
        "JOIN arenas_arena a ON a.id = ar.arena_id WHERE a.public_id = %s "
        "ORDER BY x.player_id, r.starts_at",
        [arena_id],
    )
    overlapping = set()
    last_end: dict[int, object] = {}
    returns = []  # (player, free from ms, placed at ms)
    for player, starts, ends, joined in spans:
        previous = last_end.get(player, "none")
        if previous != "none" and (previous is None or previous > starts):
            overlapping.add(player)
        if previous not in ("none", None):
            returns.append((player, epoch_ms(previous), epoch_ms(joined)))
        last_end[player] = ends
    returns_ms = [placed - free for _, free, placed in returns]
    # The generator's players never leave a race, nor idle in it while others wait: the arena
    # resigning one of them (`Racer.resigned_for`) would be the servers' presence failing.
    [[by_server]] = query(
        database_url,
        "SELECT count(*) FROM races_racer x JOIN arenas_arenarace ar ON ar.race_id = x.race_id "
        "JOIN arenas_arena a ON a.id = ar.arena_id WHERE a.public_id = %s "
        "AND x.resigned_for <> ''",
        [arena_id],
    )
    return {
        "db_races": len(races),
        "db_sizes": dict(sorted(Counter(n for *_, n in races).items())),
        "db_winnable": sum(1 for *_, winnable, _ in races if winnable),
        "db_not_finished": sum(1 for _, status, *_ in races if status != "finished"),
        "db_overdue": sum(
            1
            for _, status, ends, *_ in races
            if status != "finished" and ends is not None and as_utc(ends) < overdue_before
        ),
        "db_over_eight_or_alone": sum(1 for *_, n in races if not 2 <= n <= 8),
        "db_players_in_two_at_once": len(overlapping),
        "db_return_ms": spread(returns_ms),
        "db_returned_over_5s": sum(1 for ms in returns_ms if ms > 5000),
        "db_returned_over_5s_with_company": len(over_bound_with_company(returns)),
        "db_returns": len(returns_ms),
        "db_resigned_by_server": by_server,
    }


def unanswered_in_record(database_url: str, unanswered: list[dict]) -> list[dict]:
    """Each move the generator let go of unanswered (`Stats.unanswered`), with whether the
    record holds it: stored (`stored`: the game's log has it at its seq, the answer was what
    went missing) or not (refused, or lost with it)."""
    found = []
    for move in unanswered:
        rows = query(
            database_url,
            "SELECT m.move FROM games_move m JOIN races_racer x ON x.game_id = m.game_id "
            "WHERE x.public_id = %s AND m.seq = %s",
            [move["racer"], move["seq"] + 1],
        )
        found.append({**move, "stored": bool(rows) and rows[0][0] == move["move"]})
    return found


def epoch_ms(value: dt.datetime | str) -> float:
    """A timestamp of the record (`as_utc`) in ms since the epoch."""
    return as_utc(value).timestamp() * 1000


def as_utc(value: dt.datetime | str) -> dt.datetime:
    """A timestamp as PostgreSQL gives it (aware) or SQLite (text, in UTC)."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


async def run(args, racer_class, stats, server_pids: list[int] | None = None) -> dict:
    """`scripts/loadtest.py --arena`: the crowd, its figures, the CPU each part of the machine
    used (the servers given by pid, their workers, PostgreSQL, Redis, this client), and the
    record check."""
    load_before = load_average()
    began = time.perf_counter()
    crowd = Crowd(args, racer_class, stats)
    cpu = ServerCpu(server_pids or [])
    first, client_before = cpu.sample(), client_cpu_s()
    at_start: list = []  # a crowd that joins before the start: its CPU counts from the start
    crowd.at_start = lambda: at_start.extend([cpu.sample(), client_cpu_s()])
    lags: list[float] = []
    watch = asyncio.ensure_future(loop_lag(lags))
    players = await crowd.run(args.base_urls)
    watch.cancel()
    last = cpu.sample()
    if at_start:
        first, client_before = at_start
    cores = cores_used(first, last, client_cpu_s() - client_before)
    placements = [ms for p in players for ms in p.placements_ms]
    returns = [ms for p in players for ms in p.returns_ms]
    errors = Counter(p.error.split(":")[0] for p in players if p.error)
    result = {
        "players": len(players),
        "servers": len(args.base_urls),
        "duration_s": round(crowd.played_s, 1),
        "wall_s": round(time.perf_counter() - began, 1),
        "arena": crowd.arena_id,
        "placements": len(placements),
        "placed_frames": crowd.placed_heard,
        "placements_untimed": sum(p.untimed for p in players),
        "placed_again": sum(1 for p in players if len(p.placements_ms) >= 2),
        "placement_ms": spread(placements),
        "placed_over_5s": sum(1 for ms in placements if ms > 5000),
        "placed_over_5s_with_company": len(waited_with_company(players)),
        "placements_by_window": by_window(
            (at, ms) for p in players for at, ms in zip(p.placed_at_s, p.placements_ms, strict=True)
        ),
        "first_parts_ms": {
            part: spread([p.first_parts_ms[i] for p in players if p.first_parts_ms])
            for i, part in enumerate(("socket", "placed"))
        },
        "returns": len(returns),
        "return_ms": spread(returns),
        "returned_over_5s": sum(1 for ms in returns if ms > 5000),
        "end_heard_ms": spread([ms for p in players for ms in p.ended_heard_ms]),
        "snapshot_ms": spread([ms for p in players for ms in p.snapshot_ms]),
        "board_late_ms": spread(late := [ms for p in players for ms in p.board_late_ms]),
        "boards": len(late),
        "boards_late_over_1s": sum(1 for ms in late if ms > 1000),
        "start_board_late_ms": spread([ms for p in players for ms in p.start_board_late_ms]),
        "start_boards": sum(len(p.start_board_late_ms) for p in players),
        "client_lag_ms": spread(lags),
        "moves_sent": stats.sent,
        "moves_acked": stats.acked,
        "moves_refused": dict(stats.refused),
        "moves_unanswered": stats.unanswered[:UNANSWERED_SHOWN],
        "moves_unanswered_count": len(stats.unanswered),
        "move_ms": spread(stats.latencies_ms),
        "moves_by_window": by_window(
            (at - crowd.began, ms)
            for at, ms in zip(stats.acked_at, stats.latencies_ms, strict=True)
        ),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "boards_asked_for": crowd.syncs,
        "arena_sockets_reopened": crowd.reopened,
        "pages_loaded": crowd.pages,
        "sent_back": sum(len(p.races) - len(set(p.races)) for p in players),
        "protocol_errors": dict(stats.errors),
        "load_average_before": load_before[0],
        "load_average_after": load_average()[0],
        "cores_used": cores,
        "event_loops": ServerCpu.event_loops(first, last),
    }
    if args.database_url:
        check = settled_record_check  # the last closes' boards are written after their commits
        result.update(
            await asyncio.to_thread(check, args.database_url, args.redis_url, crowd.arena_id)
        )
        result["moves_unanswered"] = await asyncio.to_thread(
            unanswered_in_record, args.database_url, result["moves_unanswered"]
        )
        to_wall = time.time() - time.perf_counter()  # the acks' clock to the record's
        result["moves_by_closing"] = by_closing(
            ((at + to_wall, ms) for at, ms in zip(stats.acked_at, stats.latencies_ms, strict=True)),
            await asyncio.to_thread(closed_at, args.database_url, crowd.arena_id),
        )
    return result


BOUND_MS = 5000
"""The issue's bound: a free player is placed within 5 s once there is someone to race with."""


def waited_with_company(players: list[ArenaPlayer]) -> list[float]:
    """The placements that waited over `BOUND_MS` while another player was free too
    (`over_bound_with_company`), each wait on this generator's clock, from being free to
    `placed`."""
    return over_bound_with_company(
        (index, at_s * 1000 - ms, at_s * 1000)
        for index, p in enumerate(players)
        for at_s, ms in zip(p.placed_at_s, p.placements_ms, strict=True)
    )


def over_bound_with_company(waits: Iterable[tuple[object, float, float]]) -> list[float]:
    """Of the waits (each: whose, free from ms, placed at ms, on one clock), those over
    `BOUND_MS` while another player was free too: ms from the first moment someone else was free
    beside the player to the placement. The arena places free players as soon as there are two:
    a player free alone (a crowd's last joiner after every race's countdown, everyone else
    racing) waits for a race to end, and the bound counts from then. Another player's wait that
    overlaps the player's is that company."""
    waits = list(waits)
    over = []
    for whose, start, end in waits:
        if end - start <= BOUND_MS:
            continue
        company = [
            max(start, other_start)
            for other, other_start, other_end in waits
            if other != whose and other_start < end and other_end > start
        ]
        if company and end - min(company) > BOUND_MS:
            over.append(end - min(company))
    return over


LAG_EVERY_S = 0.1


async def loop_lag(lags: list[float]) -> None:
    """This generator's own event loop's lateness, every `LAG_EVERY_S` (ms past the sleep's
    end): each figure timed by the crowd includes it, as a frame waits in the socket until
    the loop reads it."""
    while True:
        began = time.perf_counter()
        await asyncio.sleep(LAG_EVERY_S)
        lags.append((time.perf_counter() - began - LAG_EVERY_S) * 1000)


WINDOW_S = 30


def by_window(timed: Iterable[tuple[float, float]]) -> list[dict]:
    """Timings (seconds into play, ms) by `WINDOW_S` of play: how many, their median and p99,
    and how many over 5 s (when in the arena the slow ones came)."""
    windows: dict[int, list[float]] = {}
    for at, ms in timed:
        windows.setdefault(int(at // WINDOW_S), []).append(ms)
    found = []
    for index, times in sorted(windows.items()):
        figures = spread(times)
        found.append(
            {
                "from_s": index * WINDOW_S,
                "count": len(times),
                "median": figures["median"],
                "p99": figures["p99"],
                "over_5s": sum(1 for ms in times if ms > 5000),
            }
        )
    return found


CLOSING = ((0, 0), (1, 2), (3, 5), (6, None))
"""The groups of `by_closing`: how many of the arena's races closed in the second before a move's
acknowledgement (none, one or two, three to five, six or more)."""


def by_closing(acks: Iterable[tuple[float, float]], closed_at: Iterable[float]) -> list[dict]:
    """Moves (when each was acknowledged, as `time.time()`; ms) by how many of the arena's races
    closed (the record's `finished_at`, the same clock) in the second before the acknowledgement,
    in the groups of `CLOSING`: how many, their median and p99. A crowd's races start together
    and last about as long, so they close in waves, each close bringing its racers' placement and
    their next race's snapshot; windows of 30 s hold waves and the play between alike, and this
    says which of the two the slow moves come with."""
    ends = sorted(closed_at)
    groups: dict[int, list[float]] = {i: [] for i in range(len(CLOSING))}
    for at, ms in acks:
        closes = bisect.bisect_right(ends, at) - bisect.bisect_left(ends, at - 1)
        group = next(i for i, (_, most) in enumerate(CLOSING) if most is None or closes <= most)
        groups[group].append(ms)
    found = []
    for i, (least, most) in enumerate(CLOSING):
        figures = spread(groups[i])
        label = str(least) if least == most else f"{least}+" if most is None else f"{least}-{most}"
        found.append(
            {
                "closes": label,
                "count": len(groups[i]),
                "median": figures["median"],
                "p99": figures["p99"],
            }
        )
    return found


def closing_chart(rows: list[dict], width: int = 40) -> list[str]:
    """`by_closing`'s groups, each p99 drawn as a bar as `window_chart` draws a window's (none
    without the record; a group without moves, as a small crowd's six closes in a second, shows
    its figures as "-")."""
    if not rows:
        return []
    widest = max(r["p99"] or 0 for r in rows)
    lines = [
        "moves' round trips by races closed in the second before: closes, count, median / p99 ms"
    ]
    for r in rows:
        drawn = bar(r["p99"], widest, width)
        median, p99 = ("-" if ms is None else ms for ms in (r["median"], r["p99"]))
        lines.append(f"  {r['closes']:>5} {r['count']:>7} {median:>8} / {p99:>8}  {drawn}")
    return lines


def bar(value: float | None, widest: float, width: int) -> str:
    """`value` drawn as `#`s, `width` of them for `widest` (none for no value)."""
    return "#" * round(width * (value or 0) / (widest or 1))


def closed_at(database_url: str, arena_id: str) -> list[float]:
    """When each of the arena's closed races closed (`finished_at`, as `time.time()`)."""
    rows = query(
        database_url,
        "SELECT extract(epoch FROM r.finished_at) FROM races_race r "
        "JOIN arenas_arenarace ar ON ar.race_id = r.id JOIN arenas_arena a ON a.id = ar.arena_id "
        "WHERE a.public_id = %s AND r.finished_at IS NOT NULL",
        [arena_id],
    )
    return [float(at) for (at,) in rows]


def window_chart(what: str, windows: list[dict], width: int = 40) -> list[str]:
    """A timing's p99 a window, drawn as a bar (each `#` a fortieth of the widest), with the
    count over 5 s."""
    if not windows:
        return []
    widest = max(w["p99"] or 0 for w in windows)
    lines = [f"{what} by {WINDOW_S} s of play: from s, count, median / p99 ms, over 5 s"]
    for w in windows:
        drawn = bar(w["p99"], widest, width)
        over = f"  {w['over_5s']} over 5 s" if w["over_5s"] else ""
        lines.append(
            f"  {w['from_s']:>5} {w['count']:>6} {w['median']:>8} / {w['p99']:>8}  {drawn}{over}"
        )
    return lines


def ok(result: dict) -> bool:
    """Whether the run holds what the arena promises: no error, nobody sent back to a race they
    were in, every placement with company within `BOUND_MS` (as the generator timed it and, given
    the database, as the record has it), and the record check."""
    record_ok = not (
        result.get("db_players_in_two_at_once")
        or result.get("db_over_eight_or_alone")
        or result.get("db_returned_over_5s_with_company")
        or result.get("board_points_differ")
        or result.get("board_order_differ")
        or result.get("board_missing_from_redis")
        or result.get("db_overdue")
        or result.get("db_resigned_by_server")
    )
    return (
        record_ok
        and result["errors"] == 0
        and result["placements"] > 0
        and result["placed_over_5s_with_company"] == 0
        and result["sent_back"] == 0
    )


def by_kind(total: int, kinds: dict) -> str:
    """A count as the figures print it: the total, then by kind if there are any."""
    return f"{total} {kinds}" if kinds else str(total)


def unanswered_text(move: dict) -> str:
    """One move let go of unanswered, as the figures print it."""
    stored = {True: "stored", False: "not in the record"}.get(move.get("stored"), "record unread")
    heard = "after the race's end was heard" if move["race_over_heard"] else "the race still on"
    return (
        f"  unanswered: race {move['race']}, racer {move['racer']}, seq {move['seq']} "
        f"{move['move']}, waited {move['waited_s']:g} s, {heard}; {stored}"
    )


def print_figures(result: dict) -> None:
    placed, moves = result["placement_ms"], result["move_ms"]
    back, heard = result["return_ms"], result["end_heard_ms"]
    snap, late = result["snapshot_ms"], result["board_late_ms"]
    start = result["start_board_late_ms"]
    lag = result["client_lag_ms"]
    lines = [
        f"arena {result['arena']}: {result['players']} players on {result['servers']} server(s) "
        f"for {result['duration_s']:g} s (wall {result['wall_s']} s); load average before "
        f"{result['load_average_before']:.2f}, after {result['load_average_after']:.2f}",
        f"placements {result['placements']}: free to placed ms median {placed['median']}, "
        f"p95 {placed['p95']}, p99 {placed['p99']}, max {placed['max']}; over 5 s "
        f"{result['placed_over_5s']}, with another player free for over 5 s of it "
        f"{result['placed_over_5s_with_company']} (of {result['placed_frames']} heard; untimed, "
        f"the race over when its socket opened, {result['placements_untimed']})",
        "first placements, in parts (ms, median / p99 / max): "
        + "; ".join(
            f"{part} {f['median']} / {f['p99']} / {f['max']}"
            for part, f in result["first_parts_ms"].items()
        ),
        f"returns {result['returns']}: race's end to placed ms median {back['median']}, p95 "
        f"{back['p95']}, p99 {back['p99']}, max {back['max']}; over 5 s "
        f"{result['returned_over_5s']}; race's end to its `finished` heard ms median "
        f"{heard['median']}, p95 {heard['p95']}, p99 {heard['p99']}, max {heard['max']}",
        f"race sockets: opened to snapshot ms median {snap['median']}, p95 {snap['p95']}, p99 "
        f"{snap['p99']}; first board after the start ms median {late['median']}, p95 "
        f"{late['p95']}, p99 {late['p99']}, max {late['max']}; over 1 s "
        f"{result['boards_late_over_1s']} of {result['boards']}; of them, sockets opened in the "
        f"countdown ({result['start_boards']}): median {start['median']}, p95 {start['p95']}, "
        f"p99 {start['p99']}, max {start['max']}",
        f"moves sent {result['moves_sent']}, acknowledged {result['moves_acked']}, refused "
        f"{by_kind(sum(result['moves_refused'].values()), result['moves_refused'])}, let go of "
        f"unanswered {result['moves_unanswered_count']}; round trip ms median {moves['median']}, "
        f"p95 {moves['p95']}, p99 {moves['p99']}, max {moves['max']}",
        *(unanswered_text(move) for move in result["moves_unanswered"]),
        f"errors {by_kind(result['errors'], result['error_kinds'])}; protocol errors "
        f"{result['protocol_errors'] or 'none'}; boards asked for after a silence "
        f"{result['boards_asked_for']}, arena sockets reopened "
        f"{result['arena_sockets_reopened']}; pages loaded between races {result['pages_loaded']}"
        f"; placements in a race the player had been in {result['sent_back']}",
        f"the generator's own event loop late (every {LAG_EVERY_S:g} s) ms median "
        f"{lag['median']}, p95 {lag['p95']}, p99 {lag['p99']}, max {lag['max']}",
    ]
    lines += window_chart("placements", result["placements_by_window"])
    lines += window_chart("moves' round trips", result["moves_by_window"])
    lines += closing_chart(result.get("moves_by_closing", []))
    lines.append(
        f"CPU in cores (CPU seconds a second) over the run: {cores_text(result['cores_used'])}"
    )
    lines.append(ServerCpu.event_loops_text(result["event_loops"]))
    if "db_races" in result:
        lines.append(
            f"record check: {result['db_races']} races ({result['db_winnable']} on a winnable "
            f"deal), sizes {result['db_sizes']}, not "
            f"finished {result['db_not_finished']} (of them over {OVERDUE_S} s past their time "
            f"limit {result['db_overdue']}), outside 2-8 "
            f"{result['db_over_eight_or_alone']}, players in two at once "
            f"{result['db_players_in_two_at_once']}, resigned by the server (left or idle) "
            f"{result['db_resigned_by_server']}; the board in Redis: players "
            f"{result['board_players']}, the record's missing from it "
            f"{result['board_missing_from_redis']}, points differing from the record "
            f"{result['board_points_differ']}, places out of the record's order "
            f"{result['board_order_differ']} (settled after {result['record_settled_s']} s)"
        )
        back = result["db_return_ms"]
        lines.append(
            f"the record's returns {result['db_returns']}: a race's end (`finished_at`) to its "
            f"racer's next placement (`joined_at`) ms median {back['median']}, p95 {back['p95']}, "
            f"p99 {back['p99']}, max {back['max']}; over 5 s {result['db_returned_over_5s']}, "
            f"with another player free for over 5 s of it "
            f"{result['db_returned_over_5s_with_company']}"
        )
    print("\n".join(lines))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--arena",
        action="store_true",
        help="instead: --racers players in one arena for --duration s (scripts/arena_crowd.py)",
    )
    parser.add_argument(
        "--race-s", type=float, default=8.0, help="--arena: seconds each race is played"
    )
    parser.add_argument(
        "--race-spread",
        type=float,
        default=0.0,
        help="--arena: each race is played --race-s times 1 ± up to this fraction (0: all alike)",
    )
    parser.add_argument(
        "--sockets-only",
        action="store_true",
        help="--arena: load no race's page (each race's socket alone)",
    )
    parser.add_argument(
        "--join-before",
        type=float,
        default=0,
        metavar="S",
        help="--arena: set the arena to start at the first whole minute at least S s ahead and "
        "join the crowd meanwhile, as a scheduled arena's players can; play, placements and CPU "
        "count from the start (default 0: it starts as it is set up, everyone joins after)",
    )
    parser.add_argument(
        "--whole-arena",
        action="store_true",
        help=f"--arena: play until the arena ends ({ARENA_MINUTES} minutes after it was set up, "
        "as its JSON document says) instead of for --duration",
    )


if __name__ == "__main__" and sys.argv[1:2] == [BOARD_CHECK]:  # `settled_board_check`'s process
    import django

    django.setup()
    print(json.dumps(board_settled(sys.argv[2], float(sys.argv[3]))))
