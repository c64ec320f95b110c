"""What a leaderboard costs to read and to build, on the database and rank store the settings
name (seed one first: `manage.py seed_demo`).

    DATABASE_URL=postgres://… REDIS_URL=redis://… python scripts/board_bench.py [--variant V] [--reads N]

For each board of one variant (today's and an old day's daily board, fastest, wins, streak):
the build (`leaderboard.rebuild`: what the scheduler pays, and what the first reader of a board
whose marker had lapsed paid before boards stopped being built in requests), a read of the
built board from the store, and a read of a board without its marker (from the database). Then
the streak board's scores from its table against the scan of every ranked win that built it
before. Median, p95 and p99 in ms, with the data's size and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def timed(function, times: int) -> list[float]:
    out = []
    for _ in range(times):
        started = time.perf_counter()
        function()
        out.append((time.perf_counter() - started) * 1000)
    return out


def line(name: str, values: list[float]) -> str:
    return (
        f"{name:<44}{statistics.median(values):>9.2f}{percentile(values, 95):>9.2f}"
        f"{percentile(values, 99):>9.2f}"
    )


def streak_scan(variant: str) -> dict[str, float]:
    """The streak board's scores as its rebuild computed them before DailyStreak: every ranked
    win of the variant, read and counted."""
    from games.models import Game
    from records import scoring
    from records.board_scores import ranked_attempts
    from records.streaks import longest_streak

    days: dict[int, list] = defaultdict(list)
    wins = ranked_attempts(variant).filter(game__status=Game.Status.WON)
    for player_id, day in wins.values_list("player_id", "challenge__day"):
        days[player_id].append(day)
    return {str(p): scoring.count_score(longest_streak(d)) for p, d in days.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="penguin")
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--builds", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solitaire_site.settings")
    import django

    django.setup()
    from daily.models import DailyAttempt, DailyChallenge, DailyStreak
    from games.models import Game
    from records import board_scores, leaderboard
    from records.boards import DAILY, FASTEST, STREAK, WINS, Board

    days = list(
        DailyChallenge.objects.filter(variant=args.variant)
        .order_by("-day")
        .values_list("day", flat=True)
    )
    if not days:
        sys.exit("no daily challenges: seed the database first (manage.py seed_demo)")
    boards = [
        Board(DAILY, args.variant, days[0]),
        Board(DAILY, args.variant, days[min(30, len(days) - 1)]),
        Board(FASTEST, args.variant),
        Board(WINS, args.variant),
        Board(STREAK, args.variant),
    ]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{Game.objects.count():,} games, {DailyAttempt.objects.count():,} daily attempts, "
        f"{DailyStreak.objects.count():,} streak rows; {args.variant}; load average {load}"
    )
    print(f"{'':<44}{'median':>9}{'p95':>9}{'p99':>9}  (ms)")
    for board in boards:
        entries = leaderboard.rebuild(board)
        print(f"{board.name} ({entries:,} entries)")
        print(
            line(
                "  build (the scheduler; a request before)",
                timed(lambda b=board: leaderboard.rebuild(b), args.builds),
            )
        )
        print(
            line(
                "  read page 1, built: from the store",
                timed(lambda b=board: leaderboard.read_page(b, 1, 25, 1), args.reads),
            )
        )
        prefix = leaderboard.KEY_PREFIX
        leaderboard.KEY_PREFIX = f"bench-unbuilt-{os.getpid()}"
        try:
            print(
                line(
                    "  read page 1, no marker: from the database",
                    timed(lambda b=board: leaderboard.read_page(b, 1, 25, 1), args.reads),
                )
            )
        finally:
            leaderboard.KEY_PREFIX = prefix
    streak = Board(STREAK, args.variant)
    assert board_scores.scores(streak) == streak_scan(args.variant), (
        "the table and the history differ"
    )
    print("streak scores, the whole board")
    print(line("  from DailyStreak (now)", timed(lambda: board_scores.scores(streak), args.builds)))
    print(
        line(
            "  from every ranked win (before)",
            timed(lambda: streak_scan(args.variant), args.builds),
        )
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
