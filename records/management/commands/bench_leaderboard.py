"""Measure the live boards: writes, page reads and rank look-ups on a board of N players.

Uses the configured rank store (Redis with REDIS_URL) under a throw-away key prefix, with
synthetic scores (no database rows), and deletes what it wrote.
"""

import random
import statistics
import time
import uuid

from django.core.management.base import BaseCommand
from tqdm import tqdm

from games.percentiles import percentile
from games.rankstore import RedisRankStore, get_rank_store
from records import leaderboard
from records.boards import FASTEST, Board
from records.scoring import DailyResult, daily_score


def summary(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    rate = len(ms) / (sum(ms) / 1000)
    return (
        f"{name:<22} median {statistics.median(ms):7.3f} ms  p95 {percentile(ms, 95):7.3f} ms  "
        f"p99 {percentile(ms, 99):7.3f} ms  {rate:9.0f}/s"
    )


class Command(BaseCommand):
    help = "Benchmark the leaderboard store: writes, page reads and rank look-ups."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--players", type=int, default=10_000)
        parser.add_argument("--reads", type=int, default=2_000)

    def handle(self, *args, players: int, reads: int, **options) -> None:
        store = get_rank_store()
        original = leaderboard.KEY_PREFIX
        leaderboard.KEY_PREFIX = f"bench:{uuid.uuid4().hex}"
        board = Board(FASTEST, "penguin")  # any board: the scores are synthetic
        rng = random.Random(1)
        try:
            store.set(leaderboard.marker_key(board), leaderboard.BUILT, time.time())
            writes = []
            for i in tqdm(range(players), desc="writes", unit="player"):
                result = DailyResult(rng.random() < 0.6, rng.randrange(60_000, 3_600_000), 0)
                result = DailyResult(result.won, result.ms, 0 if result.won else rng.randrange(52))
                started = time.perf_counter()
                store.set(leaderboard.key(board), str(i + 1), daily_score(result))
                writes.append(time.perf_counter() - started)
            first, deep, mine = [], [], []
            pages = -(-players // 25)
            for _ in tqdm(range(reads), desc="reads", unit="read"):
                for bucket, page, who in (
                    (first, 1, None),
                    (deep, rng.randrange(1, pages + 1), None),
                    (mine, 1, rng.randrange(1, players + 1)),
                ):
                    started = time.perf_counter()
                    leaderboard.read_page(board, page, 25, who, store=store)
                    bucket.append(time.perf_counter() - started)
            kind = "Redis" if isinstance(store, RedisRankStore) else "in-process"
            self.stdout.write(f"{kind} store, {players} players, 25 rows a page")
            for name, values in [
                ("write one score", writes),
                ("read page 1", first),
                ("read a random page", deep),
                ("page 1 + own rank", mine),
            ]:
                self.stdout.write(summary(name, values))
        finally:
            store.delete(leaderboard.key(board))
            store.delete(leaderboard.marker_key(board))
            leaderboard.KEY_PREFIX = original
