"""A crowd pressing Quick race: N guests within a second, spread over the servers given.

Each guest is a browser without a browser (scripts/loadtest.py's `Browser`): it loads the home
page (its CSRF cookie), POSTs the Quick race form, follows the answer to its race, and opens
/ws/race/<code>/ as the page does, keeping it open (closing it before the start would take it
out of the race) until its race counts down. It prints how the crowd was placed (races and their
sizes), how long a placement took, and how long from the press to the start; with the
database it checks the record too: no player in two quick races, none over eight, every quick
race started. `scripts/loadtest.py --quick` runs it; tests/races/test_quick_race_crowd.py holds
it to those rules on two live servers.

    python scripts/loadtest.py --quick --racers 200 --spread 1 \\
        http://127.0.0.1:8001 http://127.0.0.1:8002 --database-url postgres://…
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field

import websockets

from games.percentiles import percentile
from scripts.client import Browser, query
from scripts.procstat import load_average

MAX_PLAYERS = 8


@dataclass
class Presser:
    """One guest: its server, its cookies, and what happened to it."""

    index: int
    base: str
    code: str | None = None
    handshakes_failed: int = 0
    racer: str | None = None
    placed_ms: float | None = None
    """From the press to the race page's address."""
    started_ms: float | None = None
    """From the press to its race's countdown."""
    error: str | None = None
    frames: list[str] = field(default_factory=list)
    syncs: int = 0
    """Times it asked with `sync` after a silence."""
    late: bool = False
    """A guest who pressed after the crowd, for a presser left alone (`keep_company`)."""


SILENCE_S = 20.0
"""How long a presser waits on its race's socket without a frame before it asks with `sync` (the
channel layer may lose an event such as the `countdown`, and a page reconnects after a line goes
quiet: frontend/static/js/socket.js pings every 20 s)."""

ALONE_S = SILENCE_S + 10.0
"""How long one presser must be the only one whose race has not started, every other placed and
started, before a late guest presses for it (`keep_company`): long enough for its `sync` to
have heard a start the channel layer lost."""


def place(presser: Presser, variant: str) -> tuple[dict, float]:
    """The home page, then the Quick race form (blocking: runs in a thread)."""
    browser = Browser(presser.base)
    status, _, _ = browser.request("GET", "/")
    if status != 200:
        raise RuntimeError(f"GET / answered {status}")
    pressed = time.perf_counter()
    status, headers, _ = browser.request("POST", "/races/quick/", {"variant": variant})
    match = re.fullmatch(r"/races/([A-Z0-9]+)/", headers.get("Location", ""))
    if status != 302 or match is None:
        raise RuntimeError(f"Quick race answered {status} {headers.get('Location')}")
    presser.code = match.group(1)
    presser.placed_ms = (time.perf_counter() - pressed) * 1000
    return browser.cookies, pressed


async def press(presser: Presser, variant: str, delay: float, pool, timeout: float) -> None:
    """Press at `delay`, then wait on the race's socket for its start."""
    await asyncio.sleep(delay)
    loop = asyncio.get_running_loop()
    try:
        cookies, pressed = await loop.run_in_executor(pool, place, presser, variant)
        cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
        url = presser.base.replace("http://", "ws://") + f"/ws/race/{presser.code}/"
        headers = {"Cookie": cookie, "Origin": presser.base}
        async with asyncio.timeout(timeout):
            ws = await connect(url, headers, presser)
            async with ws:
                while presser.started_ms is None:
                    try:
                        frame = await asyncio.wait_for(ws.recv(), SILENCE_S)
                    except TimeoutError:  # an event the channel layer lost: ask, as a page does
                        presser.syncs += 1
                        await ws.send(json.dumps({"type": "sync"}))
                        continue
                    take(presser, json.loads(frame), pressed)
    except Exception as exc:  # noqa: BLE001 - every failure is a figure
        # What the socket heard says which wait it was: a race never started (one player alone
        # in its lobby) or a start not heard.
        heard = f"race {presser.code}, frames {presser.frames[-6:]}, syncs {presser.syncs}"
        presser.error = f"{type(exc).__name__}: {exc} ({heard})"[:300]


async def connect(url: str, headers: dict, presser: Presser):
    """The race's socket, tried again as the page does when the handshake fails, until the
    caller's timeout (a server busy with a crowd's placements drops a handshake it cannot take
    within its own timeout: the session is read on the thread that places players)."""
    delay = 0.5
    while True:
        try:
            return await websockets.connect(url, additional_headers=headers, open_timeout=30)
        except (OSError, TimeoutError, websockets.InvalidHandshake):
            presser.handshakes_failed += 1
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 4.0)


def take(presser: Presser, frame: dict, pressed: float) -> None:
    """The racer's id from the snapshot; at the race's start (or a snapshot of a race that had
    already started when the socket came), whether this player is among its racers, and when."""
    presser.frames.append(frame["type"])
    if frame["type"] == "snapshot":
        presser.racer = frame["you"]["racer"]
    started = frame["type"] == "countdown" or (
        frame["type"] == "snapshot" and frame["race"]["status"] == "started"
    )
    if started:
        if presser.racer not in {r["id"] for r in frame["racers"]}:
            presser.error = "started without this player"
        presser.started_ms = (time.perf_counter() - pressed) * 1000


async def crowd(
    bases: list[str],
    players: int,
    variant: str = "any",
    spread_s: float = 1.0,
    timeout: float = 60.0,
    rng_seed: int = 1,
    alone_s: float = ALONE_S,
) -> list[Presser]:
    """`players` guests press within `spread_s`, guest i on server i mod len(bases)."""
    rng = random.Random(rng_seed)
    pressers = [Presser(i, bases[i % len(bases)]) for i in range(players)]
    with concurrent.futures.ThreadPoolExecutor(min(64, players)) as pool:
        pressing = [
            asyncio.ensure_future(press(p, variant, rng.uniform(0, spread_s), pool, timeout))
            for p in pressers
        ]
        late = await keep_company(pressers, pressing, variant, pool, timeout, alone_s)
        await asyncio.gather(*pressing)
    return pressers + ([late] if late is not None else [])


async def keep_company(
    pressers: list[Presser],
    pressing: list[asyncio.Future],
    variant: str,
    pool,
    timeout: float,
    alone_s: float,
) -> Presser | None:
    """The crowd's last presser may open a lobby nobody comes to. A quick race's lobby clock
    starts at its second player, so on a slow machine a lobby whose presses came slower than
    its clock starts with fewer than eight, the crowd no longer divides into full races, and
    the presser left over waits alone: a race of one never starts, by design, until the next
    press. When one presser has been the only one waiting for `alone_s`, every other placed
    and started, a late guest presses Quick race as that next player would (and is counted);
    the two then start like any race of two."""
    alone_since = None
    while not all(task.done() for task in pressing):
        await asyncio.sleep(1.0)
        waiting = [p for p in pressers if p.started_ms is None and p.error is None]
        placed = all(p.code or p.error for p in pressers)
        if not (placed and len(waiting) == 1):
            alone_since = None
            continue
        alone_since = alone_since or time.perf_counter()
        if time.perf_counter() - alone_since >= alone_s:
            late = Presser(len(pressers), waiting[0].base, late=True)
            await press(late, variant, 0.0, pool, timeout)
            return late
    return None


def figures(pressers: list[Presser]) -> dict:
    by_race: dict[str, set[str]] = {}
    for p in pressers:
        if p.code:
            by_race.setdefault(p.code, set()).add(p.racer)
    sizes = Counter(len(ids) for ids in by_race.values())
    placed = [p.placed_ms for p in pressers if p.placed_ms is not None]
    started = [p.started_ms for p in pressers if p.started_ms is not None]

    def spread(values: list[float]) -> dict:
        return {
            "median": round(percentile(values, 50), 1) if values else None,
            "p95": round(percentile(values, 95), 1) if values else None,
            "p99": round(percentile(values, 99), 1) if values else None,
            "max": round(max(values), 1) if values else None,
        }

    errors = Counter(p.error.split(":")[0] for p in pressers if p.error)
    return {
        "players": len(pressers),
        "late_guests": sum(p.late for p in pressers),
        "races": len(by_race),
        "race_sizes": dict(sorted(sizes.items())),
        "not_started": sum(p.started_ms is None for p in pressers),
        "handshakes_retried": sum(p.handshakes_failed for p in pressers),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "placement_ms": spread(placed),
        "press_to_start_ms": spread(started),
    }


def record_check(database_url: str, codes: list[str]) -> dict:
    """From the database: quick races of this crowd, their sizes and status, and players who
    are in more than one of them."""
    marks = ", ".join(["%s"] * len(codes))  # IN (…): the same SQL on PostgreSQL and SQLite
    rows = query(
        database_url,
        "SELECT r.code, r.status, count(x.id) FROM races_race r "
        f"JOIN races_racer x ON x.race_id = r.id WHERE r.code IN ({marks}) "
        "GROUP BY r.code, r.status",
        codes,
    )
    twice = query(
        database_url,
        "SELECT x.player_id FROM races_racer x JOIN races_race r ON r.id = x.race_id "
        f"WHERE r.code IN ({marks}) GROUP BY x.player_id HAVING count(*) > 1",
        codes,
    )
    return {
        "db_races": len(rows),
        "db_sizes": dict(sorted(Counter(n for _, _, n in rows).items())),
        "db_not_started": sorted(code for code, status, _ in rows if status == "lobby"),
        "db_over_eight": sorted(code for code, _, n in rows if n > MAX_PLAYERS),
        "db_players_in_two": len(twice),
    }


async def run(args) -> dict:
    """`scripts/loadtest.py --quick`: the crowd, its figures, and the record check."""
    load_before = load_average()
    began = time.perf_counter()
    pressers = await crowd(
        args.base_urls,
        args.racers,
        args.variant or "any",
        spread_s=args.spread,
        timeout=args.quick_timeout,
        rng_seed=args.rng_seed,
    )
    result = figures(pressers)
    result["wall_s"] = round(time.perf_counter() - began, 1)
    result["servers"] = len(args.base_urls)
    result["load_average_before"] = load_before[0]
    if args.database_url:
        codes = sorted({p.code for p in pressers if p.code})
        result.update(record_check(args.database_url, codes))
    return result


def ok(result: dict) -> bool:
    sizes_ok = all(2 <= size <= MAX_PLAYERS for size in result["race_sizes"])
    record_ok = not (
        result.get("db_not_started")
        or result.get("db_over_eight")
        or result.get("db_players_in_two")
    )
    return sizes_ok and record_ok and result["errors"] == 0 and result["not_started"] == 0


def print_figures(result: dict) -> None:
    placed, started = result["placement_ms"], result["press_to_start_ms"]
    lines = [
        f"quick race crowd: {result['players']} players on {result['servers']} server(s) "
        f"in {result['wall_s']} s (a late guest for one left alone: {result['late_guests']}); "
        f"load average before {result['load_average_before']:.2f}",
        f"races {result['races']}, sizes {result['race_sizes']} (size: races); "
        f"not started {result['not_started']}; errors {result['errors']} "
        f"{result['error_kinds'] or ''}; socket handshakes tried again "
        f"{result['handshakes_retried']}",
        f"placement ms (POST to the race's address): median {placed['median']}, "
        f"p95 {placed['p95']}, p99 {placed['p99']}, max {placed['max']}",
        f"press to start ms: median {started['median']}, p95 {started['p95']}, "
        f"p99 {started['p99']}, max {started['max']}",
    ]
    if "db_races" in result:
        lines.append(
            f"record check: {result['db_races']} races, sizes {result['db_sizes']}, "
            f"not started {len(result['db_not_started'])}, over eight "
            f"{len(result['db_over_eight'])}, players in two {result['db_players_in_two']}"
        )
    print("\n".join(lines))
