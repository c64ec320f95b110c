"""What each of the project's workarounds of Django's HTTP side earns, paired on one machine.

Starts one Daphne per variant, all on the same database and Redis, and asks each the same pages
in turn, round after round (alternated, so a machine that drifts moves every variant alike):

- `project`: the service as it runs (solitaire_site.asgi and settings);
- `django-handler`: Django's own `ASGIHandler` instead of `solitaire_site/http_handler.py`;
- `no-pool`: Django's Redis cache without the shared pool (`solitaire_site/cache_pool.py`).

Each request is sent one at a time over a kept-alive connection; the figures are the Daphne's
CPU per request (from /proc, user + system) and the wall time, medians over the rounds, and each
variant's ratio to `project` in the same rounds.

    .venv/bin/python scripts/framework_bench.py --database-url postgres://postgres@127.0.0.1:5432/fw \\
        --redis-url redis://127.0.0.1:6379/7 --rounds 5 --requests 200
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
}

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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ask(port: int, path: str, count: int) -> tuple[float, int]:
    """`count` GETs of `path`, one at a time on one kept-alive connection: (seconds, status)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    status = 0
    start = time.perf_counter()
    for _ in range(count):
        conn.request("GET", path, headers={"Host": "127.0.0.1"})
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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

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
        for name, change in SETTINGS.items():
            env = dict(base)
            if change is not None:
                env["DJANGO_SETTINGS_MODULE"] = f"bench_{name.replace('-', '_')}"
            daphne = Daphne(free_port(), env, folder / f"{name}.log")
            if name == "django-handler":
                daphne.app = "bench_plain_asgi:application"
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
    for path in PATHS:  # warm every cache and connection first
        for name in names:
            ask(servers[name].port, path, 20)
    total = args.rounds * len(names) * len(PATHS)
    done = 0
    for round_no in range(args.rounds):
        order = names[round_no % len(names) :] + names[: round_no % len(names)]
        for path in PATHS:
            for name in order:
                daphne = servers[name]
                before = cpu_seconds(daphne.pid)
                seconds, status = ask(daphne.port, path, args.requests)
                used = cpu_seconds(daphne.pid) - before
                cpu.setdefault((name, path), []).append(used * 1000 / args.requests)
                wall.setdefault((name, path), []).append(seconds * 1000 / args.requests)
                statuses[(name, path)] = status
                done += 1
                print(f"\r  {done}/{total} runs", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows = []
    for path in PATHS:
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
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "rows": rows,
    }


def print_figures(figures: dict) -> None:
    print(
        f"{figures['rounds']} rounds x {figures['requests']} requests a page and variant; "
        f"load average {figures['load_average_before']} before, "
        f"{figures['load_average_after']} after"
    )
    print(
        f"{'page':<20} {'variant':<15} {'status':>6} {'CPU ms':>8} {'spread':>15} "
        f"{'wall ms':>8} {'CPU vs project':>15}"
    )
    for row in figures["rows"]:
        spread = f"{row['cpu_ms_spread'][0]}-{row['cpu_ms_spread'][1]}"
        print(
            f"{row['path']:<20} {row['variant']:<15} {row['status']:>6} {row['cpu_ms']:>8} "
            f"{spread:>15} {row['wall_ms']:>8} {row['cpu_vs_project']:>15}"
        )


if __name__ == "__main__":
    sys.exit(main())
