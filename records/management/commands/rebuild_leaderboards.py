"""Rebuild the live leaderboards from the database: the only way a board is built (requests
never do; the scheduler runs this with ``--missing`` every minute and ``--days 2`` hourly).
``--arena ID`` rebuilds that arena's board alone."""

import functools
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
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
        for more in leaderboard.MORE_BOARDS:  # the apps above's: --arena
            parser.add_argument(
                f"--{more.name}",
                metavar="ID",
                dest=f"one_{more.name}",
                help=f"Only the board of this {more.name} (its public id; write --{more.name}=ID "
                "for one that starts with '-'), whole, among those the store keeps; nothing else.",
            )

    def handle(self, *args, days: int | None = None, missing: bool = False, **options) -> None:
        named = [(more, options[f"one_{more.name}"]) for more in leaderboard.MORE_BOARDS]
        named = [(more, board_id) for more, board_id in named if board_id is not None]
        if named:
            self.rebuild_one(named, days, missing)
            return
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
        rebuilds = [functools.partial(leaderboard.rebuild, board) for board in boards]
        for more in leaderboard.MORE_BOARDS:  # the apps above's (an arena's)
            rebuilds += more.kept(missing).values()
        entries = 0
        # One running count over every board, the apps above's too.
        for rebuild in tqdm(
            rebuilds, desc="boards", unit="board", disable=options["verbosity"] == 0
        ):
            entries += rebuild()
        self.stdout.write(self.style.SUCCESS(f"Rebuilt {len(rebuilds)} boards, {entries} entries."))

    def rebuild_one(self, named: list, days: int | None, missing: bool) -> None:
        """The one board named (`--arena ID`), whole; refused, with nothing rebuilt, for an id
        the store keeps no board of, or beside another choice of boards."""
        more, board_id = named[0]
        if len(named) > 1 or days is not None or missing:
            raise CommandError(
                f"--{more.name} rebuilds one board: not with --days, --missing or another one"
            )
        rebuild = more.kept(False).get(board_id)
        if rebuild is None:
            raise CommandError(f"no {more.name} with the id {board_id!r} has a board in the store")
        entries = rebuild()
        self.stdout.write(
            self.style.SUCCESS(f"Rebuilt the board of {more.name} {board_id}, {entries} entries.")
        )
