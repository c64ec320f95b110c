"""Load generator: N simulated racers in M races against a running server on 127.0.0.1.

Each racer is a guest browser: it gets its session and CSRF cookie from the pages, the hosts
create their races with the "new race" form, the others join with the race page's form, then
everyone opens /ws/race/<code>/ like the page does. The hosts start; each racer plays a random
move from the `legal` list of its own board (the player view: it never sees a hidden card) at a
set pace, one move in flight at a time, and resigns when time is up. A racer whose socket drops
reconnects (to the next server given) and resolves its move in flight with the protocol's `seq`.

It prints moves sent and acknowledged, errors, the move round trip (median, p95, p99) and the
throughput, and, given the database (--database-url, the same settings as the server), checks
that every racer's stored move log is exactly the moves it had acknowledged: nothing lost,
nothing twice. It also reports the server's CPU per move over the play window (the Daphnes, every
`postgres` and `redis-server` process, from /proc) and the load average before the run, so that
a figure is never quoted without what else was running. `--json` ends the output with one line
holding the figures.

    python scripts/loadtest.py http://127.0.0.1:8001 http://127.0.0.1:8002 \\
        --racers 200 --races 25 --pace 1 --duration 30 \\
        --database-url postgres://postgres@127.0.0.1:5432/solitaire_load --json

or let it start the servers itself: `--spawn 2 --database-url ... --redis-url ...`. `--quick` is
a crowd pressing Quick race (scripts/quick_crowd.py), `--arena` a crowd in one arena
(scripts/arena_crowd.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import websockets
from tqdm import tqdm

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import VARIANTS
from games.percentiles import percentile
from scripts import arena_crowd, quick_crowd
from scripts.client import Browser, query
from scripts.procstat import (
    ServerCpu,
    client_cpu_s,
    cores_text,
    cores_used,
    listening_pids,
    load_average,
)
from scripts.servers import (
    check_local,
    create_database,
    manage,
    migrate,
    server_env,
    start_daphnes,
)

MAX_RACERS_PER_RACE = 8
TIME_LIMIT_CHOICES = (60, 180, 300, 600, 900, 1800, 3600)
ACK_TIMEOUT_S = 15.0
BOARD_TIMEOUT_S = 15.0
"""How long after the start a racer waits for its board before asking with `sync`."""
NUMBERED_PROGRESS = '{"type":"progress","event":'
"""How a numbered `progress` event begins (a resignation's or a win's; the live ticks are not
numbered)."""
DONE_STATUSES = ("won", "resigned", "out_of_time")
"""A racer object's statuses of a racer who will make no more moves (docs/protocol.md)."""
MAX_RACERS = 5000
MAX_DURATION_S = 900
RUN = f"{random.SystemRandom().getrandbits(24):06x}"
NAMED = itertools.count()


def racer_name(kind: str = "Load") -> str:
    """A name to race under that no other racer of this process has (numbered over every run
    it makes: a fault drill makes several) nor one of an earlier process (its mark, `RUN`): a
    chosen nickname is one player's, and a database kept from an earlier run holds that run's."""
    return f"{kind}{next(NAMED):04d} {RUN}"


# ------------------------------------------------------------------ a guest's browser (HTTP)


def create_race(browser: Browser, variant: str, time_limit_s: int, name: str) -> str:
    """The host's "new race" form; the new race's code."""
    status, _, _ = browser.request("GET", "/races/new/")
    if status != 200:
        raise RuntimeError(f"GET /races/new/ answered {status}")
    form = {
        "variant": variant,
        "deal": "random",
        "seed": "",
        "max_players": str(MAX_RACERS_PER_RACE),
        "time_limit": str(time_limit_s),
        "visibility": "link",
        "name": name,
    }
    status, headers, _ = browser.request("POST", "/races/new/", form)
    match = re.fullmatch(r"/races/([A-Z0-9]+)/", headers.get("Location", ""))
    if status != 302 or match is None:
        raise RuntimeError(f"creating a race answered {status} {headers.get('Location')}")
    return match.group(1)


def join_race(browser: Browser, code: str, name: str) -> None:
    """The race page, then its join form."""
    status, _, _ = browser.request("GET", f"/races/{code}/")
    if status != 200:
        raise RuntimeError(f"GET /races/{code}/ answered {status}")
    status, headers, _ = browser.request("POST", f"/races/{code}/join/", {"name": name})
    if status != 302:
        raise RuntimeError(f"joining {code} answered {status}")


# ------------------------------------------------------------------ figures


@dataclass
class Stats:
    sent: int = 0
    acked: int = 0
    resolved_on_resync: int = 0
    errors: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)
    """When each of `latencies_ms` was read (`time.perf_counter()`), in the same order."""
    frames: int = 0
    reconnects: int = 0
    connect_retries: int = 0
    late_acks: int = 0
    unavailable_retries: int = 0
    first_move_at: float | None = None
    last_ack_at: float | None = None
    refused: Counter = field(default_factory=Counter)
    """Moves the server answered with an error that settles them (`race_over`...), by code."""
    unanswered: list[dict] = field(default_factory=list)
    """Each move a racer still had in flight when it left its race's socket (`Racer.let_go`)."""

    def error(self, code: str) -> None:
        self.errors[code] += 1


# ------------------------------------------------------------------ one racer


@dataclass
class Pending:
    move: str
    seq: int
    sent_at: float
    """The first send: a move acknowledged after retries counts its round trip from here."""
    last_sent_at: float = 0.0

    def __post_init__(self) -> None:
        self.last_sent_at = self.last_sent_at or self.sent_at


class Racer:
    """One simulated player: a browser session, a race socket, its own board, its move log."""

    def __init__(self, index: int, bases: list[str], stats: Stats, args, bar) -> None:
        self.index = index
        self.bases = bases
        # Spread over the servers: each race's racers in turn (racer `index` is number
        # `index // races` of race `index % races`), or race by race (all of a race's racers on one
        # server, as a proxy that routes /ws/race/<code>/ by the code would).
        races = getattr(args, "races", 1) or 1
        race, place = index % races, index // races
        slot = race if getattr(args, "race_affinity", False) else place
        self.base = bases[slot % len(bases)]
        self.browser = Browser(self.base)
        self.name = racer_name()
        self.stats = stats
        self.args = args
        self.bar = bar
        self.rng = random.Random(args.rng_seed * 100_003 + index)
        self.code: str | None = None
        self.host = False
        self.racer_id: str | None = None
        self.log: list[str] = []  # every acknowledged move, in order (the expected record)
        self.board: dict | None = None
        self.pending: Pending | None = None
        self.late: Pending | None = None  # a move whose ack timed out
        self.settled = asyncio.Event()
        self.board_ready = asyncio.Event()
        self.snapshot_seen = asyncio.Event()
        self.finished = asyncio.Event()
        self.done = asyncio.Event()
        """The server said this racer is done (won, resigned, out of time) or the race is over:
        what a race page waits for before it asks for its next race of an arena (js/race.js)."""
        self.ws = None
        self.reader: asyncio.Task | None = None
        self.closing = False
        self.retire = asyncio.Event()  # set it to make the racer resign after its move in flight
        self.frames = 0  # frames this racer received
        self.progress_events = 0
        self.event: int | None = None  # the newest numbered race event heard (a page's model.event)
        self.ends_at_ms: int | None = None  # the race's end by its clock (epoch ms), if it has one
        self.over = False  # the server said the race is over: a page sends no more moves
        self.reopened = False  # a socket opened since the last board
        self.handed_over = False
        """The server went on to the next race on this socket (an arena's, after `placed`): this
        racer reads no frame after that one, and leaves the socket open (the next racer's)."""

    # -- the socket

    def ws_url(self) -> str:
        return self.base.replace("http://", "ws://", 1) + f"/ws/race/{self.code}/"

    async def connect(self) -> None:
        self.ws = await websockets.connect(
            self.ws_url(),
            origin=self.base,
            additional_headers={"Cookie": self.browser.cookie_header()},
            compression=None,
            open_timeout=60,
            ping_interval=None,
            max_size=2**20,
            max_queue=None,
        )
        self.reopened = True
        self.read_from_now()

    def take_over(self, before: Racer) -> None:
        """The socket `before` raced on, now this race's (the server went on to it after
        `placed`, before.handed_over): read from where `before` stopped."""
        before.let_go()
        self.ws, self.base = before.ws, before.base
        self.read_from_now()

    def let_go(self) -> None:
        """The racer leaves its race's socket (closed, or gone on to the next race): a move
        still in flight will not be answered to it. Noted with its race, racer, seq and how long
        it waited (`Stats.unanswered`), so that a run's record can say whether it was stored."""
        pending, self.pending = self.pending, None
        if pending is not None:
            self.stats.unanswered.append(
                {
                    "race": self.code,
                    "racer": self.racer_id,
                    "seq": pending.seq,
                    "move": pending.move,
                    "waited_s": round(time.perf_counter() - pending.sent_at, 3),
                    "race_over_heard": self.finished.is_set() or self.over,
                }
            )

    async def reconnect(self) -> None:
        """The socket is gone: try the servers in turn (the browser's retry), then resolve."""
        self.stats.reconnects += 1
        for attempt in range(40):
            self.base = self.bases[(self.bases.index(self.base) + 1) % len(self.bases)]
            try:
                await self.connect()
                return
            except (TimeoutError, OSError, websockets.InvalidHandshake):
                await asyncio.sleep(min(2.0, 0.1 * (attempt + 1)))
        raise RuntimeError(f"{self.name} could not reconnect")

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame, separators=(",", ":")))

    def read_from_now(self) -> None:
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        try:
            async for text in self.ws:
                self.on_text(text)
                if self.handed_over:
                    return  # what follows is the next race's (`take_over`)
        except websockets.ConnectionClosed:
            pass
        if not self.closing:
            self.stats.error("disconnected")
            asyncio.get_running_loop().create_task(self.recover())

    async def recover(self) -> None:
        try:
            await self.reconnect()
        except RuntimeError:
            self.stats.error("reconnect_failed")
            self.finished.set()
            self.settled.set()

    def on_text(self, text: str) -> None:
        self.stats.frames += 1
        self.frames += 1
        # Progress and other race events are the bulk: only the few that matter are parsed.
        if text.startswith('{"type":"progress"'):
            self.progress_events += 1
            if text.startswith(NUMBERED_PROGRESS):  # a resignation's or a win's: numbered
                self.heard_event(int(text[len(NUMBERED_PROGRESS) :].partition(",")[0]))
                if self.racer_id is not None and self.racer_id in text:
                    self.took_in_racers(json.loads(text)["racers"])
            return
        if text.startswith('{"type":"pong"'):
            return
        self.on_frame(json.loads(text))

    def heard_event(self, number: int) -> None:
        self.event = number if self.event is None else max(self.event, number)

    def took_in_racers(self, racers: list[dict]) -> None:
        """Racer objects of a numbered event: this racer's own says whether it is done."""
        for racer in racers:
            if racer.get("id") == self.racer_id and racer.get("status") in DONE_STATUSES:
                self.done.set()

    def sync_frame(self) -> dict:
        """What a page sends to catch up: `sync` with the newest event it holds (race.js), a
        snapshot only when it holds none."""
        if self.event is None:
            return {"type": "sync"}
        return {"type": "sync", "since": self.event}

    def on_frame(self, frame: dict) -> None:
        kind = frame.get("type")
        if isinstance(frame.get("event"), int):  # a snapshot's, or a numbered event's
            self.heard_event(frame["event"])
        if kind == "snapshot":
            self.racer_id = frame["you"]["racer"]
            self.ends_at_ms = frame["race"].get("ends_at")
            self.snapshot_seen.set()
            self.took_in_racers(frame.get("racers") or [])
            if frame["race"].get("status") == "finished":
                self.done.set()
        elif kind == "ack":
            self.on_ack(frame)
        elif kind == "state":
            self.on_state(frame)
        elif kind == "error":
            about_move = frame.get("ref") in ("move", "undo") and self.pending is not None
            if about_move and frame.get("code") == "unavailable":
                self.retry_later(self.pending, frame.get("retry_ms", 1000))
                return
            self.stats.error(frame.get("code", "?"))
            self.over = self.over or frame.get("code") == "race_over"
            if frame.get("ref") == "resign":  # over, or done already: nothing to wait for
                self.done.set()
            # A refused move settles it; a stale seq does not (the board follows).
            if about_move and frame.get("code") != "stale_seq":
                self.stats.refused[frame.get("code", "?")] += 1
                self.pending = None
                self.settled.set()
        elif kind in ("finished", "cancelled"):
            self.finished.set()
            self.settled.set()
            self.done.set()

    def on_ack(self, frame: dict) -> None:
        pending = self.pending
        self.board = frame
        if pending is None and self.late is not None:
            pending, self.late = self.late, None  # the answer to a move given up on
            self.stats.late_acks += 1
        if pending is None or frame["seq"] != pending.seq + 1 or frame["played"] != [pending.move]:
            self.stats.error("unexpected_ack")
            return
        now = time.perf_counter()
        self.stats.latencies_ms.append((now - pending.sent_at) * 1000)
        self.stats.acked_at.append(now)
        self.stats.acked += 1
        self.stats.last_ack_at = now
        self.log.append(pending.move)
        self.pending = None
        self.bar.update(1)
        self.settled.set()

    def on_state(self, frame: dict) -> None:
        """The board on (re)connect, or the answer to a resend: settles a move in flight. Only
        the first board after a reconnect says a move in flight at its `seq` was lost: any
        other may have been read before the move came in (a `sync`'s, the start's), and a
        resend on it is answered as a resend, whose board then looked like the next move's
        loss (a resend of every move after it, in the arena runs until the race ended)."""
        self.board = frame
        self.board_ready.set()
        pending, reopened, self.reopened = self.pending, self.reopened, False
        if pending is None:
            return
        if frame["seq"] == pending.seq + 1:
            # It had been applied before the answer was lost (we are this game's only writer).
            self.log.append(pending.move)
            self.stats.resolved_on_resync += 1
            self.stats.acked += 1
            self.bar.update(1)
            self.pending = None
            self.settled.set()
        elif frame["seq"] == pending.seq and reopened:
            asyncio.get_running_loop().create_task(self.resend(pending))

    async def resend(self, pending: Pending) -> None:
        pending.last_sent_at = time.perf_counter()
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.send({"type": self.kind_of(pending.move), **self.fields(pending)})

    def retry_later(self, pending: Pending, retry_ms: int) -> None:
        """The server could not make the move durable and applied nothing (`unavailable`):
        send the same move with the same seq after the wait it asks for, as the page does. Not
        an error: it is one if the move is never acknowledged."""
        self.stats.unavailable_retries += 1
        pending.last_sent_at = time.perf_counter()  # the server answered: the wait starts again

        async def later() -> None:
            await asyncio.sleep(max(0, retry_ms) / 1000)
            if self.pending is pending:  # not settled meanwhile (a resync after a reconnect)
                await self.resend(pending)

        asyncio.get_running_loop().create_task(later())

    @staticmethod
    def kind_of(move: str) -> str:
        return "undo" if move == "undo" else "move"

    @staticmethod
    def fields(pending: Pending) -> dict:
        if pending.move == "undo":
            return {"seq": pending.seq}
        return {"move": pending.move, "seq": pending.seq}

    # -- playing

    def choose(self) -> str | None:
        board = self.board
        if board is None or board["status"] not in ("playing", "stuck"):
            return None
        if board["legal"]:
            return self.rng.choice(board["legal"])
        return "undo" if board.get("can_undo") else None

    async def play(self, until: float) -> None:
        """One move per period until `until`, starting at a random phase of the period."""
        period = 1.0 / self.args.pace
        await asyncio.sleep(self.rng.random() * period)
        next_at = time.perf_counter()
        while time.perf_counter() < until and not (
            self.finished.is_set() or self.retire.is_set() or self.out_of_time()
        ):
            move = self.choose()
            if move is None:
                break
            self.pending = Pending(move, self.board["seq"], time.perf_counter())
            self.settled.clear()
            self.stats.sent += 1
            if self.stats.first_move_at is None:
                self.stats.first_move_at = self.pending.sent_at
            # On a closed socket the reader reconnects and resolves the move in flight.
            with contextlib.suppress(websockets.ConnectionClosed):
                await self.send({"type": self.kind_of(move), **self.fields(self.pending)})
            if not await self.wait_settled():
                # Given up on (an error), but still in flight: a late ack is still recorded.
                self.stats.error("ack_timeout")
                self.late, self.pending = self.pending, None
                break
            next_at += period
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -period:
                next_at = time.perf_counter()  # far behind: do not burst to catch up
        if self.retire.is_set():
            await self.resign()

    def out_of_time(self) -> bool:
        """Past the race's end by its clock (the snapshot's `ends_at`), or told so: a race page
        takes no move then (race.js), so neither does the racer."""
        return self.over or (self.ends_at_ms is not None and time.time() * 1000 >= self.ends_at_ms)

    async def wait_settled(self) -> bool:
        """Wait for the move in flight to settle; False after ACK_TIMEOUT_S without an answer
        (an `unavailable` answer and its resend start the wait again)."""
        while True:
            pending = self.pending
            waited = 0.0 if pending is None else time.perf_counter() - pending.last_sent_at
            try:
                await asyncio.wait_for(self.settled.wait(), max(0.0, ACK_TIMEOUT_S - waited))
                return True
            except TimeoutError:
                if pending is None or time.perf_counter() - pending.last_sent_at >= ACK_TIMEOUT_S:
                    return False

    async def resign(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.send({"type": "resign"})

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None and not self.handed_over:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        self.let_go()  # what the reader took in before the close is counted


# ------------------------------------------------------------------ the run


async def in_threads(items, fn, limit: int, desc: str, quiet: bool = False) -> None:
    """fn(item) for every item in a few threads (blocking HTTP), with a progress bar."""
    gate = asyncio.Semaphore(limit)
    bar = tqdm(total=len(items), desc=desc, unit="req", leave=False, file=sys.stderr, disable=quiet)

    async def one(item):
        async with gate:
            await asyncio.to_thread(fn, item)
            bar.update(1)

    try:
        await asyncio.gather(*(one(item) for item in items))
    finally:
        bar.close()


class LoadRun:
    """One run in steps (set up, start, play, finish, figures), so that a fault drill can act
    between them; `run` does them all.

    `server_pids` are the Daphnes' processes, for the server CPU per move (else the processes
    listening on the servers' ports, when they can be found); `load_before` the load average
    before the run (read now if not given)."""

    def __init__(
        self,
        args,
        server_pids: list[int] | None = None,
        load_before: tuple[float, float, float] | None = None,
    ) -> None:
        self.args = args
        self.load_before = load_before or load_average()
        self.stats = Stats()
        self.bases = [check_local(url) for url in args.base_urls]
        self.races = min(args.races, args.racers)
        if math.ceil(args.racers / self.races) > MAX_RACERS_PER_RACE:
            raise SystemExit(
                f"{args.racers} racers need {math.ceil(args.racers / 8)} races or more"
            )
        expected = int(args.racers * args.pace * args.duration)
        self.bar = tqdm(
            total=expected, desc="moves acked", unit="mv", file=sys.stderr, disable=args.quiet
        )
        self.racers = [Racer(i, self.bases, self.stats, args, self.bar) for i in range(args.racers)]
        self.groups = [self.racers[r :: self.races] for r in range(self.races)]
        self.setup_s = self.played_s = 0.0
        self.started = time.perf_counter()
        self.unknown_servers: list[str] = []
        if not server_pids:
            server_pids = []
            ports = {urlsplit(base).port or 80: base for base in self.bases}
            for port, pid in listening_pids(list(ports)).items():
                if pid is None:
                    self.unknown_servers.append(ports[port])
                else:
                    server_pids.append(pid)
        self.cpu = ServerCpu(server_pids)
        self.idle = self.cpu.sample()  # before the run: the Daphnes' RSS with no racer on them
        self.window: tuple | None = None  # the samples at the play window's start and end
        self.client_play_s = 0.0  # this client's CPU seconds over the play window

    async def setup(self) -> None:
        """Create the races (hosts), join them (guests), open every racer's socket."""
        args, racers, stats = self.args, self.racers, self.stats
        time_limit = next(t for t in TIME_LIMIT_CHOICES if t >= args.duration + 60)
        began = time.perf_counter()

        def make_race(group: list[Racer]) -> None:
            host = group[0]
            host.host = True
            variant = args.variant or VARIANTS[racers.index(host) % len(VARIANTS)]
            host.code = create_race(host.browser, variant, time_limit, host.name)
            for racer in group[1:]:
                racer.code = host.code

        def join(racer: Racer) -> None:
            join_race(racer.browser, racer.code, racer.name)

        await in_threads(
            self.groups, make_race, args.http_concurrency, "creating races", args.quiet
        )
        guests = [r for group in self.groups for r in group[1:]]
        await in_threads(guests, join, args.http_concurrency, "joining races", args.quiet)

        gate = asyncio.Semaphore(args.connect_concurrency)
        connect_bar = tqdm(
            total=len(racers), desc="connecting", leave=False, file=sys.stderr, disable=args.quiet
        )

        async def open_socket(racer: Racer) -> None:
            async with gate:
                for attempt in range(5):
                    try:
                        await racer.connect()
                        break
                    except (TimeoutError, OSError, websockets.InvalidHandshake):
                        # A handshake refused under load: the page's script retries, so do we.
                        stats.connect_retries += 1
                        await asyncio.sleep(0.5 * (attempt + 1))
                else:
                    await racer.connect()
                await asyncio.wait_for(racer.snapshot_seen.wait(), 60)
                connect_bar.update(1)

        await asyncio.gather(*(open_socket(r) for r in racers))
        connect_bar.close()
        self.setup_s = time.perf_counter() - began

    async def start(self) -> None:
        """The hosts start; every racer waits for its board (after the countdown)."""
        for group in self.groups:
            await group[0].send({"type": "start"})
        boards = asyncio.gather(*(r.board_ready.wait() for r in self.racers))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(boards), BOARD_TIMEOUT_S)
        for racer in [r for r in self.racers if not r.board_ready.is_set()]:
            # The board should come by itself after the countdown; ask for it, as a reloaded
            # page would, and count the miss as an error.
            self.stats.error("no_board_after_countdown")
            await racer.send(racer.sync_frame())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(boards, 60)
        for _ in [r for r in self.racers if not r.board_ready.is_set()]:
            self.stats.error("no_board")

    async def play(self) -> None:
        """Everyone plays at the pace for the duration; the server's processes are sampled at
        the window's start and end."""
        first, acked_before = self.cpu.sample(), self.stats.acked
        client_before = client_cpu_s()
        self.started = time.perf_counter()
        until = self.started + self.args.duration
        self.bar.reset()
        profiler = self.start_profiler()
        await asyncio.gather(*(r.play(until) for r in self.racers))
        if profiler is not None:
            await asyncio.to_thread(profiler.wait)
        self.played_s = time.perf_counter() - self.started
        self.window = (first, self.cpu.sample(), self.stats.acked - acked_before)
        self.client_play_s = client_cpu_s() - client_before
        self.bar.close()

    def start_profiler(self) -> subprocess.Popen | None:
        """`--profile`: py-spy samples the first server over the play window (its last second
        left out, when racers stop)."""
        if not getattr(self.args, "profile", None):  # the fault drills' runs have no such option
            return None
        if not self.cpu.daphne_pids:
            raise SystemExit("--profile needs a server's pid (--spawn, or a local listener)")
        py_spy = Path(sys.executable).with_name("py-spy")
        seconds = max(1, int(self.args.duration) - 1)
        output = self.args.profile
        kind = "flamegraph" if output.endswith(".svg") else "raw"
        command = [str(py_spy), "record", "--pid", str(self.cpu.daphne_pids[0]), "--duration"]
        command += [str(seconds), "--rate", "200", "--nonblocking", "--format", kind]
        if getattr(self.args, "profile_gil", False):
            command.append("--gil")  # a shared machine: leave out the waits in system calls
        return subprocess.Popen([*command, "--output", output], stdout=subprocess.DEVNULL)

    async def finish(self, wait: float = 30.0) -> None:
        """Everyone resigns (so every race ends, unless someone else is in it) and closes."""
        for racer in self.racers:
            if not racer.retire.is_set():  # a retired racer has resigned already
                await racer.resign()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(r.finished.wait() for r in self.racers)), wait)
        for racer in self.racers:
            await racer.close()

    async def figures(self) -> dict:
        args, stats = self.args, self.stats
        window = (stats.last_ack_at or self.started) - (stats.first_move_at or self.started)
        latencies = stats.latencies_ms
        figures = {
            "racers": args.racers,
            "races": self.races,
            "servers": len(self.bases),
            "pace_per_racer": args.pace,
            "duration_s": args.duration,
            "setup_s": round(self.setup_s, 1),
            "played_s": round(self.played_s, 2),
            "moves_sent": stats.sent,
            "moves_acked": stats.acked,
            "resolved_on_resync": stats.resolved_on_resync,
            "errors": sum(stats.errors.values()),
            "error_codes": dict(stats.errors),
            "reconnects": stats.reconnects,
            "late_acks": stats.late_acks,
            "unavailable_retries": stats.unavailable_retries,
            "connect_retries": stats.connect_retries,
            "frames_received": stats.frames,
            "latency_ms": {
                "median": rounded(statistics.median(latencies) if latencies else None),
                "p95": rounded(percentile(latencies, 95)),
                "p99": rounded(percentile(latencies, 99)),
                "max": rounded(max(latencies, default=None)),
            },
            "throughput_moves_per_s": round(stats.acked / window, 1) if window > 0 else 0.0,
            "client_cpu_s": round(client_cpu_s(), 1),
            "load_average_before": self.load_before[0],
            **self.server_figures(),
        }
        if args.database_url:
            figures.update(await asyncio.to_thread(verify, self.racers, args.database_url))
        return figures

    def server_figures(self) -> dict:
        """The server's CPU per move over the play window, and the Daphnes' RSS."""
        figures: dict = {"daphne_pids": self.cpu.daphne_pids}
        if self.unknown_servers:
            figures["daphne_pids_unknown_for"] = self.unknown_servers
        if self.window is not None:
            start, end, moves = self.window
            cpu = ServerCpu.per_move(start, end, moves)
            if self.unknown_servers:
                cpu["daphne"] = cpu["total"] = None  # part of the server is missing
            figures["server_cpu_ms_per_move"] = cpu
            figures["server_cpu_window_s"] = round(end.at - start.at, 2)
            figures["event_loops"] = ServerCpu.event_loops(start, end)
            figures["cores_used"] = cores_used(start, end, self.client_play_s)
            figures["daphne_rss_mb"] = {
                "before": rss_mb(self.idle.rss_kb.values()),
                "after": rss_mb(end.rss_kb.values()),
                "per_process": [
                    {
                        "pid": pid,
                        "before": rss_mb([self.idle.rss_kb.get(pid)]),
                        "after": rss_mb([end.rss_kb.get(pid)]),
                    }
                    for pid in self.cpu.daphne_pids
                ],
            }
        return figures


def rss_mb(values) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / 1024, 1) if known else None


async def run(args, **options) -> dict:
    load = LoadRun(args, **options)
    await load.setup()
    await load.start()
    await load.play()
    await load.finish()
    return await load.figures()


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


# ------------------------------------------------------------------ the check against the record


def stored_logs(database_url: str, racer_ids: list[str]) -> dict[str, list[str]]:
    """Each racer's game's move log, in order (racers without a game are left out)."""
    marks = ", ".join(["%s"] * len(racer_ids))
    rows = query(
        database_url,
        "SELECT r.public_id, m.move FROM races_racer r "
        "JOIN games_game g ON g.id = r.game_id "
        "LEFT JOIN games_move m ON m.game_id = g.id "
        f"WHERE r.public_id IN ({marks}) ORDER BY r.public_id, m.seq",
        racer_ids,
    )
    logs: dict[str, list[str]] = {}
    for racer_id, move in rows:
        logs.setdefault(racer_id, [])
        if move is not None:
            logs[racer_id].append(move)
    return logs


def verify(racers: list[Racer], database_url: str) -> dict:
    """Compare every racer's stored move log with the moves it saw acknowledged."""
    logs = stored_logs(database_url, [r.racer_id for r in racers if r.racer_id])
    lost = extra = mismatched = unverified = 0
    for racer in racers:
        stored = logs.get(racer.racer_id)
        if stored is None:
            unverified += 1
            continue
        expected = [m.removesuffix(":1") for m in racer.log]
        common = 0
        while common < min(len(stored), len(expected)) and stored[common] == expected[common]:
            common += 1
        lost += len(expected) - common
        extra += len(stored) - common
        mismatched += stored != expected
    return {
        "verified_racers": len(racers) - unverified,
        "unverified_racers": unverified,
        "mismatched_racers": mismatched,
        "lost_moves": lost,
        "duplicate_or_unexpected_moves": extra,
    }


# ------------------------------------------------------------------ command line


def parse_args(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "base_urls", nargs="*", default=[], help="servers to spread racers over (127.0.0.1 only)"
    )
    parser.add_argument("--racers", type=int, default=16)
    parser.add_argument("--races", type=int, default=2)
    parser.add_argument("--pace", type=float, default=1.0, help="moves per second per racer")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of play")
    parser.add_argument("--variant", choices=VARIANTS, help="one variant for all (default: mix)")
    parser.add_argument("--database-url", default="", help="check the move logs in this database")
    parser.add_argument("--spawn", type=int, default=0, help="start this many Daphnes first")
    parser.add_argument(
        "--redis-url",
        default="",
        help="the servers' Redis: for --spawn, and for --arena's check of the board",
    )
    parser.add_argument(
        "--fresh-database",
        action="store_true",
        help="for --spawn: drop --database-url and make it afresh first (a run then does not "
        "read and vacuum what earlier runs left)",
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        action="append",
        default=[],
        help="a Daphne's pid, for its CPU per move (repeat; default: the port's listener)",
    )
    parser.add_argument("--http-concurrency", type=int, default=8)
    parser.add_argument("--connect-concurrency", type=int, default=20)
    parser.add_argument("--rng-seed", type=int, default=1)
    parser.add_argument(
        "--race-affinity",
        action="store_true",
        help="put all of a race's racers on one server, as deploy/nginx does (default: spread "
        "every race over all; with --arena: the server the race's code hashes to)",
    )
    parser.add_argument(
        "--profile",
        metavar="PATH",
        help="py-spy the first server over the play window: a flame graph (.svg) or raw stacks",
    )
    parser.add_argument(
        "--profile-gil",
        action="store_true",
        help="with --profile: only samples holding the GIL (Python's own CPU, not the waits)",
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON figures")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="instead: --racers guests press Quick race within --spread s (scripts/quick_crowd.py)",
    )
    parser.add_argument("--spread", type=float, default=1.0, help="--quick: seconds of presses")
    arena_crowd.add_arguments(parser)
    parser.add_argument(
        "--quick-timeout", type=float, default=90.0, help="--quick: how long a press waits to start"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.racers <= MAX_RACERS:
        parser.error(f"--racers is 1 to {MAX_RACERS}")
    if not 0 < args.duration <= MAX_DURATION_S:
        parser.error(f"--duration is at most {MAX_DURATION_S} s")
    if not 0 < args.pace <= 5:
        parser.error("--pace is above 0 and at most 5 moves per second (the frame budget)")
    if not 0 <= args.race_spread < 1:
        parser.error("--race-spread is at least 0 and under 1")
    if args.races < 1:
        parser.error("--races is at least 1")
    if args.arena and args.database_url and not args.redis_url:
        parser.error("--arena checks the board in the servers' Redis: give --redis-url too")
    if not args.base_urls and not args.spawn:
        args.base_urls = ["http://127.0.0.1:8000"]
    try:
        for url in args.base_urls:
            check_local(url)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def print_figures(figures: dict) -> None:
    lat = figures["latency_ms"]
    lines = [
        f"racers {figures['racers']} in {figures['races']} races on {figures['servers']} "
        f"server(s), {figures['pace_per_racer']:g} move/s each, {figures['duration_s']:g} s",
        f"moves sent {figures['moves_sent']}, acknowledged {figures['moves_acked']} "
        f"({figures['resolved_on_resync']} resolved on resync, "
        f"{figures['unavailable_retries']} resent after `unavailable`), "
        f"errors {figures['errors']} {figures['error_codes'] or ''}",
        f"move round trip ms: median {lat['median']}, p95 {lat['p95']}, p99 {lat['p99']}, "
        f"max {lat['max']}",
        f"throughput {figures['throughput_moves_per_s']} moves/s; "
        f"frames received {figures['frames_received']}; reconnects {figures['reconnects']}; "
        f"this client used {figures['client_cpu_s']} s of CPU",
    ]
    lines.append(server_cpu_line(figures))
    if figures.get("cores_used"):
        cores = cores_text(figures["cores_used"])
        lines.append(f"CPU in cores (CPU seconds a second) over the play window: {cores}")
    if "lost_moves" in figures:
        lines.append(
            f"record check: {figures['verified_racers']} racers verified, "
            f"{figures['mismatched_racers']} mismatched, lost {figures['lost_moves']}, "
            f"duplicate/unexpected {figures['duplicate_or_unexpected_moves']}"
        )
    print("\n".join(lines))


def server_cpu_line(figures: dict) -> str:
    """`server CPU per move: 0.93 ms (Daphnes 0.71, PostgreSQL 0.19, Redis 0.03); load average
    before 0.21`, saying which part is unknown and why."""

    def ms(value: float | None, missing: str) -> str:
        return missing if value is None else f"{value:.2f}"

    cpu = figures.get("server_cpu_ms_per_move")
    load = f"load average before {figures['load_average_before']:.2f}"
    if cpu is None:
        return f"server CPU per move: not measured (no play window); {load}"
    unknown = figures.get("daphne_pids_unknown_for")
    daphnes = "unknown" if cpu["daphne"] is None else f"{cpu['daphne']:.2f}"
    if unknown:
        daphnes += f" (no process found listening for {', '.join(unknown)}: give --server-pid)"
    total = "unknown" if cpu["total"] is None else f"{cpu['total']:.2f} ms"
    return (
        f"server CPU per move: {total} (Daphnes {daphnes}, "
        f"PostgreSQL {ms(cpu['postgres'], 'none running')}, "
        f"Redis {ms(cpu['redis'], 'none running')}); {load}; "
        f"{ServerCpu.event_loops_text(figures.get('event_loops'))}"
    )


@contextlib.contextmanager
def collector_paused():
    """This generator's cyclic garbage collector off while it measures. A collection holds
    every frame waiting in the generator's sockets, and that wait counted in the servers'
    round trips: in a 150-s arena crowd of 1,000 the collector ran 975 times, its full
    collections (100-250 thousand objects) for 94-241 ms each (docs/performance-log.md,
    "Arenas, forty-ninth day"). What the generator frees is freed at once by its count of
    references; what only the collector would free waits for the run's end."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_before = load_average()
    print("load average before the run: {:.2f} {:.2f} {:.2f}".format(*load_before), flush=True)
    servers = []
    if args.spawn:
        if not args.database_url:
            raise SystemExit("--spawn needs --database-url (the servers' database)")
        env = server_env(args.database_url, args.redis_url)
        create_database(args.database_url, drop=args.fresh_database)
        migrate(env)
        if args.arena:  # a fresh database's pools are empty; the scheduler stocks them ahead
            manage(
                {**env, "BACKGROUND_YIELD_PRESSURE": "0"},  # whatever a run before left running
                "stock_winnable_deals",
                args.variant or arena_crowd.VARIANT,
                "--size",
                str(arena_crowd.deals_to_stock(args.racers)),
            )
        servers = start_daphnes(args.spawn, env, Path(tempfile.gettempdir()) / "solitaire-loadtest")
        args.base_urls = [s.url for s in servers]
    try:
        with collector_paused():
            pids = [s.pid for s in servers] + args.server_pid
            if args.quick:
                result = asyncio.run(quick_crowd.run(args))
                quick_crowd.print_figures(result)
                if args.json:
                    print(json.dumps(result, separators=(",", ":")))
                return 0 if quick_crowd.ok(result) else 1
            if args.arena:
                result = asyncio.run(arena_crowd.run(args, Racer, Stats(), pids))
                arena_crowd.print_figures(result)
                if args.json:
                    print(json.dumps(result, separators=(",", ":")))
                return 0 if arena_crowd.ok(result) else 1
            figures = asyncio.run(run(args, server_pids=pids, load_before=load_before))
    finally:
        for server in servers:
            server.stop()
    print_figures(figures)
    figures["ok"] = figures["errors"] == 0 and figures.get("lost_moves", 0) == 0
    figures["ok"] = figures["ok"] and figures.get("duplicate_or_unexpected_moves", 0) == 0
    if args.json:
        print(json.dumps(figures, separators=(",", ":")))
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
