"""Assess the recent ranked games that ended without an assessment (the scheduler runs this
every minute; the web process's worker assesses most of them as they end). Like the worker, it
starts no assessment while the machine's cores are contended (`games.worker.catch_up`): live
play comes first, and the next run takes up what this one left."""

from django.core.management.base import BaseCommand

from fairplay import assess
from games import worker


def assess_one(game_pk: int) -> int:
    """One game's assessment and what follows it; 1 if one was made."""
    assessment = assess.assess(game_pk)
    if assessment is None:
        return 0
    assess.after_assessment(assessment.pk)
    return 1


class Command(BaseCommand):
    help = "Assess the recent ended ranked games whose record has no fair-play assessment."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--recent", type=int, default=20_000, help="Among the N newest games.")
        parser.add_argument("--limit", type=int, default=50, help="At most this many a run.")
        parser.add_argument(
            "--budget", type=float, default=50.0, help="Start none after this many seconds."
        )

    def handle(self, *args, recent: int, limit: int, budget: float, **options) -> None:
        keys = assess.waiting(recent, limit)
        made = worker.catch_up(keys, assess_one, budget, self.stdout.write)
        self.stdout.write(f"assessed {made} games")
