"""Rebuild the live leaderboards from the database: the only way a board is built (requests
never do; the scheduler runs this with ``--missing`` every minute and ``--days 2`` hourly)."""

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone
from tqdm import tqdm

from daily.dealpick import utc_day
from daily.models import DailyChallenge
from games.models import Variant
from records import leaderboard, streakbook
from records.boards import ALL_TIME, DAILY, Board


class Command(BaseCommand):
    help = (
        "Rebuild the daily and all-time leaderboards (and the boards the apps above add, such "
        "as the arenas') in the rank store from the database."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="Only the daily boards of the last N days (default: every day on record).",
        )
        parser.add_argument(
            "--missing",
            action="store_true",
            help="Only boards the store has not built (its marker is gone: Redis came back "
            "empty), among the all-time boards and the days a daily board stays in Redis.",
        )

    def handle(self, *args, days: int | None = None, missing: bool = False, **options) -> None:
        full = days is None and not missing
        if full:  # everything from the record: the streaks too, counted from every win
            streaks = streakbook.recount_all()
            self.stdout.write(f"Counted {streaks} streaks.")
        boards = [Board(kind, variant) for variant in Variant.values for kind in ALL_TIME]
        challenges = DailyChallenge.objects.order_by("-day", "variant")
        if missing:
            kept = timedelta(seconds=leaderboard.PAST_DAY_TTL) + timedelta(days=1)
            challenges = challenges.filter(day__gte=utc_day(timezone.now()) - kept)
        elif days is not None:
            latest = challenges.values_list("day", flat=True).first()
            if latest is not None:
                challenges = challenges.filter(day__gt=latest - timedelta(days=days))
        boards += [Board(DAILY, c.variant, c.day) for c in challenges.only("variant", "day")]
        if missing:
            boards = [board for board in boards if not leaderboard.is_built(board)]
        entries = 0
        for board in tqdm(boards, desc="boards", unit="board", disable=options["verbosity"] == 0):
            entries += leaderboard.rebuild(board)
        built = len(boards)
        for rebuild_more in leaderboard.MORE_BOARDS:  # the apps above's (an arena's)
            more, more_entries = rebuild_more(missing)
            built, entries = built + more, entries + more_entries
        self.stdout.write(self.style.SUCCESS(f"Rebuilt {built} boards, {entries} entries."))
