"""Solve one deal: ``manage.py solve VARIANT SEED [--budget SECONDS] [--nodes N] [--json]``.

A built Eighty Thieves deal is answered at once with its known winning line (games.solver.proofs:
the shipped one of an open deal, else its construction's), without a search (0 positions)."""

import json
import os
import sys

from django.core.management.base import BaseCommand, CommandError

from games.engine import VARIANTS, new_game
from games.solver import SolveResult, Verdict, solve
from games.solver.proofs import known_line


def deal_of(variant: str, seed: str | int):
    """The engine game of (variant, seed), or a CommandError that says what is wrong."""
    if variant not in VARIANTS:
        raise CommandError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    try:
        return new_game(variant, int(seed))
    except (TypeError, ValueError) as exc:
        raise CommandError(f"bad seed {seed!r}: a seed is an integer from 0 to 2**63-1") from exc


class Command(BaseCommand):
    help = "Solve the deal of VARIANT and SEED: print the verdict and the winning line."

    def add_arguments(self, parser) -> None:
        parser.add_argument("variant", help=f"one of: {', '.join(VARIANTS)}")
        parser.add_argument("seed", help="the deal's seed (0 to 2**63-1)")
        parser.add_argument(
            "--budget", type=float, default=10.0, help="seconds of search (default 10)"
        )
        parser.add_argument("--nodes", type=int, default=None, help="cap on positions searched")
        parser.add_argument("--json", action="store_true", help="print exactly one JSON object")

    def handle(self, *args, variant: str, seed: str, budget: float, nodes, **options) -> None:
        if budget <= 0:
            raise CommandError("--budget must be a positive number of seconds")
        game = deal_of(variant, seed)
        line = known_line(variant, game.seed)
        if line is not None:
            result = SolveResult(Verdict.WON, line, 0, 0.0)
        else:
            result = solve(game, max_seconds=budget, max_nodes=nodes)
        try:
            self.report(variant, game, result, options["json"])
        except BrokenPipeError:
            # The reader went away (`solve … | head`): stop quietly, and let the interpreter's
            # last flush at exit go nowhere instead of raising again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def report(self, variant: str, game, result, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(result.to_json()))
            return
        how = (
            "a known line: the deal was built backwards from a win"
            if result.nodes == 0
            else f"{result.nodes} positions, {result.seconds:.2f} s"
        )
        self.stdout.write(f"{variant} seed {game.seed}: {result.verdict} ({how})")
        if result.moves:
            self.stdout.write(f"{len(result.moves)} moves:")
            for start in range(0, len(result.moves), 12):
                self.stdout.write("  " + " ".join(result.moves[start : start + 12]))
