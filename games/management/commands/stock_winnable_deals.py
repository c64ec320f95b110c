"""Fill the pools of proved-winnable deals ahead of time (games/winnable.py):
``manage.py stock_winnable_deals [VARIANT ...] [--size N] [--budget SECONDS]``.

Run it after a deployment (and whenever the pools ran low): every "winnable deal" is then
dealt at once. Each pool is also topped up in the background after every deal taken from it.
A race pool is stocked as deep as the arenas coming within the hour want (a quarter of the
players who joined them: `games.winnable.pool_target`); the scheduler runs this every 5
minutes, so a crowd that joins an arena ahead finds a deal for each of its first races. Past a
pool's own size, the search stops while the cores are contended (live play first).
Eighty Thieves has no pool: its winnable deals are built deals, dealt at once (games/winnable.py).
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.engine import VARIANTS
from games.winnable import (
    BUILT,
    POOL_SIZES,
    Use,
    offers_winnable,
    pool_size,
    pool_target,
    refill,
)


class Command(BaseCommand):
    help = (
        "Search winnable deals until each pool (practice and race, per variant) is full (its "
        "own size, or --size); prints what each pool holds."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("variants", nargs="*", help=f"any of: {', '.join(VARIANTS)} (all)")
        parser.add_argument(
            "--size",
            type=int,
            help="deals per pool (default: each pool's own, "
            + ", ".join(f"{use} {size}" for use, size in POOL_SIZES.items())
            + ", a race pool deeper for the arenas coming)",
        )
        parser.add_argument(
            "--budget",
            type=float,
            default=120.0,
            help="seconds of search per pool at the most (default 120)",
        )

    def handle(self, *args, variants: list[str], size: int | None, budget: float, **options):
        unknown = [v for v in variants if v not in VARIANTS]
        if unknown:
            raise CommandError(f"unknown variant {unknown[0]!r}; known: {', '.join(VARIANTS)}")
        if size is not None and size < 1:
            raise CommandError("--size must be at least 1")
        if budget <= 0:
            raise CommandError("--budget must be a positive number of seconds")
        quiet = options["verbosity"] == 0
        rows = []
        for variant in variants or VARIANTS:
            for use in Use.values:
                if not offers_winnable(variant):
                    rows.append((variant, use, 0, "not offered: never proved winnable"))
                    continue
                if variant in BUILT:
                    rows.append((variant, use, 0, "no pool needed: built deals, dealt at once"))
                    continue
                have, wanted = pool_size(variant, use), size or pool_target(variant, use)
                tally: dict = {}
                with tqdm(
                    total=wanted, initial=min(have, wanted), desc=f"{variant} {use}", disable=quiet
                ) as bar:
                    added = refill(
                        variant, use, wanted, budget, on_found=lambda: bar.update(1), tally=tally
                    )
                held = pool_size(variant, use)
                if held >= wanted:
                    note = "full"
                elif tally.get("yielded"):
                    note = f"short of {wanted}: stopped, the cores are contended (live play first)"
                else:
                    note = f"short of {wanted}: {budget:g} s of search were not enough"
                rows.append((variant, use, held, f"{added} added, {note}"))
        self.stdout.write("| variant | use | deals | |\n|---|---|---|---|")
        for variant, use, held, note in rows:
            self.stdout.write(f"| {variant} | {use} | {held} | {note} |")
