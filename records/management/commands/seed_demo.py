"""Fill a database with a realistic demo data set (records/demo.py): `make demo`, the benchmarks."""

import dataclasses

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from tqdm import tqdm

from games.models import Game, Player
from records.demo import Seeder, Sizes

DEFAULTS = Sizes()
SIZE_HELP = {
    "players": "Players in all",
    "account_share": "The share of players with an account (the rest are guests)",
    "days": "Days of daily challenges, today included",
    "daily_share": "The share of accounts playing a game's daily on an average day",
    "races": "Finished races",
    "games": "Games of every kind in all: practice games make up what dailies and races leave",
    "long_games": "Long games played on the engine, with real move logs",
    "long_moves": "Log rows of a long game",
}


class Command(BaseCommand):
    help = (
        "Seed players (accounts and guests), daily attempts over N days for all five games, "
        "races, practice games and a few long games with real move logs, then rebuild the boards."
    )

    def add_arguments(self, parser) -> None:
        for field in dataclasses.fields(Sizes):
            default = getattr(DEFAULTS, field.name)
            parser.add_argument(
                f"--{field.name.replace('_', '-')}",
                type=type(default),
                default=default,
                help=f"{SIZE_HELP[field.name]} (default {default}).",
            )
        parser.add_argument("--seed", type=int, default=1, help="The random seed of the data.")
        parser.add_argument(
            "--force",
            action="store_true",
            help="Seed even though the database already holds players.",
        )
        parser.add_argument(
            "--no-boards", action="store_true", help="Do not rebuild the leaderboards afterwards."
        )

    def handle(self, *args, **options) -> None:
        existing = Player.objects.count()
        if existing and not options["force"]:
            raise CommandError(
                f"This database already holds {existing} players; seed_demo adds demo data "
                "beside them only with --force (never against a database with real players)."
            )
        sizes = Sizes(**{field.name: options[field.name] for field in dataclasses.fields(Sizes)})
        if sizes.players < 1:
            raise CommandError("--players must be at least 1.")
        bar = tqdm(
            desc="seeding", total=sizes.games, unit=" games", disable=options["verbosity"] == 0
        )
        rows: dict[str, int] = {}

        def progress(what: str, count: int) -> None:
            if what == "games":
                bar.update(count)
            else:
                rows[what] = rows.get(what, 0) + count
                bar.set_postfix(rows, refresh=False)

        made = Seeder(sizes, options["seed"], progress).run()
        bar.close()
        if connection.vendor == "postgresql":
            # Statistics for the planner, and the visibility map for index-only scans: a bulk
            # load leaves both to autovacuum, which may come minutes later. VACUUM cannot run in
            # a transaction (a test's, or a caller's atomic block): there, the statistics only.
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE")
        if not options["no_boards"]:
            call_command("rebuild_leaderboards", verbosity=options["verbosity"])
        self.stdout.write(
            self.style.SUCCESS(
                f"Seeded {sizes.players} players, {sizes.days} days of dailies, "
                f"{sizes.races} races, {made} games ({Game.objects.count()} in the database)."
            )
        )
