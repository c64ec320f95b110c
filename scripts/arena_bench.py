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

`--ends` then ends every race placed, as an arena's racers do: each racer makes one move (not
counted), then they resign one by one as their sockets do (with the racer's seat and game as the
socket holds them, read before and not counted), the last resignation closing the race (its places, ratings,
`finished` event and arena points). It prints, per resignation and per race's close (the last
resignation), the same figures: wall ms, CPU ms, database CPU ms and queries, medians over every
race of every repeat. Races start at once here (no countdown), and the resignations send nothing
to the channel layer (a server hands those sends to its event loop; here each would start one).

`--connects` then opens, for every racer placed, their race's socket and the arena's page the
way those sockets' connects read them (`races.snapshots.connect`, `arenas.consumers.connect`:
the race and what it shows, the arena, the player from the session, the presence), and prints
the same figures per connect of each kind (the arena page closed again after each, uncounted).

`--pages` then loads, for every racer placed, the race's page (where the `placed` frame sends
it: the one page a browser loads between two races of an arena) and the arena's page (loaded
once, after joining; until 2026-12-02 the race's page went back to it after every race),
through Django's test client with the racer's session (every middleware, the template; not
Daphne's HTTP), and prints the same figures per page.

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
    parser.add_argument("--ends", action="store_true", help="then end every race: resignations")
    parser.add_argument(
        "--connects", action="store_true", help="then open each racer's race socket and arena page"
    )
    parser.add_argument(
        "--pages", action="store_true", help="then load each racer's race page and arena page"
    )
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


class Measured:
    """Wall, this process's CPU, the database backend's CPU (s) and the queries of a block."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.sql: list[str] = []

    def counted(self, execute, sql, params, many, context):
        self.sql.append(sql)
        return execute(sql, params, many, context)

    def __enter__(self) -> Measured:
        from django.db import connection

        self.wrapper = connection.execute_wrapper(self.counted)
        self.wrapper.__enter__()
        self.db, self.cpu, self.wall = (
            cpu_seconds(self.pid),
            time.process_time(),
            time.perf_counter(),
        )
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu, self.db = time.process_time() - self.cpu, cpu_seconds(self.pid) - self.db
        self.wrapper.__exit__(*exc)

    @property
    def figures(self) -> tuple[float, float, float, int]:
        return self.wall, self.cpu, self.db, len(self.sql)


def end_measured(races) -> dict[str, list[tuple[float, float, float, int]]]:
    """End every race as its racers would: a move each (not counted), then resignations, the
    last closing the race; each resignation's figures, the closing ones apart."""
    from games import groups
    from games.actions import get_game_update
    from games.play import load
    from races import actions
    from races import play as race_play

    pid = backend_pid()
    found: dict[str, list[tuple[float, float, float, int]]] = {"resignation": [], "close": []}
    layer = groups.get_channel_layer
    groups.get_channel_layer = lambda *args, **kwargs: None  # no sends: a server's loop makes them
    try:
        for race in races:
            racers = list(race.racers.select_related("player", "game"))
            for racer in racers:
                move = get_game_update(racer.game).legal[0]
                race_play.do_race_move(race, racer.player, move, 0)
            for n, racer in enumerate(racers, 1):
                # What the racer's socket holds (its seat, its game as played), not counted.
                seat = race_play.seat_of(race, racer.player)
                live = load(seat.racer.game)
                with Measured(pid) as measured:
                    actions.do_resign(race, racer.player, seat.racer, live)
                found["close" if n == len(racers) else "resignation"].append(measured.figures)
    finally:
        groups.get_channel_layer = layer
    return found


def connect_measured(arena, races) -> dict[str, list[tuple[float, float, float, int]]]:
    """Each placed racer's race socket and arena page opened, as their consumers' connects read
    them, each with a session of its own (a guest's, as the pages make them)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth.models import AnonymousUser

    from arenas import actions as arena_actions
    from arenas import consumers as arena_consumers
    from games.identity import SESSION_PLAYER_KEY
    from races import snapshots

    store = import_module(settings.SESSION_ENGINE).SessionStore
    pid = backend_pid()
    found: dict[str, list[tuple[float, float, float, int]]] = {"race socket": [], "arena page": []}
    for race in races:
        for racer in race.racers.select_related("player"):
            session = store()
            session[SESSION_PLAYER_KEY] = racer.player_id
            session.save()
            for kind in found:
                scope = {"user": AnonymousUser(), "session": store(session.session_key)}
                with Measured(pid) as measured:
                    if kind == "race socket":
                        snapshots.connect(race.code, scope, None)
                    else:
                        arena_consumers.connect(arena.public_id, scope)
                found[kind].append(measured.figures)
            arena_actions.do_present(arena, racer.player, False)
    return found


def page_measured(arena, races) -> dict[str, list[tuple[float, float, float, int]]]:
    """Each placed racer's race page, then the arena's page, loaded with a session of their own
    (a guest's), as a browser loads them between two races."""
    from importlib import import_module

    from django.conf import settings
    from django.test import Client

    from games.identity import SESSION_PLAYER_KEY

    store = import_module(settings.SESSION_ENGINE).SessionStore
    pid = backend_pid()
    found: dict[str, list[tuple[float, float, float, int]]] = {
        "race page load": [],
        "arena page load": [],
    }
    for race in races:
        for racer in race.racers.all():
            session = store()
            session[SESSION_PLAYER_KEY] = racer.player_id
            session.save()
            browser = Client(HTTP_HOST="127.0.0.1")
            browser.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
            for kind, url in (
                ("race page load", race.get_absolute_url()),
                ("arena page load", arena.get_absolute_url()),
            ):
                with Measured(pid) as measured:
                    response = browser.get(url)
                if response.status_code != 200:
                    raise SystemExit(f"{url}: {response.status_code}")
                found[kind].append(measured.figures)
    return found


def place_measured(arena) -> dict:
    """Place the arena's crowd once: wall, CPU (ours, the backend's), queries, batch times."""
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

    placement.place_batch = timed_batch
    try:
        with Measured(backend_pid()) as measured:
            races = placement.place(arena.pk, timezone.now())
    finally:
        placement.place_batch = place_batch
    wall, cpu, db_cpu, queries = measured.figures
    return {
        "races": races,
        "wall": wall,
        "cpu": cpu,
        "db_cpu": db_cpu,
        "queries": queries,
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


def measure(
    players: int, repeats: int, variant: str, ends: bool, connects: bool, pages: bool = False
) -> list[dict]:
    runs = []
    for repeat in range(1, repeats + 1):
        progress(f"{players} players, run {repeat}/{repeats}: joining")
        arena = crowd(players, variant)
        progress(f"{players} players, run {repeat}/{repeats}: placing")
        run = place_measured(arena)
        check(players, run["races"])
        if connects:
            progress(f"{players} players, run {repeat}/{repeats}: opening the sockets")
            run["connects"] = connect_measured(arena, run["races"])
        if pages:
            progress(f"{players} players, run {repeat}/{repeats}: loading the pages")
            run["pages"] = page_measured(arena, run["races"])
        if ends:
            progress(f"{players} players, run {repeat}/{repeats}: ending the races")
            run["ends"] = end_measured(run["races"])
        runs.append(run)
    progress("")
    return runs


def report_each(runs: list[dict], key: str) -> None:
    """Each resignation's and each close's figures (`ends`), or each connect's (`connects`),
    over every race of every run: the wall's median, the means of the rest (the database's CPU
    is counted in 10-ms ticks)."""
    for kind in runs[0][key]:
        rows = [row for r in runs for row in r[key][kind]]
        walls, cpus, dbs, queries = zip(*rows, strict=True)
        print(
            f"{'':>8}{'an' if kind[0] in 'aeiou' else 'a'} {kind} ({len(rows)}): wall median "
            f"{ms(statistics.median(walls))} ms; "
            f"mean CPU {ms(statistics.mean(cpus))} ms, database CPU {ms(statistics.mean(dbs))} "
            f"ms, {statistics.mean(queries):.1f} queries"
        )


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
    if args.ends or args.connects or args.pages:
        from races import lifecycle

        lifecycle.COUNTDOWN_MS = 0  # the races start at once: racers move, sockets read boards
    for players in args.players:
        runs = measure(players, args.repeats, args.variant, args.ends, args.connects, args.pages)
        report(players, runs)
        for key in ("connects", "pages", "ends"):
            if getattr(args, key):
                report_each(runs, key)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_average())}")
    if args.profile:
        profile(args.profile, args.variant, args.top)


if __name__ == "__main__":
    main()
