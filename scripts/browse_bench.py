"""Browsing at scale: the boards, players, replays and races pages and their API, measured.

    python scripts/browse_bench.py [--database-url URL] [--redis-url URL] [--requests 200]
        [--concurrency 20] [--only TEXT] [--json] [seed_demo sizes: --games 1000000 ...]

Seeds a data set into its own PostgreSQL database with ``manage.py seed_demo`` (or reuses the
one there: a database with players is never seeded again), then, per page:

- the SQL queries of a warm request (Django's test client in this process) and, explained at
  this data volume, any sequential scan of a big table among them;
- the first request to a freshly started Daphne (DEBUG=0), "cold";
- ``--requests`` requests one at a time: median, p95 and p99 in milliseconds;
- as many at ``--concurrency`` at once over keep-alive connections: requests a second;
- the server's CPU time per request in both (on a busy machine the times above measure the
  machine; the CPU a request costs, and whether a crowd makes it cost more, do not).

Prints the data volume and the load average before and after (the machine may be shared: say so
beside the figures). ``--json`` prints the same as one JSON document.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))

from scripts.procstat import cpu_seconds  # noqa: E402
from scripts.servers import Daphne, create_database, free_port, migrate, server_env  # noqa: E402

DATABASE_URL = "postgres://postgres@127.0.0.1:5432/solitaire_browse"
REDIS_URL = "redis://127.0.0.1:6379/12"
BIG_TABLES = (
    "games_game",
    "games_move",
    "daily_dailyattempt",
    "races_race",
    "races_racer",
    "games_player",
    "auth_user",
)
SIZES = {  # seed_demo's options for a data set of a million games
    "players": 20_000,
    "days": 60,
    "daily_share": 0.07,
    "races": 20_000,
    "games": 1_000_000,
    "long_games": 10,
}


@dataclass
class PageResult:
    name: str
    url: str
    status: int = 0
    bytes: int = 0
    queries: int = 0
    seq_scans: list[str] = field(default_factory=list)
    cold_ms: float = 0.0
    median_ms: float = 0.0
    p95_ms: float = 0.0
    p99_ms: float = 0.0
    rps_1: float = 0.0
    rps_n: float = 0.0
    cpu_ms_1: float = 0.0  # the server's CPU time per request, one at a time
    cpu_ms_n: float = 0.0  # and at --concurrency at once (more: the crowd itself costs)
    errors: int = 0


# ------------------------------------------------------------------ the data set


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def seed_if_empty(sizes: dict) -> None:
    from django.core.management import call_command

    from games.models import Player

    if Player.objects.exists():
        return
    args = [f"--{name.replace('_', '-')}={value}" for name, value in sizes.items()]
    call_command("seed_demo", *args)


def volume() -> dict[str, int]:
    """Rows in the tables the pages read (PostgreSQL's live-row estimates: no full count)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE relname = ANY(%s)",
            [list(BIG_TABLES)],
        )
        return dict(cursor.fetchall())


def pages() -> list[tuple[str, str]]:
    """(name, address) of every page and API of browsing, with a heavy and a light player."""
    import datetime as dt

    from django.db.models import Count
    from django.utils import timezone

    from daily.dealpick import utc_day
    from games.models import Game
    from races.models import Race

    counts = list(
        Game.objects.values("player_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .values_list("player_id", "n")
    )
    heavy, heavy_games = counts[0]
    light, light_games = min(counts, key=lambda c: abs(c[1] - 10))
    today = utc_day(timezone.now())
    day = (today - dt.timedelta(days=1)).isoformat()
    # A board more than 8 days old has left Redis: it is read from PostgreSQL.
    old_day = (today - dt.timedelta(days=20)).isoformat()
    long_game = (
        Game.objects.filter(moves__isnull=False).order_by("-seq").values_list("public_id", "seq")[0]
    )
    race = Race.objects.filter(visibility="public", status="finished").order_by("-finished_at")[0]
    return [
        ("daily home", "/daily/"),
        ("daily board (yesterday)", f"/daily/penguin/{day}/"),
        ("daily board, page 20", f"/daily/penguin/{day}/?page=20"),
        ("daily board (20 days ago)", f"/daily/penguin/{old_day}/"),
        ("api daily board (20 days ago)", f"/api/leaderboards/daily/penguin/{old_day}/"),
        ("leaderboards", "/leaderboards/"),
        ("races board", "/leaderboards/races/"),
        ("races board, page 40", "/leaderboards/races/?page=40"),
        ("fastest (all time)", "/leaderboards/fastest/penguin/"),
        ("most wins (all time)", "/leaderboards/wins/queenie/"),
        ("longest streak", "/leaderboards/streak/penguin/"),
        (f"player, {heavy_games} games", f"/players/{heavy}/"),
        (f"player, {light_games} games", f"/players/{light}/"),
        (f"replay, {long_game[1]} moves", f"/replay/{long_game[0]}/"),
        ("races", "/races/"),
        ("race results", f"/races/{race.code}/results/"),
        ("race replay", f"/replay/race/{race.code}/"),
        ("practice deal", "/play/penguin/42/"),
        ("api daily", "/api/daily/"),
        ("api races", "/api/leaderboards/races/?variant=penguin"),
        ("api daily board", f"/api/leaderboards/daily/penguin/{day}/?player={heavy}"),
        ("api most wins", f"/api/leaderboards/wins/penguin/?player={heavy}"),
        (f"api player, {heavy_games} games", f"/api/players/{heavy}/"),
        (f"api replay, {long_game[1]} moves", f"/api/replays/{long_game[0]}/"),
        ("api race replay", f"/api/races/{race.code}/replay/"),
    ]


def queries_and_plans(url: str) -> tuple[int, list[str]]:
    """The queries of a warm request, and the big tables any of them scans sequentially."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1", raise_request_exception=False)
    client.get(url)
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    scans = set()
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            if not query["sql"].lstrip().upper().startswith("SELECT"):
                continue
            cursor.execute(f"EXPLAIN {query['sql']}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            scans |= {table for table in BIG_TABLES if f"Seq Scan on {table} " in plan + " "}
    return len(captured.captured_queries), sorted(scans)


# ------------------------------------------------------------------ HTTP, keep-alive


class Connection:
    """One keep-alive HTTP/1.1 connection: GET, read the whole answer, again."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, int]:
        """(status, body bytes)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"
        self.writer.write(request.encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                body += await self.reader.readexactly(size)
                await self.reader.readexactly(2)
            await self.reader.readuntil(b"\r\n")
        else:
            body = await self.reader.read()
        if headers.get("connection", "").lower() == "close" or not body and status >= 500:
            self.close()
        return status, len(body)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def first_request(port: int, url: str) -> tuple[int, int, float]:
    """Status, bytes and milliseconds of one request on a new connection."""
    connection = Connection(port)
    start = time.perf_counter()
    status, size = await connection.get(url)
    elapsed = (time.perf_counter() - start) * 1000
    connection.close()
    return status, size, elapsed


async def one_at_a_time(port: int, url: str, count: int) -> tuple[list[float], float, int]:
    """Latencies in ms, requests a second, errors."""
    connection = Connection(port)
    latencies, errors = [], 0
    began = time.perf_counter()
    for _ in range(count):
        start = time.perf_counter()
        status, _ = await connection.get(url)
        latencies.append((time.perf_counter() - start) * 1000)
        errors += status != 200
    elapsed = time.perf_counter() - began
    connection.close()
    return latencies, count / elapsed, errors


async def at_once(port: int, url: str, count: int, concurrency: int) -> tuple[float, int]:
    """Requests a second with ``concurrency`` connections asking at once, and errors."""
    left = count
    errors = 0

    async def worker() -> None:
        nonlocal left, errors
        connection = Connection(port)
        while left > 0:
            left -= 1
            status, _ = await connection.get(url)
            errors += status != 200
        connection.close()

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return count / (time.perf_counter() - began), errors


# ------------------------------------------------------------------ the run


def measure(args) -> dict:
    env = server_env(
        args.database_url,
        args.redis_url,
        DAILY_WARMUP="0",
        WINNABLE_POOL_REFILL="0",
        REPLAY_ANALYSIS="0",
    )
    create_database(args.database_url)
    migrate(env)
    setup_django(env)
    seed_if_empty({name: getattr(args, name) for name in SIZES})
    from django.core.management import call_command

    # What the scheduler does every minute: build any board the store has lost (a request
    # never builds one; it would read that board from the database instead).
    call_command("rebuild_leaderboards", "--missing", verbosity=0, stdout=sys.stderr)
    from tqdm import tqdm

    targets = [(n, u) for n, u in pages() if args.only is None or args.only in n + u]
    results = [PageResult(name, url) for name, url in targets]
    load_before = os.getloadavg()
    for result in tqdm(results, desc="queries and plans", unit=" page"):
        result.queries, result.seq_scans = queries_and_plans(result.url)

    log = Path(os.environ.get("TMPDIR", "/tmp")) / "browse_bench_daphne.log"
    server = Daphne(free_port(), env, log).start(timeout=60)
    try:
        progress = tqdm(total=len(results) * 3, desc="requests")
        for result in results:
            result.status, result.bytes, result.cold_ms = asyncio.run(
                first_request(server.port, result.url)
            )
            progress.update()
            cpu = cpu_seconds(server.pid)
            latencies, result.rps_1, errors = asyncio.run(
                one_at_a_time(server.port, result.url, args.requests)
            )
            result.cpu_ms_1 = (cpu_seconds(server.pid) - cpu) * 1000 / args.requests
            result.median_ms = statistics.median(latencies)
            result.p95_ms = percentile(latencies, 95)
            result.p99_ms = percentile(latencies, 99)
            progress.update()
            cpu = cpu_seconds(server.pid)
            result.rps_n, more = asyncio.run(
                at_once(server.port, result.url, args.requests * 2, args.concurrency)
            )
            result.cpu_ms_n = (cpu_seconds(server.pid) - cpu) * 1000 / (args.requests * 2)
            result.errors = errors + more
            progress.update()
        progress.close()
    finally:
        server.stop()
    return {
        "database": args.database_url.rsplit("/", 1)[-1],
        "volume": volume(),
        "requests": args.requests,
        "concurrency": args.concurrency,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "pages": [asdict(r) for r in results],
    }


def report(data: dict) -> str:
    volume = ", ".join(f"{table} {rows:,}" for table, rows in sorted(data["volume"].items()))
    lines = [
        f"data ({data['database']}): {volume}",
        f"load average before {data['load_before']}, after {data['load_after']} "
        f"on {data['cpus']} CPUs; {data['requests']} requests one at a time, "
        f"{data['requests'] * 2} at {data['concurrency']} at once, per page",
        "",
        f"{'page':<28} {'status':>6} {'KB':>6} {'SQL':>4} {'cold':>6} {'median':>7} "
        f"{'p95':>6} {'p99':>6} {'req/s@1':>8} {'req/s@' + str(data['concurrency']):>9} "
        f"{'cpu@1':>6} {'cpu@' + str(data['concurrency']):>6}  seq scans",
    ]
    for p in data["pages"]:
        lines.append(
            f"{p['name'][:28]:<28} {p['status']:>6} {p['bytes'] / 1024:>6.1f} {p['queries']:>4} "
            f"{p['cold_ms']:>6.1f} {p['median_ms']:>7.1f} {p['p95_ms']:>6.1f} {p['p99_ms']:>6.1f} "
            f"{p['rps_1']:>8.0f} {p['rps_n']:>9.0f} {p['cpu_ms_1']:>6.1f} {p['cpu_ms_n']:>6.1f}  "
            f"{', '.join(p['seq_scans']) or '-'}"
            + (f"  ({p['errors']} errors)" if p["errors"] else "")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--redis-url", default=REDIS_URL)
    parser.add_argument("--requests", type=int, default=200, help="Per page, one at a time.")
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--only", help="Only the pages whose name or address contains this.")
    parser.add_argument("--json", action="store_true", help="Print one JSON document.")
    for name, default in SIZES.items():
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=type(default),
            default=default,
            help=f"seed_demo --{name.replace('_', '-')} when the database is empty",
        )
    args = parser.parse_args(argv)
    if not args.database_url.startswith("postgres"):
        parser.error("the bench runs on PostgreSQL (it explains the plans)")
    data = measure(args)
    print(json.dumps(data, indent=2) if args.json else report(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
