"""Load on the practice socket: N guests, each on its own deal, playing over /ws/game/.

Each guest is a browser: GET /play/<variant>/ (a new deal), POST the deal (its first action: a
guest session and the game), read the page's board-config, open /ws/game/ with the session
cookie, `open` the game, then play moves picked at random from the `legal` list of the frame it
last got (undoing when stuck, re-dealing after a win), one move in flight at a time, at a set
pace. A move answered `unavailable` (the server could not make it durable and applied nothing)
is sent again after the `retry_ms` it names.
Prints the move round trip (median, p95, p99) and the throughput, then checks the database:
every guest's game log holds exactly the moves it had acknowledged (nothing lost, nothing
twice). Only servers on this machine may be targeted.

    python scripts/practice_load.py http://127.0.0.1:8000 --players 50 --moves 40 --pace 0.1

The database to check is the server's: `--database-url`, else $DATABASE_URL, else the
settings' default (db.sqlite3 in the project folder).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from tqdm import tqdm

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import VARIANTS
from games.percentiles import percentile
from scripts.client import Browser, query
from scripts.servers import ROOT, check_local

CONFIG_PATTERN = re.compile(
    r'<script id="board-config" type="application/json">(.*?)</script>', re.S
)
ANSWER_TIMEOUT_S = 15.0
MAX_PLAYERS = 2000


class LoadError(Exception):
    """The run cannot go on (a page that did not answer as a browser expects)."""


@dataclass
class Guest:
    """One simulated player and what the server acknowledged to it."""

    number: int
    variant: str
    game: str = ""
    seq: int = 0
    acked: int = 0
    unavailable_retries: int = 0
    errors: Counter = field(default_factory=Counter)
    round_trips_ms: list[float] = field(default_factory=list)


def open_page(base: str, variant: str) -> tuple[str, dict]:
    """A new deal's page as a new browser: (cookie header, board config)."""
    browser = Browser(base)
    status, headers, _ = browser.request("GET", f"/play/{variant}/")
    if status != 302:
        raise LoadError(f"GET /play/{variant}/ answered {status}")
    deal = headers["Location"]
    browser.request("GET", deal)  # the page writes nothing: the first action's POST starts it
    status, _, _ = browser.request("POST", deal, {})
    if status != 302:
        raise LoadError(f"POST {deal} (the first action) answered {status}")
    status, _, page = browser.request("GET", deal)
    match = CONFIG_PATTERN.search(page)
    if status != 200 or match is None:
        raise LoadError(f"GET {headers['Location']} answered {status} without a board config")
    return browser.cookie_header(), json.loads(match.group(1))


async def answer_to(ws, message: dict, guest: Guest) -> dict:
    """Send a move and wait for its answer; an `unavailable` refusal is waited out and the same
    frame sent again (nothing was applied), as the page does."""
    while True:
        await ws.send(json.dumps(message))
        answer = json.loads(await asyncio.wait_for(ws.recv(), ANSWER_TIMEOUT_S))
        if answer.get("type") != "error" or answer.get("code") != "unavailable":
            return answer
        guest.unavailable_retries += 1
        await asyncio.sleep(answer.get("retry_ms", 1000) / 1000)


async def play(base: str, guest: Guest, moves: int, pace: float, progress: tqdm) -> None:
    cookie, config = await asyncio.to_thread(open_page, base, guest.variant)
    guest.game = config["game"]
    ws_url = base.replace("http", "ws", 1) + config["ws_path"]
    async with websockets.connect(
        ws_url, origin=base, additional_headers={"Cookie": cookie}, max_size=2**22
    ) as ws:
        await ws.send(json.dumps({"type": "open", "game": guest.game}))
        frame = json.loads(await asyncio.wait_for(ws.recv(), ANSWER_TIMEOUT_S))
        rng = random.Random(guest.number)
        for _ in range(moves):
            if frame.get("status") == "won" or not (frame["legal"] or frame["can_undo"]):
                break  # won, or a deal with no move at all
            if frame["legal"]:
                message = {"type": "move", "move": rng.choice(frame["legal"])}
            else:
                message = {"type": "undo"}
            message["seq"] = guest.seq
            started = time.perf_counter()
            answer = await answer_to(ws, message, guest)
            guest.round_trips_ms.append((time.perf_counter() - started) * 1000)
            if answer["type"] == "ack":
                guest.acked += len(answer["played"])
                guest.seq = answer["seq"]
                frame = answer
            else:
                guest.errors[answer.get("code", answer["type"])] += 1
            progress.update()
            if pace:
                await asyncio.sleep(pace)


def verify(guests: list[Guest], database_url: str) -> tuple[int, list[str]]:
    """Games whose stored log matches what their guest was acknowledged; the mismatches."""
    if not guests:
        return 0, []
    marks = ", ".join(["%s"] * len(guests))
    rows = query(
        database_url,
        "SELECT g.public_id, g.seq, COUNT(m.id) FROM games_game g "
        "LEFT JOIN games_move m ON m.game_id = g.id "
        f"WHERE g.public_id IN ({marks}) GROUP BY g.public_id, g.seq",
        [g.game for g in guests],
    )
    stored = {public_id: (seq, count) for public_id, seq, count in rows}
    bad = []
    for guest in guests:
        found = stored.get(guest.game)
        if found is None:
            bad.append(f"{guest.game}: not in this database")
        elif found != (guest.seq, guest.seq):
            bad.append(f"{guest.game}: stored {found[0]}, acknowledged {guest.seq}")
    return len(guests) - len(bad), bad


def parse_args(argv: list[str] | None = None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="a server on this machine, e.g. http://127.0.0.1:8000")
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--moves", type=int, default=40, help="moves per player")
    parser.add_argument("--pace", type=float, default=0.1, help="seconds between moves")
    parser.add_argument("--no-verify", action="store_true", help="skip the database check")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or f"sqlite:///{ROOT / 'db.sqlite3'}",
        help="the server's database, for the check (default: $DATABASE_URL, else db.sqlite3)",
    )
    args = parser.parse_args(argv)
    try:
        args.url = check_local(args.url)
    except ValueError as exc:
        parser.error(str(exc))
    if not 1 <= args.players <= MAX_PLAYERS:
        parser.error(f"--players must be 1 to {MAX_PLAYERS}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    guests = [Guest(n, VARIANTS[n % len(VARIANTS)]) for n in range(args.players)]
    started = time.perf_counter()
    with tqdm(total=args.players * args.moves, desc="moves", unit="move") as progress:

        async def run_all():
            return await asyncio.gather(
                *(play(args.url, g, args.moves, args.pace, progress) for g in guests),
                return_exceptions=True,
            )

        outcomes = asyncio.run(run_all())
    wall = time.perf_counter() - started
    failures = Counter(type(o).__name__ for o in outcomes if isinstance(o, BaseException))
    trips = [t for g in guests for t in g.round_trips_ms]
    errors = sum((g.errors for g in guests), Counter())
    print(f"players {len(guests)}, failed {sum(failures.values())} {dict(failures)}")
    print(f"frames answered {len(trips)}, log entries acked {sum(g.acked for g in guests)}")
    print(
        f"error frames {dict(errors) or 0}; resent after `unavailable` "
        f"{sum(g.unavailable_retries for g in guests)}"
    )
    if trips:
        print(
            f"round trip ms: median {percentile(trips, 50):.1f}  p95 {percentile(trips, 95):.1f}"
            f"  p99 {percentile(trips, 99):.1f}  max {max(trips):.1f}"
        )
        print(f"throughput {len(trips) / wall:.1f} moves/s over {wall:.1f} s")
    if not args.no_verify:
        good, bad = verify([g for g in guests if g.game], args.database_url)
        print(f"database check: {good} logs match what was acknowledged")
        for line in bad[:10]:
            print(f"  MISMATCH {line}")
        if bad:
            print(f"{len(bad)} game logs differ from what was acknowledged", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
