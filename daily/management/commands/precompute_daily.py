"""Pick the daily deals of the coming days ahead of time (the solver may take a while)."""

import datetime as dt

from django.core.management.base import BaseCommand
from django.utils import timezone
from tqdm import tqdm

from daily.actions import get_challenge
from daily.dealpick import utc_day
from games.models import Variant


class Command(BaseCommand):
    help = "Pick and store the daily challenge of every variant for today and the next N days."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=7, help="Days after today (default 7).")

    def handle(self, *args, days: int, **options) -> None:
        today = utc_day(timezone.now())
        jobs = [
            (variant, today + dt.timedelta(days=offset))
            for offset in range(days + 1)
            for variant in Variant.values
        ]
        unproved = []
        for variant, day in tqdm(
            jobs, desc="daily deals", unit="deal", disable=options["verbosity"] == 0
        ):
            challenge = get_challenge(variant, day)
            if challenge.proof != challenge.Proof.WON:
                unproved.append(str(challenge))
        self.stdout.write(self.style.SUCCESS(f"{len(jobs)} daily deals ready."))
        if unproved:
            self.stdout.write(self.style.WARNING("Not proved winnable: " + ", ".join(unproved)))
