"""A known load beside a benchmark: how much room the machine leaves a run (docs/performance.md,
"What stands in the way").

    python scripts/burner.py SHARE [--period S] [--seconds S]

It takes SHARE of one core (0 to 1) in CPU time: in each period, SHARE of it busy in pure
Python, then asleep to the period's end (if it got less than it asked for, the machine was
full). A period of 0.01 s is a steady load; a period of 20 s a wave, a whole core for
SHARE x 20 s and then nothing. Start one or more beside `scripts/loadtest.py`, under `nice`
for a lower priority; each prints, when stopped (Ctrl-C, SIGTERM, or after --seconds), the
CPU it took and its share of a core over its wall time.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("share", type=float, help="of one core, 0 to 1")
    parser.add_argument("--period", type=float, default=0.01, help="seconds (default 0.01)")
    parser.add_argument("--seconds", type=float, default=0, help="stop after (default: never)")
    args = parser.parse_args(argv)
    if not 0 < args.share <= 1 or args.period <= 0:
        parser.error("the share is of one core (0 to 1), the period over 0 s")
    return args


def burn(share: float, period: float, until: float) -> None:
    """Each period: `share` of it in CPU time, then sleep to its end (or on at once, if the
    period is over already)."""
    boundary = time.monotonic()
    while until <= 0 or time.monotonic() < until:
        began = time.process_time()
        while time.process_time() - began < share * period:
            pass
        boundary += period
        rest = boundary - time.monotonic()
        if rest > 0:
            time.sleep(rest)
        else:
            boundary = time.monotonic()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    wall, cpu = time.monotonic(), time.process_time()

    def report(*_) -> None:
        took, lasted = time.process_time() - cpu, time.monotonic() - wall
        print(f"burner: {took:.1f} CPU-s in {lasted:.1f} s, {took / lasted:.2f} of a core")
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)
    signal.signal(signal.SIGINT, report)
    burn(args.share, args.period, time.monotonic() + args.seconds if args.seconds else 0)
    report()


if __name__ == "__main__":
    main()
