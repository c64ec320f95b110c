"""What placing an arena's crowd costs, in-process: N players joined and present in a running
arena, then `arenas.placement.place` once (every batch of `RACES_PER_TRANSACTION` races).

    python scripts/arena_bench.py [--players 200 1000] [--repeats 3] [--profile 1000]

It makes the PostgreSQL database it is given afresh (dropped first; migrated as the servers'
databases are, `scripts/servers.py migrate`) and flushes the Redis database it is given (db 4 by
default: nothing else's). Each repeat is a new arena of new players, joined and present the way
the arena tests make them (`do_join`, `do_present`), then placed as they stand at one instant
(`place(arena, now)`: a placement slower than `SEEN_WITHIN_S` would otherwise find the last
batches' pages unseen, where a room's heartbeat would have seen them meanwhile). For each crowd size it prints the
placement's wall time (median and p95 of the repeats), the time of one batch (the first players
are told after the first commit), and per player: wall ms, this process's CPU ms, the database
backend's CPU ms (its /proc figures) and SQL queries; the load average before and after. The
CPU times and query counts are the figures to compare on a shared machine; the wall time moves
with the load. Queries are counted by a `connection.execute_wrapper` (`CaptureQueriesContext` keeps only the
last 9,000), with `DEBUG` off as in production. Channel-layer sends are made the blocking way here (no event loop to hand them
to, as in a management command). Background winnable-deal searches are off
(`WINNABLE_POOL_REFILL=0`): a solver thread would share this process's CPU.

`--profile N` places one more crowd of N under cProfile and prints the top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import secrets
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.percentiles import percentile
from scripts.procstat import cpu_seconds, load_average

DATABASE_URL = "postgres://postgres@127.0.0.1:5432/arena_bench_helper"
REDIS_URL = "redis://127.0.0.1:6379/4"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--variant", default="penguin")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="profile a crowd of N")
    parser.add_argument("--top", type=int, default=30, help="functions the profile prints")
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--redis-url", default=REDIS_URL)
    return parser.parse_args(argv)


def prepare(args: argparse.Namespace) -> None:
    """A fresh, migrated database and an empty Redis database; Django set up on them."""
    import redis

    from scripts import servers

    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "WINNABLE_POOL_REFILL": "0",
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50),
        "DJANGO_SETTINGS_MODULE": "solitaire_site.settings",
    }
    servers.create_database(args.database_url, drop=True)
    servers.migrate(env)
    redis.Redis.from_url(args.redis_url).flushdb()
    os.environ.update(env)
    import django

    django.setup()


def crowd(players: int, variant: str):
    """A running arena with `players` new players joined and their pages open."""
    from datetime import timedelta

    from django.utils import timezone

    from arenas import actions
    from arenas.models import Arena
    from games.models import Player

    starts = timezone.now() - timedelta(seconds=60)
    arena = Arena.objects.create(
        name="Bench arena", variant=variant, starts_at=starts, ends_at=starts + timedelta(hours=1)
    )
    joined = []
    for i in range(players):
        player = Player.objects.create(nickname=f"Bench {arena.pk} {i}")
        actions.do_join(arena, player)
        actions.do_present(arena, player, True)
        joined.append(player.pk)
    actions.do_seen(arena, joined)  # the room's heartbeat: a slow join is still seen recently
    return arena


def backend_pid() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def place_measured(arena) -> dict:
    """Place the arena's crowd once: wall, CPU (ours, the backend's), queries, batch times."""
    from django.db import connection
    from django.utils import timezone

    from arenas import placement

    batches: list[float] = []
    place_batch = placement.place_batch

    def timed_batch(*a, **kw):
        started = time.perf_counter()
        try:
            return place_batch(*a, **kw)
        finally:
            batches.append(time.perf_counter() - started)

    queries = []

    def counted(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    pid = backend_pid()
    placement.place_batch = timed_batch
    try:
        with connection.execute_wrapper(counted):
            db_before, cpu_before = cpu_seconds(pid), time.process_time()
            started = time.perf_counter()
            races = placement.place(arena.pk, timezone.now())
            wall = time.perf_counter() - started
            cpu, db_cpu = time.process_time() - cpu_before, cpu_seconds(pid) - db_before
    finally:
        placement.place_batch = place_batch
    return {
        "races": races,
        "wall": wall,
        "cpu": cpu,
        "db_cpu": db_cpu,
        "queries": len(queries),
        "batches": batches,
    }


def check(players: int, races) -> None:
    """Everyone placed once, 2-8 a race, every racer of a race on its deal, from one position."""
    import json

    from races.models import Racer

    racers = list(Racer.objects.filter(race__in=races).select_related("game", "race"))
    assert len({r.player_id for r in racers}) == len(racers) == players, (len(racers), players)
    starts: dict[int, set[str]] = {race.pk: set() for race in races}
    for racer in racers:
        assert racer.game.seed == racer.race.seed, "a racer's game is not on the race's deal"
        starts[racer.race_id].add(json.dumps(racer.game.state, sort_keys=True))
    assert all(len(s) == 1 for s in starts.values()), "a race's racers start apart"
    sizes = [sum(r.race_id == pk for r in racers) for pk in starts]
    assert all(2 <= size <= 8 for size in sizes), sizes


def progress(text: str) -> None:
    print(f"\r{text:<72}\r", end="", file=sys.stderr, flush=True)


def measure(players: int, repeats: int, variant: str) -> list[dict]:
    runs = []
    for repeat in range(1, repeats + 1):
        progress(f"{players} players, run {repeat}/{repeats}: joining")
        arena = crowd(players, variant)
        progress(f"{players} players, run {repeat}/{repeats}: placing")
        run = place_measured(arena)
        check(players, run["races"])
        runs.append(run)
    progress("")
    return runs


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def report(players: int, runs: list[dict]) -> None:
    walls = [r["wall"] for r in runs]
    batches = [b for r in runs for b in r["batches"]]
    each = [
        f"{ms(r['wall'] / players)} / {ms(r['cpu'] / players)} / {ms(r['db_cpu'] / players)}"
        f" / {r['queries'] / players:.1f}"
        for r in runs
    ]
    print(
        f"{players:>6} players, {len(runs[0]['races'])} races: placement median "
        f"{ms(statistics.median(walls))} ms, p95 {ms(percentile(walls, 95))} ms; "
        f"a batch median {ms(statistics.median(batches))} ms, p95 {ms(percentile(batches, 95))} ms"
    )
    print(
        f"{'':>8}per player, each run (wall / CPU / database CPU ms / queries): {'; '.join(each)}"
    )
    print(
        f"{'':>8}per player, median: wall {ms(statistics.median(walls) / players)} ms, CPU "
        f"{ms(statistics.median(r['cpu'] for r in runs) / players)} ms, database CPU "
        f"{ms(statistics.median(r['db_cpu'] for r in runs) / players)} ms, "
        f"{statistics.median(r['queries'] for r in runs) / players:.1f} queries"
    )


def profile(players: int, variant: str, top: int) -> None:
    from django.utils import timezone

    from arenas import placement

    progress(f"profile of {players} players: joining")
    arena = crowd(players, variant)
    progress(f"profile of {players} players: placing")
    profiler = cProfile.Profile()
    profiler.runcall(placement.place, arena.pk, timezone.now())
    progress("")
    stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main(argv=None) -> None:
    args = parse_args(argv)
    prepare(args)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_average())}")
    for players in args.players:
        report(players, measure(players, args.repeats, args.variant))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_average())}")
    if args.profile:
        profile(args.profile, args.variant, args.top)


if __name__ == "__main__":
    main()
