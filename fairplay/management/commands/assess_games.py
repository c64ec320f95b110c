"""Assess the recent ranked games that ended without an assessment (the scheduler runs this
every minute; the web process's worker assesses most of them as they end)."""

import time

from django.core.management.base import BaseCommand

from fairplay import assess


class Command(BaseCommand):
    help = "Assess the recent ended ranked games whose record has no fair-play assessment."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--recent", type=int, default=20_000, help="Among the N newest games.")
        parser.add_argument("--limit", type=int, default=50, help="At most this many a run.")
        parser.add_argument(
            "--budget", type=float, default=50.0, help="Start none after this many seconds."
        )

    def handle(self, *args, recent: int, limit: int, budget: float, **options) -> None:
        started = time.monotonic()
        made = 0
        for pk in assess.waiting(recent, limit):
            if time.monotonic() - started > budget:
                break
            assessment = assess.assess(pk)
            if assessment is not None:
                assess.after_assessment(assessment.pk)
                made += 1
        self.stdout.write(f"assessed {made} games")
