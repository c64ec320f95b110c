"""What each of the project's workarounds of Django's HTTP side earns, paired on one machine.

Starts one Daphne per variant, all on the same database and Redis, and asks each the same pages
in turn, round after round (alternated, so a machine that drifts moves every variant alike):

- `project`: the service as it runs (solitaire_site.asgi and settings);
- `django-handler`: Django's own `ASGIHandler` instead of `solitaire_site/http_handler.py`;
- `no-pool`: Django's Redis cache without the shared pool (`solitaire_site/cache_pool.py`);
- `no-page-cache`: board pages built for every visitor (`records/page_cache.py` off);
- `no-table-cache`: a board page's rows table rendered on every request (records/views.py);
- `no-row-cache`: a board page's rows' names and games read on every request (records/tables.py);
- `no-board-caches`: the three above off at once.

A cache is turned off by giving its module Django's dummy cache, in the variant's ASGI module.
Each request is sent one at a time over a kept-alive connection, as a visitor who brings
nothing or, with `--session`, as one with a session cookie (whom the whole-page cache does not
serve); the figures are the Daphne's CPU per request (from /proc, user + system) and the wall
time, medians over the rounds, and each variant's ratio to `project` in the same rounds.

    .venv/bin/python scripts/framework_bench.py --database-url postgres://postgres@127.0.0.1:5432/fw \\
        --redis-url redis://127.0.0.1:6379/7 --rounds 5 --requests 200 \\
        [--variants project,no-page-cache] [--paths /leaderboards/,/daily/] [--session]

The database is seeded with a small data set unless it has players already (a million games
from scripts/browse_bench.py serve as well).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.procstat import load_average
from scripts.servers import (
    Daphne,
    create_database,
    free_port,
    migrate,
    server_env,
)

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["/healthz", "/", "/play/penguin/12/", "/races/", "/leaderboards/", "/daily/"]

SETTINGS = {
    "project": None,
    "django-handler": None,
    "no-pool": (
        "CACHES = {**CACHES}\n"
        "CACHES['default'] = {**CACHES['default'], 'OPTIONS': {\n"
        "    k: v for k, v in CACHES['default'].get('OPTIONS', {}).items() if k != 'pool_class'}}\n"
    ),
    "no-page-cache": None,
    "no-table-cache": None,
    "no-row-cache": None,
    "no-board-caches": None,
}
CACHES_OFF = {  # variant: the modules whose cache is Django's dummy one
    "no-page-cache": ["records.page_cache"],
    "no-table-cache": ["records.views"],
    "no-row-cache": ["records.tables"],
    "no-board-caches": ["records.page_cache", "records.views", "records.tables"],
}
CACHE_OFF_ASGI = """
from solitaire_site.asgi import application  # noqa: F401  (Django is set up)
from importlib import import_module
from django.core.cache.backends.dummy import DummyCache
for name in {modules!r}:
    import_module(name).cache = DummyCache("off", {{}})
"""

PLAIN_ASGI = """
import os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solitaire_site.settings")
from django.core.asgi import get_asgi_application
django_asgi_app = get_asgi_application()
from channels.routing import ProtocolTypeRouter
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
application = ProtocolTypeRouter({"http": ASGIStaticFilesHandler(django_asgi_app)})
"""


def variant_files(folder: Path) -> None:
    """A settings module per variant that changes one thing, and the plain ASGI module."""
    for name, change in SETTINGS.items():
        if change is not None:
            module = f"bench_{name.replace('-', '_')}"
            text = "from solitaire_site.settings import *  # noqa: F403\n" + change
            (folder / f"{module}.py").write_text(text)
    (folder / "bench_plain_asgi.py").write_text(PLAIN_ASGI)
    for name, modules in CACHES_OFF.items():
        text = CACHE_OFF_ASGI.format(modules=modules)
        (folder / f"bench_{name.replace('-', '_')}_asgi.py").write_text(text)


def app_of(name: str) -> str | None:
    """The variant's ASGI application, if not the project's."""
    if name == "django-handler":
        return "bench_plain_asgi:application"
    if name in CACHES_OFF:
        return f"bench_{name.replace('-', '_')}_asgi:application"
    return None


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ask(port: int, path: str, count: int, session: bool = False) -> tuple[float, int]:
    """`count` GETs of `path`, one at a time on one kept-alive connection: (seconds, status)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Host": "127.0.0.1"}
    if session:  # a session the server does not know: a visitor the page cache does not serve
        headers["Cookie"] = "sessionid=benchnotasession0000000000000000"
    status = 0
    start = time.perf_counter()
    for _ in range(count):
        conn.request("GET", path, headers=headers)
        reply = conn.getresponse()
        reply.read()
        status = reply.status
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed, status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--variants", help="Comma-separated variants (default: all).")
    parser.add_argument("--paths", help=f"Comma-separated paths (default: {','.join(PATHS)}).")
    parser.add_argument("--session", action="store_true", help="Send a session cookie.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.paths = args.paths.split(",") if args.paths else PATHS
    chosen = args.variants.split(",") if args.variants else list(SETTINGS)
    unknown = set(chosen) - set(SETTINGS)
    if unknown or "project" not in chosen:
        parser.error(f"variants: 'project' and any of {', '.join(SETTINGS)}")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        variant_files(folder)
        base = server_env(args.database_url, args.redis_url)
        base["PYTHONPATH"] = f"{folder}{os.pathsep}{ROOT}"
        base.update(DAILY_WARMUP="0", WINNABLE_POOL_REFILL="0", REPLAY_ANALYSIS="0")
        if args.database_url.startswith("postgres"):
            create_database(args.database_url)
        migrate(base)
        # Something on the boards to show (seed_demo refuses a database that has players).
        seed = [sys.executable, "manage.py", "seed_demo", "--players", "300", "--days", "4"]
        seed += ["--races", "100", "--games", "5000"]
        subprocess.run(seed, cwd=ROOT, env=base, check=False, capture_output=True)
        servers: dict[str, Daphne] = {}
        for name in chosen:
            env = dict(base)
            if SETTINGS[name] is not None:
                env["DJANGO_SETTINGS_MODULE"] = f"bench_{name.replace('-', '_')}"
            daphne = Daphne(free_port(), env, folder / f"{name}.log")
            daphne.app = app_of(name) or daphne.app
            servers[name] = daphne.start()
        try:
            figures = measure(servers, args)
        finally:
            for daphne in servers.values():
                daphne.stop()
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print_figures(figures)
    return 0


def measure(servers: dict[str, Daphne], args) -> dict:
    names = list(servers)
    cpu: dict[tuple[str, str], list[float]] = {}
    wall: dict[tuple[str, str], list[float]] = {}
    statuses: dict[tuple[str, str], int] = {}
    load_before = load_average()
    for path in args.paths:  # warm every cache and connection first
        for name in names:
            ask(servers[name].port, path, 20, args.session)
    total = args.rounds * len(names) * len(args.paths)
    done = 0
    for round_no in range(args.rounds):
        order = names[round_no % len(names) :] + names[: round_no % len(names)]
        for path in args.paths:
            for name in order:
                daphne = servers[name]
                before = cpu_seconds(daphne.pid)
                seconds, status = ask(daphne.port, path, args.requests, args.session)
                used = cpu_seconds(daphne.pid) - before
                cpu.setdefault((name, path), []).append(used * 1000 / args.requests)
                wall.setdefault((name, path), []).append(seconds * 1000 / args.requests)
                statuses[(name, path)] = status
                done += 1
                print(f"\r  {done}/{total} runs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows = []
    for path in args.paths:
        for name in names:
            mine, theirs = cpu[(name, path)], cpu[("project", path)]
            ratios = [m / t for m, t in zip(mine, theirs, strict=True) if t > 0]
            rows.append(
                {
                    "path": path,
                    "variant": name,
                    "status": statuses[(name, path)],
                    "cpu_ms": round(statistics.median(mine), 3),
                    "cpu_ms_spread": [round(min(mine), 3), round(max(mine), 3)],
                    "wall_ms": round(statistics.median(wall[(name, path)]), 3),
                    "cpu_vs_project": round(statistics.median(ratios), 3) if ratios else None,
                }
            )
    return {
        "rounds": args.rounds,
        "requests": args.requests,
        "session": args.session,
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "rows": rows,
    }


def print_figures(figures: dict) -> None:
    print(
        f"{figures['rounds']} rounds x {figures['requests']} requests a page and variant; "
        f"load average {figures['load_average_before']} before, "
        f"{figures['load_average_after']} after"
        + ("; with a session cookie" if figures["session"] else "")
    )
    print(
        f"{'page':<36} {'variant':<16} {'status':>6} {'CPU ms':>8} {'spread':>15} "
        f"{'wall ms':>8} {'CPU vs project':>15}"
    )
    for row in figures["rows"]:
        spread = f"{row['cpu_ms_spread'][0]}-{row['cpu_ms_spread'][1]}"
        print(
            f"{row['path']:<36} {row['variant']:<16} {row['status']:>6} {row['cpu_ms']:>8} "
            f"{spread:>15} {row['wall_ms']:>8} {row['cpu_vs_project']:>15}"
        )


if __name__ == "__main__":
    sys.exit(main())
