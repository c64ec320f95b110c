"""Fault drills against real local processes, each ending in PASS or FAIL with its evidence.

    daphne-kill    two Daphnes, racers on both; one is SIGKILLed mid-race. Its racers reconnect
                   to the other, settle their move in flight by `seq`, and play on; the stored
                   move logs hold every acknowledged move once.
    redis-restart  two Daphnes on a private redis-server (never the system one), restarted
                   empty mid-race. Moves go on, progress events flow again, every race's
                   standings (sorted from its rows) still list every racer, nothing is lost.
    vanish         a racer's client stops dead (SIGSTOP) without closing. The server drops the
                   socket after its ping timeout; the seat stays as it was (still racing, to end
                   out of time); the other racers play on with nothing lost.
    slow-reader    a spectator that never reads while a busy race streams every board to it. The
                   server drops it after its ping timeout and its memory stops growing.
    postgres-restart
                   64 racers over two Daphnes on a private PostgreSQL cluster (never the system
                   one), stopped for about 2 s mid-race and started again. No move is lost,
                   doubled or refused with `server_error`; every racer plays on and finishes;
                   `unavailable` only if the outage outlasted the server's retry bound.
    proxy-daphne-kill
                   daphne-kill behind the repo's nginx (scripts/proxy.py): the racers know only
                   the proxy's address, nginx puts each race on the Daphne its code picks, the
                   one with the most racers is killed, and nginx hands its racers to the other.
    arena-redis-restart
                   16 players in an arena over two Daphnes on a private redis-server, stopped
                   mid-arena and started again empty (the board and the socket groups gone).
                   A player's pages answer on both servers while it is away, players are still
                   placed again and again, and the board's sorted set is back in Redis with every
                   player, the record's points and its order.
    arena-server-kill
                   16 players in an arena (races of at most 15 s) over two Daphnes, one SIGKILLed
                   while some of its players race and others wait for their next race. Their
                   sockets open again on the other (as a proxy hands them over); each is placed
                   again, the races they were in end, the results of the races closed before
                   stand, every acknowledged move is stored once, the board in Redis is the
                   record's.

    python scripts/fault_drills.py --database-url postgres://postgres@127.0.0.1:5432/solitaire_drill

The drills make their own database tables (migrate), start their own Daphnes on free ports and
their own redis-server (and, for postgres-restart, their own PostgreSQL cluster: initdb into a
temporary folder, run as the postgres user when we are root), and stop all of them at the end. Pings are shortened (--ping-interval,
--ping-timeout; Daphne's defaults are 20 s and 30 s) so a dead client is noticed in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts import arena_crowd
from scripts.client import Browser, query
from scripts.loadtest import LoadRun, Racer, Stats, join_race, parse_args, racer_name, verify
from scripts.proxy import BEHIND_PROXY, proxy_for, race_sockets_open, race_sockets_opened
from scripts.servers import (
    ROOT,
    PrivatePostgres,
    PrivateRedis,
    create_database,
    free_port,
    migrate,
    server_env,
    server_setting,
    start_daphnes,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/solitaire_drill"
LOG_DIR = Path(tempfile.gettempdir()) / "solitaire-drills"


@dataclass
class Drill:
    name: str
    passed: bool = False
    checks: dict[str, bool] = field(default_factory=dict)
    evidence: dict = field(default_factory=dict)

    def check(self, what: str, ok: bool) -> None:
        self.checks[what] = bool(ok)

    def settle(self) -> Drill:
        self.passed = bool(self.checks) and all(self.checks.values())
        return self


def load_args(bases: list[str], database_url: str, **overrides) -> SimpleNamespace:
    """LoadRun's options for a small race load: loadtest's own defaults for every option it has
    (a new one never finds a drill without it), with these."""
    options = vars(parse_args([]))
    options |= {
        "base_urls": bases,
        "racers": 8,
        "races": 2,
        "pace": 2.0,
        "duration": 10.0,
        "variant": None,
        "database_url": database_url,
        "http_concurrency": 4,
        "connect_concurrency": 8,
        "rng_seed": 7,
        "quiet": True,
    }
    options.update(overrides)
    return SimpleNamespace(**options)


def record_checks(drill: Drill, figures: dict) -> None:
    """The checks every drill makes against the record."""
    drill.check("every racer's log verified", figures.get("unverified_racers") == 0)
    drill.check("no acknowledged move lost", figures.get("lost_moves") == 0)
    drill.check(
        "no move stored twice or unasked", figures.get("duplicate_or_unexpected_moves") == 0
    )


def arena_record_checks(drill: Drill, record: dict, players: int) -> None:
    """The checks every arena drill makes against the record (`arena_crowd.settled_record_check`):
    nobody in two races at once, and the board in Redis (read there, not through the API, which
    reads the record when the set is gone) holds every player, with the record's points and in
    its order."""
    drill.check("nobody in two races at once", record["db_players_in_two_at_once"] == 0)
    drill.check(
        "the board in Redis holds every player",
        record["board_players"] == players and record["board_missing_from_redis"] == 0,
    )
    drill.check("the board's points are the record's", record["board_points_differ"] == 0)
    drill.check("the board's order is the record's", record["board_order_differ"] == 0)


# ------------------------------------------------------------------ a client that never reads


def idle_client(url: str, cookie: str, origin: str) -> None:
    """Open a websocket by hand, print the local port, then never read or write again.

    A small receive buffer makes the server's side fill up soon. Run as a child process (see
    `spawn_idle_client`) so the drill can SIGSTOP it to make it vanish.
    """
    parts = urlsplit(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.hostname, parts.port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\nCookie: {cookie}\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += sock.recv(1)
    status = head.split(b"\r\n", 1)[0].decode()
    print(json.dumps({"port": sock.getsockname()[1], "status": status}), flush=True)
    while True:
        time.sleep(3600)


def quiet_client(url: str, cookie: str, origin: str) -> None:
    """A websocket client that sends nothing and does nothing, but whose library keeps reading
    the socket and answering the server's pings: alive, until SIGSTOP makes it vanish."""
    import websockets

    async def sit() -> None:
        async with websockets.connect(
            url, origin=origin, additional_headers={"Cookie": cookie}, max_queue=None
        ) as ws:
            print(json.dumps({"port": ws.local_address[1], "status": "HTTP/1.1 101 "}), flush=True)
            await asyncio.sleep(3600)

    asyncio.run(sit())


def spawn_idle_client(
    base: str, code: str, browser: Browser, mode: str = "_idle-client"
) -> tuple[subprocess.Popen, int]:
    """A child process holding a race socket: `_idle-client` never reads, `_quiet-client` reads
    and answers pings but says nothing."""
    url = base.replace("http://", "ws://", 1) + f"/ws/race/{code}/"
    proc = subprocess.Popen(
        [sys.executable, __file__, mode, url, browser.cookie_header(), base],
        stdout=subprocess.PIPE,
        text=True,
    )
    hello = json.loads(proc.stdout.readline())
    if " 101 " not in hello["status"] + " ":
        proc.kill()
        raise RuntimeError(f"the idle client was refused: {hello['status']}")
    return proc, hello["port"]


def disconnected_at(log: str, port: int) -> bool:
    """Did Daphne log the end of the websocket from this client port?"""
    return re.search(rf"127\.0\.0\.1:{port} .*\"WSDISCONNECT ", log) is not None


async def wait_for(predicate, timeout: float, step: float = 0.25) -> float | None:
    """Seconds until predicate() held, or None if it did not within `timeout`."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if predicate():
            return round(time.monotonic() - began, 2)
        await asyncio.sleep(step)
    return None


# ------------------------------------------------------------------ the drills


@contextlib.contextmanager
def drill_services(
    options, daphnes: int, extra_args: list[str] | None = None, database_url: str = ""
):
    """A private Redis (one the drill may restart) and `daphnes` Daphnes on the drill's database
    (or `database_url`), all stopped on the way out: (redis, servers)."""
    redis = PrivateRedis(free_port()).start()
    servers = []
    try:
        env = server_env(database_url or options.database_url, redis.url)
        servers = start_daphnes(daphnes, env, LOG_DIR, extra_args=extra_args)
        yield redis, servers
    finally:
        for server in servers:
            server.stop()
        redis.stop()


async def drill_daphne_kill(options) -> Drill:
    drill = Drill("daphne-kill")
    with drill_services(options, 2) as (_, servers):
        load = LoadRun(load_args([s.url for s in servers], options.database_url))
        await load.setup()
        await load.start()
        playing = asyncio.create_task(load.play())
        await asyncio.sleep(load.args.duration * 0.4)
        victims = [r for r in load.racers if r.base == servers[0].url]
        servers[0].kill()
        at_kill = {r.index: len(r.log) for r in load.racers}
        await playing
        await load.finish()
        figures = await load.figures()
    moved_after = [len(r.log) > at_kill[r.index] for r in load.racers]
    drill.evidence = {**figures, "racers_on_killed_server": len(victims)}
    drill.check("the killed server's racers reconnected", figures["reconnects"] >= len(victims) > 0)
    drill.check("every racer moved after the kill", all(moved_after))
    other = {k: v for k, v in figures["error_codes"].items() if k != "disconnected"}
    drill.check("no error besides the dropped sockets", not other)
    record_checks(drill, figures)
    return drill.settle()


async def standings_sizes(groups) -> list[int]:
    """How many racers each race's standings list, from a fresh spectator's snapshot."""
    import websockets

    sizes = []
    for group in groups:
        racer = group[0]
        async with websockets.connect(racer.ws_url(), origin=racer.base) as ws:
            sizes.append(len(json.loads(await ws.recv())["standings"]))
    return sorted(sizes)


async def drill_redis_restart(options) -> Drill:
    drill = Drill("redis-restart")
    with drill_services(options, 2) as (redis, servers):
        load = LoadRun(load_args([s.url for s in servers], options.database_url, duration=12.0))
        await load.setup()
        await load.start()
        playing = asyncio.create_task(load.play())
        await asyncio.sleep(load.args.duration * 0.2)
        for group in load.groups:  # one racer per race is done before the restart
            group[-1].retire.set()
        await asyncio.sleep(load.args.duration * 0.1)
        redis.restart_empty()
        restarted_at = time.perf_counter()
        at_restart = {r.index: (len(r.log), r.progress_events) for r in load.racers}
        await playing
        sizes = await standings_sizes(load.groups)
        await load.finish()
        figures = await load.figures()
    active = [r for r in load.racers if not r.retire.is_set()]
    moved = [len(r.log) > at_restart[r.index][0] for r in active]
    heard = [r.progress_events > at_restart[r.index][1] for r in active]
    drill.evidence = {
        **figures,
        "standings_sizes_after_restart": sizes,
        "racers_hearing_progress_after_restart": sum(heard),
        "played_after_restart_s": round(time.perf_counter() - restarted_at, 1),
    }
    drill.check("every racer moved after the restart", all(moved))
    drill.check("progress events reach every racer again", all(heard))
    per_race = [len(group) for group in load.groups]
    drill.check(
        "standings list every racer after the restart (done racers too)", sizes == sorted(per_race)
    )
    # A move that reached the server in the moment Redis was down used to be refused with
    # server_error and rolled back (not lost, not applied) while a race's standings lived in a
    # Redis sorted set; no Redis call is left on the move path, but the bound stays.
    other = {k: v for k, v in figures["error_codes"].items() if k != "server_error"}
    drill.check("no error but refusals while Redis was down", not other)
    drill.check(
        "few refusals (the outage is short)",
        figures["error_codes"].get("server_error", 0) <= len(load.racers),
    )
    record_checks(drill, figures)
    return drill.settle()


def ping_args(options) -> list[str]:
    return [
        "--ping-interval",
        str(options.ping_interval),
        "--ping-timeout",
        str(options.ping_timeout),
    ]


async def drill_vanish(options) -> Drill:
    drill = Drill("vanish")
    client = None
    with drill_services(options, 1, ping_args(options)) as (_, (server,)):
        try:
            load = LoadRun(
                load_args(
                    [server.url],
                    options.database_url,
                    racers=4,
                    races=1,
                    duration=8.0 + options.ping_interval + options.ping_timeout,
                )
            )
            await load.setup()
            code = load.racers[0].code
            ghost, ghost_name = Browser(server.url), racer_name("Ghost")
            await asyncio.to_thread(join_race, ghost, code, ghost_name)
            client, port = await asyncio.to_thread(
                spawn_idle_client, server.url, code, ghost, "_quiet-client"
            )
            await load.start()
            playing = asyncio.create_task(load.play())
            await asyncio.sleep(options.ping_interval + options.ping_timeout + 1)
            alive_before = not disconnected_at(server.log(), port)
            client.send_signal(signal.SIGSTOP)
            dropped_after = await wait_for(
                lambda: disconnected_at(server.log(), port),
                options.ping_interval + options.ping_timeout + 10,
            )
            await playing
            await load.finish(wait=2.0)  # the ghost is still racing: the race goes on
            figures = await load.figures()
            seat = await asyncio.to_thread(seat_of, options.database_url, code, ghost_name)
        finally:
            if client is not None:
                client.send_signal(signal.SIGCONT)
                client.kill()
    drill.evidence = {**figures, "dropped_after_s": dropped_after, "ghost_seat": seat}
    drill.check("the socket lived while its client answered", alive_before)
    drill.check("the server dropped the vanished socket", dropped_after is not None)
    drill.check("the others played on without errors", figures["errors"] == 0)
    drill.check("the seat stays in the race, still racing", seat.get("status") == "playing")
    drill.check(
        "the race waits for its time limit, not for the ghost", seat.get("race") == "started"
    )
    record_checks(drill, figures)
    return drill.settle()


def seat_of(database_url: str, code: str, name: str) -> dict:
    """The racer's row and its race's status, read from the record."""
    rows = query(
        database_url,
        "SELECT r.status, r.moves, race.status FROM races_racer r "
        "JOIN races_race race ON race.id = r.race_id WHERE race.code = %s AND r.name = %s",
        [code, name],
    )
    if not rows:
        return {}
    status, moves, race_status = rows[0]
    return {"status": status, "moves": moves, "race": race_status}


async def drill_slow_reader(options) -> Drill:
    drill = Drill("slow-reader")
    client = None
    with drill_services(options, 1, ping_args(options)) as (_, (server,)):
        try:
            window = options.ping_interval + options.ping_timeout
            load = LoadRun(
                load_args(
                    [server.url],
                    options.database_url,
                    racers=8,
                    races=1,
                    pace=4.0,
                    duration=window + 10,
                )
            )
            await load.setup()
            code = load.racers[0].code
            watcher = Browser(server.url)
            await asyncio.to_thread(watcher.request, "GET", f"/races/{code}/")
            await load.start()
            client, port = await asyncio.to_thread(spawn_idle_client, server.url, code, watcher)
            rss_start = server.rss_kb()
            playing = asyncio.create_task(load.play())
            dropped_after = await wait_for(lambda: disconnected_at(server.log(), port), window + 10)
            rss_dropped = server.rss_kb()
            await playing
            rss_end = server.rss_kb()
            await load.finish()
            figures = await load.figures()
        finally:
            if client is not None:
                client.kill()
    drill.evidence = {
        **figures,
        "dropped_after_s": dropped_after,
        "rss_kb": {"start": rss_start, "at_drop": rss_dropped, "end": rss_end},
    }
    drill.check("the server dropped the reader that never reads", dropped_after is not None)
    drill.check("server memory grew less than 32 MB", rss_end - rss_start < 32 * 1024)
    drill.check("the racers played on without errors", figures["errors"] == 0)
    record_checks(drill, figures)
    return drill.settle()


def prepare_database(database_url: str) -> None:
    create_database(database_url)
    migrate(server_env(database_url, ""))


async def drill_postgres_restart(options) -> Drill:
    drill = Drill("postgres-restart")
    postgres = PrivatePostgres(free_port())
    try:
        await asyncio.to_thread(postgres.start)
        await asyncio.to_thread(prepare_database, postgres.url)
        bound = await asyncio.to_thread(
            server_setting, server_env(postgres.url, ""), "MOVE_WRITE_RETRY_S"
        )
        with drill_services(options, 2, database_url=postgres.url) as (_, servers):
            load = LoadRun(
                load_args(
                    [s.url for s in servers],
                    postgres.url,
                    racers=64,
                    races=8,
                    duration=20.0,
                    connect_concurrency=16,
                ),
                server_pids=[s.pid for s in servers],
            )
            await load.setup()
            await load.start()
            playing = asyncio.create_task(load.play())
            await asyncio.sleep(load.args.duration * 0.4)
            at_stop = {r.index: len(r.log) for r in load.racers}
            # The racers play on in this loop while PostgreSQL is down: stop and start it in a
            # thread.
            down_at = time.perf_counter()
            await asyncio.to_thread(postgres.stop)
            await asyncio.sleep(max(0.0, options.postgres_down - (time.perf_counter() - down_at)))
            await asyncio.to_thread(postgres.start)
            outage = time.perf_counter() - down_at
            await playing
            await load.finish()
            finished = [r.finished.is_set() for r in load.racers]
            figures = await load.figures()
    finally:
        await asyncio.to_thread(postgres.remove)
    unavailable = figures["unavailable_retries"]
    drill.evidence = {
        **figures,
        "outage_s": round(outage, 2),
        "retry_bound_s": bound,
        "racers_finished": sum(finished),
    }
    drill.check(
        "every racer moved after the restart",
        all(len(r.log) > at_stop[r.index] for r in load.racers),
    )
    drill.check("every racer finished", all(finished))
    drill.check("no move refused with server_error", "server_error" not in figures["error_codes"])
    drill.check("no error at all", figures["errors"] == 0)
    drill.check(
        "`unavailable` only if the outage outlasted the retry bound",
        unavailable == 0 or (bound is not None and outage > bound),
    )
    record_checks(drill, figures)
    return drill.settle()


async def drill_proxy_daphne_kill(options):
    """Kill one of two Daphnes behind nginx mid-race, the one with the most racers (nginx puts
    each race's sockets on the Daphne its code picks): its racers, who know only the proxy's
    address, reconnect through it to the other Daphne and finish with nothing lost."""
    drill = Drill("proxy-daphne-kill")
    with drill_services(options, 2, BEHIND_PROXY) as (_, servers), proxy_for(servers) as nginx:
        started = {server.port: len(server.log()) for server in servers}
        load = LoadRun(load_args([nginx.url], options.database_url))
        await load.setup()
        await load.start()
        playing = asyncio.create_task(load.play())
        await asyncio.sleep(load.args.duration * 0.4)

        def log(server) -> str:  # this drill's lines only: a log file may be a reused port's
            return server.log()[started[server.port] :]

        # Daphne writes its access log line once a socket is up: wait for every racer's.
        await wait_for(
            lambda: sum(race_sockets_open(log(s)).total() for s in servers) >= len(load.racers),
            10,
        )
        victim, survivor = sorted(servers, key=lambda s: -race_sockets_open(log(s)).total())
        races_on = [set(race_sockets_open(log(s))) for s in (victim, survivor)]
        on_victim = race_sockets_open(log(victim)).total()
        on_survivor = race_sockets_open(log(survivor)).total()
        opened_on_survivor = race_sockets_opened(log(survivor))
        victim.kill()
        at_kill = {r.index: len(r.log) for r in load.racers}
        await playing
        await load.finish()
        figures = await load.figures()
        moved_to_survivor = race_sockets_opened(log(survivor)) - opened_on_survivor
    moved_after = [len(r.log) > at_kill[r.index] for r in load.racers]
    drill.evidence = {
        **figures,
        "racers_on_killed_server": on_victim,
        "racers_on_other_server": on_survivor,
        "sockets_reopened_on_other_server": moved_to_survivor,
        "proxy": nginx.url,
    }
    drill.check("nginx put each race's racers on one Daphne", not races_on[0] & races_on[1])
    drill.check("the killed Daphne had racers", on_victim > 0)
    drill.check(
        "every racer of the killed Daphne reconnected through the proxy",
        figures["reconnects"] >= on_victim,
    )
    drill.check("nginx handed them to the other Daphne", moved_to_survivor >= on_victim)
    drill.check("every racer moved after the kill", all(moved_after))
    other = {k: v for k, v in figures["error_codes"].items() if k != "disconnected"}
    drill.check("no error besides the dropped sockets", not other)
    record_checks(drill, figures)
    return drill.settle()


async def pages_while_away(crowd: arena_crowd.Crowd) -> dict[str, int]:
    """While Redis is away, a placed player's pages on each server (the arena's and the player's
    race's, with the player's cookies): each path's status. A session read then misses the cache
    and cannot be written back to it; held here rather than left to the crowd's page loads,
    which fall inside a restart's second only now and then."""
    statuses = {}
    player = next(p for p in crowd.players if p.races)
    for base in crowd.bases:
        browser = Browser(base)
        browser.cookies = dict(player.browser.cookies)
        for path in (f"/arenas/{crowd.arena_id}/", f"/races/{player.races[-1]}/"):
            statuses[base + path] = await browser.load(path)
    return statuses


async def drill_arena_redis_restart(options) -> Drill:
    """An arena's crowd on two Daphnes and a private Redis, stopped mid-arena and started again
    empty: the board and the channel layer's groups are gone. A player's pages answer while it is
    away, players are still placed (the rooms read each placement from the record), and the
    board's sorted set is back in Redis with every player's points and place as the record
    counts them (read from Redis itself: the API would read the record in its place)."""
    drill = Drill("arena-redis-restart")
    with drill_services(options, 2) as (redis, servers):
        bases = [s.url for s in servers]
        args = load_args(
            bases, options.database_url, racers=16, duration=24.0, race_s=3.0, pace=1.0
        )
        args.variant = "penguin"
        crowd = arena_crowd.Crowd(args, Racer, Stats())
        running = asyncio.create_task(crowd.run(args.base_urls))
        await asyncio.sleep(args.duration * 0.4)
        placed_before = sum(len(p.placements_ms) for p in crowd.players)
        redis.stop()
        pages = await pages_while_away(crowd)
        redis.start()
        players = await running
        # The last closes' boards are written after their commits: settled, not lost.
        record = arena_crowd.settled_record_check(options.database_url, redis.url, crowd.arena_id)
    placed = sum(len(p.placements_ms) for p in players)
    errors = [p.error for p in players if p.error]
    drill.evidence = {
        **record,
        "placements_before": placed_before,
        "placements": placed,
        "player_errors": errors[:5],
        "boards_asked_for": crowd.syncs,
        "arena_sockets_reopened": crowd.reopened,
        "pages_while_redis_away": pages,
    }
    drill.check("a player's pages answer while Redis is away", set(pages.values()) == {200})
    drill.check("players were placed after the restart", placed > placed_before > 0)
    drill.check("no player failed", not errors)
    arena_record_checks(drill, record, args.racers)
    return drill.settle()


ARENA_RACE_LIMIT_S = 15
"""The arena-server-kill drill's races' time limit: the shortest a race may have
(races.lifecycle.MIN_TIME_LIMIT_S; the form offers a minute at least), so that a race its
racers never end would end within the drill."""
PLACED_AGAIN_S = ARENA_RACE_LIMIT_S + 10
"""How soon after the kill each of the killed server's players must be placed again: their race
in hand ended (by their moves and resignation once back, else by its time limit, which the
sockets read the record 5 s past), then a placement's tick and gathering."""


def short_race_arena(env: dict[str, str], variant: str, race_limit_s: int) -> str:
    """An arena of `variant` starting now, with races of at most `race_limit_s`, made by the app's
    own action in a process on the servers' settings (the organiser's form offers a minute at
    least); its id."""
    code = (
        "import django; django.setup(); from django.utils import timezone; "
        "from arenas.actions import do_create_arena; "
        f"print(do_create_arena(None, variant={variant!r}, starts_at=timezone.now(), "
        f"minutes={arena_crowd.ARENA_MINUTES}, visibility='link', "
        f"race_time_limit_s={race_limit_s}).public_id)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.split()[-1]


def arena_races(database_url: str, arena_id: str) -> dict[str, str]:
    """Each of the arena's races' code and status, from the record."""
    rows = query(
        database_url,
        "SELECT r.code, r.status FROM races_race r JOIN arenas_arenarace ar ON ar.race_id = r.id "
        "JOIN arenas_arena a ON a.id = ar.arena_id WHERE a.public_id = %s",
        [arena_id],
    )
    return dict(rows)


def arena_results(database_url: str, arena_id: str) -> dict[tuple[str, int], tuple]:
    """Every result of the arena's closed races, by race code and player: place, racers,
    points, and whether the racer moved, won, was doubled or withheld."""
    rows = query(
        database_url,
        "SELECT r.code, x.player_id, x.place, x.racers, x.points, x.moved, x.won, x.doubled, "
        "x.withheld FROM arenas_arenaresult x JOIN races_race r ON r.id = x.race_id "
        "JOIN arenas_arena a ON a.id = x.arena_id WHERE a.public_id = %s",
        [arena_id],
    )
    return {(code, player): tuple(rest) for code, player, *rest in rows}


def in_hand(players: list, racers: list[Racer]) -> tuple[list, list]:
    """Of these players, those playing their race now, and those done in it who wait on its
    socket for their next (each player's newest racer says)."""
    newest = {r.index: r for r in racers}  # appended race after race
    now = [(p, newest[p.index]) for p in players if p.index in newest]
    playing = [p for p, racer in now if not racer.done.is_set()]
    waiting = [p for p, racer in now if racer.done.is_set() and racer.placed_url is None]
    return playing, waiting


async def kill_mid_arena(
    crowd: arena_crowd.Crowd, racers: list[Racer], victim, database_url: str, timeout: float
) -> tuple[dict, list, list] | None:
    """Once everyone has been placed and two of the arena's races have closed, SIGKILL `victim`
    at an instant when, of its players, some play a race and others wait for their next. The
    players' view is read and the server killed with no await between, so nothing the crowd
    hears can change that view before the kill. The results closed before the kill, and the
    victim's players playing and waiting at it; None if no such instant came within
    `timeout`."""
    began = time.monotonic()
    two_closed = False  # once two races have closed, they stay closed: not read again

    def moment() -> tuple[list, list]:
        victims = [p for p in crowd.players if p.base == victim.url]
        return in_hand(victims, racers)

    while time.monotonic() - began < timeout:
        placed = crowd.arena_id and crowd.players and all(p.races for p in crowd.players)
        if placed and all(moment()):  # the record is read only when the players' view fits
            if not two_closed:
                statuses = await asyncio.to_thread(arena_races, database_url, crowd.arena_id)
                two_closed = Counter(statuses.values())["finished"] >= 2
            if two_closed:
                closed = await asyncio.to_thread(arena_results, database_url, crowd.arena_id)
                playing, waiting = moment()  # again: the read awaited
                if playing and waiting:
                    victim.kill()
                    return closed, playing, waiting
        await asyncio.sleep(0.1)
    return None


async def placed_again(players: list, crowd_task: asyncio.Task) -> dict[int, float]:
    """Seconds from now until each player heard their next placement (a race of theirs beyond
    those they had now), watched while the crowd plays."""
    had = {p.index: len(p.races) for p in players}
    began = time.perf_counter()
    found: dict[int, float] = {}
    while not crowd_task.done() and len(found) < len(players):
        for p in players:
            if p.index not in found and len(p.races) > had[p.index]:
                found[p.index] = round(time.perf_counter() - began, 1)
        await asyncio.sleep(0.1)
    return found


async def still_on(database_url: str, arena_id: str, codes: set[str], timeout: float) -> set:
    """Wait until every one of these races is closed (finished or cancelled); those still on
    after `timeout`."""
    began = time.monotonic()
    while True:
        statuses = await asyncio.to_thread(arena_races, database_url, arena_id)
        on = {code for code in codes if statuses.get(code) in ("lobby", "started")}
        if not on or time.monotonic() - began >= timeout:
            return on
        await asyncio.sleep(0.5)


async def drill_arena_server_kill(options) -> Drill:
    """An arena's crowd on two Daphnes, one SIGKILLed while its players race and wait for their
    next race. Their sockets open again on the other (`Crowd.fail_over`, as a proxy hands them
    over), settle a move in flight by `seq` and play on; each is placed again, the races they
    were in end, the closed races' results stand, every acknowledged move is stored once, and
    the board in Redis is the record's."""
    drill = Drill("arena-server-kill")
    with drill_services(options, 2) as (redis, servers):
        victim = servers[0]
        args = load_args(
            [s.url for s in servers],
            options.database_url,
            racers=16,
            duration=36.0,
            race_s=3.0,
            race_spread=0.5,
            pace=1.0,
        )
        args.variant = "penguin"
        env = server_env(options.database_url, redis.url)
        arena_id = await asyncio.to_thread(short_race_arena, env, args.variant, ARENA_RACE_LIMIT_S)
        racers: list[Racer] = []

        def kept(*given) -> Racer:  # every race's racer, for the move logs' check
            racers.append(Racer(*given))
            return racers[-1]

        stats = Stats()
        crowd = arena_crowd.Crowd(args, kept, stats)
        crowd.arena_id, crowd.fail_over = arena_id, True
        running = asyncio.create_task(crowd.run(args.base_urls))
        killed = await kill_mid_arena(
            crowd, racers, victim, options.database_url, args.duration / 2
        )
        if killed is None:  # not the moment the drill is for: kill now, and fail its check
            victim.kill()
        closed_before, playing, waiting = killed or ({}, [], [])
        victims = [p for p in crowd.players if p.base == victim.url]
        again = asyncio.create_task(placed_again(victims, running))
        players = await running
        placed_after = await again
        played = {code for p in players for code in p.races}
        left_on = await still_on(options.database_url, arena_id, played, PLACED_AGAIN_S)
        closed_after = await asyncio.to_thread(arena_results, options.database_url, arena_id)
        record = arena_crowd.settled_record_check(options.database_url, redis.url, arena_id)
        moves = await asyncio.to_thread(verify, racers, options.database_url)
    errors = [p.error for p in players if p.error]
    waits = sorted(placed_after.values())
    changed = [key for key, row in closed_before.items() if closed_after.get(key) != row]
    drill.evidence = {
        **record,
        **moves,
        "moves_sent": stats.sent,
        "moves_acked": stats.acked,
        "reconnects": stats.reconnects,
        "resolved_on_resync": stats.resolved_on_resync,
        "error_codes": dict(stats.errors),
        "latency_ms": arena_crowd.spread(stats.latencies_ms),
        "players_on_killed_server": len(victims),
        "playing_there_at_kill": len(playing),
        "waiting_there_at_kill": len(waiting),
        "placed_again_after_kill_s": waits,
        "results_before_kill": len(closed_before),
        "results_changed_since": changed[:5],
        "races_left_on": sorted(left_on),
        "moves_unanswered": stats.unanswered[:5],
        "player_errors": errors[:5],
        "arena_sockets_reopened": crowd.reopened,
    }
    drill.check(
        "killed while its players raced and waited for their next race",
        killed is not None,
    )
    drill.check("no player failed", not errors)
    drill.check(
        f"every player of the killed server placed again within {PLACED_AGAIN_S} s",
        len(waits) == len(victims) and all(s <= PLACED_AGAIN_S for s in waits),
    )
    drill.check("every race played ended", not left_on)
    drill.check("the results of the races closed before the kill stand", not changed)
    other = {k: v for k, v in stats.errors.items() if k != "disconnected"}
    drill.check("no error besides the dropped sockets", not other)
    record_checks(drill, moves)
    arena_record_checks(drill, record, args.racers)
    return drill.settle()


DRILLS = {
    "daphne-kill": drill_daphne_kill,
    "redis-restart": drill_redis_restart,
    "vanish": drill_vanish,
    "slow-reader": drill_slow_reader,
    "postgres-restart": drill_postgres_restart,
    "proxy-daphne-kill": drill_proxy_daphne_kill,
    "arena-redis-restart": drill_arena_redis_restart,
    "arena-server-kill": drill_arena_server_kill,
}
OWN_DATABASE = frozenset({"postgres-restart"})
"""Drills that bring a database of their own: the shared drill database is not needed."""


def run_drills(names: list[str], options) -> list[Drill]:
    """Run the named drills one after the other; a drill that crashes is a FAIL with the error."""
    if set(names) - OWN_DATABASE:
        prepare_database(options.database_url)
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    results = []
    for name in names:
        try:
            results.append(asyncio.run(DRILLS[name](options)))
        except Exception as exc:  # the drill's own failure is a result too
            drill = Drill(name, evidence={"crash": f"{type(exc).__name__}: {exc}"})
            drill.check("ran to the end", False)
            results.append(drill.settle())
    return results


def print_summary(results: list[Drill]) -> None:
    for drill in results:
        print(f"{'PASS' if drill.passed else 'FAIL'}  {drill.name}")
        for what, ok in drill.checks.items():
            print(f"      [{'x' if ok else ' '}] {what}")
        figures = drill.evidence
        if "latency_ms" in figures:
            lat = figures["latency_ms"]
            print(
                f"      moves {figures['moves_acked']}/{figures['moves_sent']} acked, "
                f"reconnects {figures['reconnects']}, errors {figures['error_codes'] or 0}, "
                f"p99 {lat['p99']} ms"
            )
        for key in (
            "dropped_after_s",
            "rss_kb",
            "ghost_seat",
            "standings_sizes_after_restart",
            "outage_s",
            "retry_bound_s",
            "unavailable_retries",
            "player_errors",
            "boards_asked_for",
            "arena_sockets_reopened",
            "players_on_killed_server",
            "playing_there_at_kill",
            "waiting_there_at_kill",
            "resolved_on_resync",
            "placed_again_after_kill_s",
            "results_before_kill",
            "results_changed_since",
            "races_left_on",
            "moves_unanswered",
            "crash",
        ):
            if key in figures:
                print(f"      {key}: {figures[key]}")
    passed = sum(d.passed for d in results)
    print(f"{passed}/{len(results)} drills passed")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_idle-client"]:
        idle_client(*argv[1:4])
        return 0
    if argv[:1] == ["_quiet-client"]:
        quiet_client(*argv[1:4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drill", action="append", choices=list(DRILLS), help="default: all")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--ping-interval", type=int, default=2)
    parser.add_argument("--ping-timeout", type=int, default=3)
    parser.add_argument(
        "--postgres-down", type=float, default=2.0, help="postgres-restart: seconds it is down"
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON results")
    options = parser.parse_args(argv)
    if urlsplit(options.database_url).hostname not in ("127.0.0.1", "localhost"):
        parser.error("drills only run against a local database")
    results = run_drills(options.drill or list(DRILLS), options)
    print_summary(results)
    if options.json:
        print(
            json.dumps([{"drill": d.name, "passed": d.passed, "checks": d.checks} for d in results])
        )
    return 0 if all(d.passed for d in results) else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
