"""The replay page of a long game: its size, and how long the server takes to render it.

    python scripts/replay_bench.py [--moves 800] [--renders 30] [VARIANT ...]

Makes a throwaway SQLite database, writes one resigned practice game of MOVES log rows per
variant (random legal moves, an undo now and then), and renders /replay/<game>/ with Django's
test client: the first render (the replay computed from the log), then RENDERS more (the replay
read from the cache). Prints the page's size and the render times (median, p95, p99) in wall
time and in this process's CPU time (on a busy machine the CPU time is the view's own cost), with
the load average. No server, no network.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))


def setup(database: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solitaire_site.settings")
    os.environ["REPLAY_ANALYSIS"] = "0"  # the page alone: no search in the background
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", "replay-bench")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def timed(client, url: str):
    """((wall ms, CPU ms), response) of one GET."""
    wall, cpu = time.perf_counter(), time.process_time()
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    used = ((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)
    return used, response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*")
    parser.add_argument("--moves", type=int, default=800)
    parser.add_argument("--renders", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="replay-bench-") as tmp:
        setup(Path(tmp) / "db.sqlite3")
        from django.test import Client
        from django.test.utils import setup_test_environment

        from games.engine import VARIANTS
        from games.models import Player
        from tests.daily.test_replay_size import long_game

        setup_test_environment()
        player = Player.objects.create(nickname="bench")
        client = Client()
        print(
            f"{args.moves}-row replays, {args.renders} renders each; load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        print(
            f"{'variant':<16}{'page':>9}{'first':>10}{'median':>10}{'p95':>9}{'p99':>9}"
            f"{'cpu first':>11}{'cpu median':>12}{'cpu p99':>9}"
        )
        for variant in args.variants or VARIANTS:
            game = long_game(player, variant, args.moves)
            url = f"/replay/{game.public_id}/"
            (first, cpu_first), page = timed(client, url)
            times, cpu = [], []
            for _ in range(args.renders):
                (wall, used), _ = timed(client, url)
                times.append(wall)
                cpu.append(used)
            print(
                f"{variant:<16}{len(page.content) / 1024:>7.1f}KB{first:>8.1f}ms"
                f"{statistics.median(times):>8.1f}ms{percentile(times, 95):>7.1f}ms"
                f"{percentile(times, 99):>7.1f}ms{cpu_first:>9.1f}ms"
                f"{statistics.median(cpu):>10.1f}ms{percentile(cpu, 99):>7.1f}ms"
            )
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
