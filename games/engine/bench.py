"""Steps per second per variant: ``python -m games.engine.bench [--seconds S] [--repeat R]``.

A step is one ``legal_moves()`` and one ``play()`` of a move chosen at random from it, over
seeded random playouts. A playout restarts with the next seed's deal when the game is won or
stuck, or after ``--max-playout`` steps (random play can circle for ever). Dealing the new
games is inside the timed loop.
"""

import argparse
import random
import statistics
import time

from tqdm import tqdm

from . import VARIANTS, new_game


def run(
    variant: str, seconds: float, max_playout: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """Play random steps for about ``seconds``; return the steps per wall-clock second and per
    second of this process's CPU time (the second is steadier while others share the CPU)."""
    rng = random.Random(seed)
    deal = seed
    game = new_game(variant, deal)
    playout = 0
    steps = 0
    clock = time.perf_counter
    start = clock()
    cpu_start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(200):
            moves = game.legal_moves()
            while not moves or playout >= max_playout:
                deal += 1
                game = new_game(variant, deal)
                playout = 0
                moves = game.legal_moves()
            game.play(moves[int(rng.random() * len(moves))])
            playout += 1
            steps += 1
        now = clock()
        if now >= deadline:
            return steps / (now - start), steps / max(time.process_time() - cpu_start, 1e-9)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", metavar="variant", help="default: all five")
    parser.add_argument("--seconds", type=float, default=2.0, help="per run (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant (default 3)")
    parser.add_argument("--max-playout", type=int, default=1000)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.variants) - set(VARIANTS))
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    args.variants = args.variants or list(VARIANTS)
    results = {}
    with tqdm(total=len(args.variants) * args.repeat, desc="bench", unit="run") as bar:
        for variant in args.variants:
            rates = []
            for r in range(args.repeat):
                rates.append(run(variant, args.seconds, args.max_playout, seed=r))
                bar.update()
            results[variant] = rates
    print(f"steps per second, {args.repeat} runs of {args.seconds:g} s per variant")
    print(f"{'variant':16} {'median':>9} {'best':>9} {'worst':>9}   {'per CPU-second':>14}")
    for variant, runs in results.items():
        wall = [w for w, _ in runs]
        cpu = statistics.median(c for _, c in runs)
        print(
            f"{variant:16} {statistics.median(wall):9,.0f} {max(wall):9,.0f} "
            f"{min(wall):9,.0f}   {cpu:14,.0f}"
        )


if __name__ == "__main__":
    main()
