"""How far the solver gets on random Eighty Thieves deals: verdicts, and the best line's cards home.

For each seed the solver runs with a budget of CPU seconds (``time.process_time``: on a shared
machine a wall-clock budget would measure the other jobs), and one JSON line is written per
deal: seed, verdict, CPU seconds, positions, and the most cards home in any position the search
met (a line from the deal reaches it). Then the summary: the share proved won (a lower bound,
with its Wilson 95% interval), proved lost, and the median, p10 and p90 of the best line's
cards home. Run it at the lowest priority:

    nice -n 19 .venv/bin/python scripts/eighty_thieves_figures.py --seeds 0-119 --budget 10 \\
        --out /tmp/et10.jsonl
    .venv/bin/python scripts/eighty_thieves_figures.py --summary /tmp/et10.jsonl

``--out`` appends and skips seeds already in the file, so a run can be stopped and resumed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import new_game  # noqa: E402
from games.percentiles import percentile  # noqa: E402
from games.solver.report import wilson  # noqa: E402
from games.solver.search import search  # noqa: E402
from games.solver.variants.eighty_thieves import EightyThievesRules  # noqa: E402

VARIANT = "eighty-thieves"


def measure(seed: int, budget_s: float) -> dict:
    """One deal: the verdict within ``budget_s`` CPU seconds and the best line's cards home."""
    rules = EightyThievesRules(new_game(VARIANT, seed).to_dict())
    result = search(rules, max_seconds=budget_s, clock=time.process_time)
    home = 208 if result.verdict == "won" else rules.best_home
    return {
        "seed": seed,
        "budget_cpu_s": budget_s,
        "verdict": str(result.verdict),
        "cpu_s": round(result.seconds, 2),
        "nodes": result.nodes,
        "best_home": home,
    }


def summary(rows: list[dict]) -> dict:
    """Shares of verdicts with intervals, and the distribution of the best line's cards home."""
    n = len(rows)
    out: dict = {"deals": n, "budgets_cpu_s": sorted({r["budget_cpu_s"] for r in rows})}
    for verdict in ("won", "lost"):
        count = sum(r["verdict"] == verdict for r in rows)
        lo, hi = wilson(count, n)
        out[verdict] = {"count": count, "share": count / n if n else 0.0, "ci95": [lo, hi]}
    homes = [r["best_home"] for r in rows]
    out["best_home"] = {
        "p10": percentile(homes, 10),
        "median": percentile(homes, 50),
        "p90": percentile(homes, 90),
        "min": min(homes, default=None),
        "max": max(homes, default=None),
    }
    return out


def seed_range(text: str) -> range:
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seed_range, help="FIRST-LAST, e.g. 0-119")
    parser.add_argument("--budget", type=float, default=10.0, help="CPU seconds a deal")
    parser.add_argument("--out", type=Path, help="JSON lines file to append to (resumable)")
    parser.add_argument("--summary", type=Path, nargs="*", help="summarise these files")
    args = parser.parse_args(argv)
    if args.summary:
        rows = [json.loads(line) for path in args.summary for line in path.read_text().splitlines()]
        print(json.dumps(summary(rows), indent=1))
        return
    done = set()
    if args.out and args.out.exists():
        done = {json.loads(line)["seed"] for line in args.out.read_text().splitlines()}
    rows = []
    for seed in args.seeds or ():
        if seed in done:
            continue
        row = measure(seed, args.budget)
        rows.append(row)
        line = json.dumps(row)
        print(line, flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(line + "\n")
    print(json.dumps(summary(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
