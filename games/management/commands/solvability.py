"""How many random deals the solver wins, proves lost, or leaves open, with 95% intervals:
``manage.py solvability VARIANT --deals N --budget SECONDS [--start-seed S] [--json]``."""

import json

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.engine import VARIANTS, new_game
from games.solver import solve
from games.solver.report import Tally

ORDER = ("won", "lost", "unknown")


class Command(BaseCommand):
    help = (
        "Solve deals START, START+1, … of VARIANT (or 'all') and print won / lost / unknown "
        "counts with Wilson 95% intervals and the median and p95 time to a verdict."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("variant", help=f"one of: {', '.join(VARIANTS)}, or all")
        parser.add_argument("--deals", type=int, default=50, help="how many deals (default 50)")
        parser.add_argument(
            "--budget", type=float, default=10.0, help="seconds per deal (default 10)"
        )
        parser.add_argument("--start-seed", type=int, default=0, help="first seed (default 0)")
        parser.add_argument("--json", action="store_true", help="print exactly one JSON object")

    def handle(self, *args, variant: str, deals: int, budget: float, start_seed: int, **options):
        if variant != "all" and variant not in VARIANTS:
            raise CommandError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}, all")
        if deals < 1:
            raise CommandError("--deals must be at least 1")
        if budget <= 0:
            raise CommandError("--budget must be a positive number of seconds")
        if not 0 <= start_seed <= 2**63 - 1 - deals:
            raise CommandError("--start-seed must leave room for the deals below 2**63")
        variants = VARIANTS if variant == "all" else (variant,)
        quiet = options["verbosity"] == 0 or options["json"] and not self.stderr.isatty()
        summaries = {}
        for v in variants:
            tally = Tally()
            seeds = range(start_seed, start_seed + deals)
            for seed in tqdm(seeds, desc=v, unit="deal", disable=quiet):
                result = solve(new_game(v, seed), max_seconds=budget)
                tally.add(result.verdict, result.seconds)
            summaries[v] = tally.summary()
        if options["json"]:
            runs = {"budget_seconds": budget, "start_seed": start_seed, "variants": summaries}
            self.stdout.write(json.dumps(runs))
            return
        self.stdout.write(
            f"{deals} deals per variant (seeds {start_seed}–{start_seed + deals - 1}), "
            f"{budget:g} s each"
        )
        self.stdout.write(table(summaries))


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


def table(summaries: dict[str, dict]) -> str:
    """A Markdown table: one row per variant, each verdict as count, share and 95% CI."""
    head = "| variant | won | lost | unknown | median time to a verdict | p95 |"
    rows = [head, "|---|---|---|---|---|---|"]
    for variant, s in summaries.items():
        cells = []
        for verdict in ORDER:
            lo, hi = s["ci95"][verdict]
            count = s["counts"][verdict]
            cells.append(f"{count} ({count / s['deals']:.0%}; {lo:.0%}–{hi:.0%})")
        rows.append(
            f"| {variant} | {' | '.join(cells)} | {_seconds(s['median_seconds'])} "
            f"| {_seconds(s['p95_seconds'])} |"
        )
    return "\n".join(rows)
