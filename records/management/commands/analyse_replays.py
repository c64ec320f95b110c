"""Search the losing move of recently finished games that have no mark yet (the scheduler runs
this every minute; the web process's worker does most of them as games end). Like the worker,
it starts no search while the machine's cores are contended (`games.worker.catch_up`): live
play comes first, and the next run takes up what this one left."""

from django.core.management.base import BaseCommand

from games import worker
from records import analysis


class Command(BaseCommand):
    help = "Find and store the losing-move mark of recent finished games that lack one."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--recent", type=int, default=20_000, help="Look among the N newest games."
        )
        parser.add_argument(
            "--limit", type=int, default=50, help="Search at most this many games in one run."
        )
        parser.add_argument(
            "--budget",
            type=float,
            default=50.0,
            help="Stop starting searches after this many seconds (a run fits its minute).",
        )

    def handle(self, *args, recent: int, limit: int, budget: float, **options) -> None:
        keys = analysis.waiting(recent, limit)
        searched = worker.catch_up(keys, analysis.analyse, budget, self.stdout.write)
        self.stdout.write(f"analysed {searched} games")
