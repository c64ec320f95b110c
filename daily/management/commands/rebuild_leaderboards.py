"""Rebuild every live leaderboard from the database (after losing Redis, or to check it)."""

from datetime import timedelta

from django.core.management.base import BaseCommand
from tqdm import tqdm

from daily import leaderboard
from daily.boards import ALL_TIME, DAILY, Board
from daily.models import DailyChallenge
from games.models import Variant


class Command(BaseCommand):
    help = "Rebuild the daily and all-time leaderboards in the rank store from the database."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="Only the daily boards of the last N days (default: every day on record).",
        )

    def handle(self, *args, days: int | None = None, **options) -> None:
        boards = [Board(kind, variant) for variant in Variant.values for kind in ALL_TIME]
        challenges = DailyChallenge.objects.order_by("-day", "variant")
        if days is not None:
            latest = challenges.values_list("day", flat=True).first()
            if latest is not None:
                challenges = challenges.filter(day__gt=latest - timedelta(days=days))
        boards += [Board(DAILY, c.variant, c.day) for c in challenges.only("variant", "day")]
        entries = 0
        for board in tqdm(boards, desc="boards", unit="board", disable=options["verbosity"] == 0):
            entries += leaderboard.rebuild(board)
        self.stdout.write(self.style.SUCCESS(f"Rebuilt {len(boards)} boards, {entries} entries."))
