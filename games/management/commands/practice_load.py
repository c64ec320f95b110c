"""Load on the practice socket: N guests, each on its own deal, playing over /ws/game/.

Each guest is a browser: GET /play/<variant>/ (a new deal and a guest session), read the page's
board-config, open /ws/game/ with the session cookie, `open` the game, then play moves picked at
random from the `legal` list of the frame it last got (undoing when stuck, re-dealing after a
win), one move in flight at a time, at a set pace. Prints the move round trip (median, p95, p99)
and the throughput, then checks the database: every guest's game log holds exactly the moves it
had acknowledged (nothing lost, nothing twice). Only servers on this machine may be targeted.

    python manage.py practice_load http://127.0.0.1:8000 --players 50 --moves 40 --pace 0.1
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field

import websockets
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.engine import VARIANTS
from games.models import Game
from games.percentiles import percentile

CONFIG_PATTERN = re.compile(
    r'<script id="board-config" type="application/json">(.*?)</script>', re.S
)
ANSWER_TIMEOUT_S = 15.0


@dataclass
class Guest:
    """One simulated player and what the server acknowledged to it."""

    number: int
    variant: str
    game: str = ""
    seq: int = 0
    acked: int = 0
    errors: Counter = field(default_factory=Counter)
    round_trips_ms: list[float] = field(default_factory=list)


def open_page(base: str, variant: str) -> tuple[str, dict]:
    """A new deal's page as a new browser: (cookie header, board config)."""
    from scripts.loadtest import Browser

    browser = Browser(base)
    status, headers, _ = browser.request("GET", f"/play/{variant}/")
    if status != 302:
        raise CommandError(f"GET /play/{variant}/ answered {status}")
    status, _, page = browser.request("GET", headers["Location"])
    match = CONFIG_PATTERN.search(page)
    if status != 200 or match is None:
        raise CommandError(f"GET {headers['Location']} answered {status} without a board config")
    return browser.cookie_header(), json.loads(match.group(1))


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
            await ws.send(json.dumps(message))
            answer = json.loads(await asyncio.wait_for(ws.recv(), ANSWER_TIMEOUT_S))
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


def verify(guests: list[Guest]) -> tuple[int, list[str]]:
    """Games whose stored log matches what their guest was acknowledged; the mismatches."""
    games = {g.public_id: g for g in Game.objects.filter(public_id__in=[x.game for x in guests])}
    bad = []
    for guest in guests:
        game = games.get(guest.game)
        if game is None:
            bad.append(f"{guest.game}: not in this database")
        elif (game.seq, game.moves.count()) != (guest.seq, guest.seq):
            bad.append(f"{guest.game}: stored {game.seq}, acknowledged {guest.seq}")
    return len(guests) - len(bad), bad


class Command(BaseCommand):
    help = "Load the practice socket of a local server and print round-trip figures."

    def add_arguments(self, parser) -> None:
        parser.add_argument("url", help="a server on this machine, e.g. http://127.0.0.1:8000")
        parser.add_argument("--players", type=int, default=50)
        parser.add_argument("--moves", type=int, default=40, help="moves per player")
        parser.add_argument("--pace", type=float, default=0.1, help="seconds between moves")
        parser.add_argument("--no-verify", action="store_true", help="skip the database check")

    def handle(self, *args, **options) -> None:
        from scripts.servers import check_local

        try:
            base = check_local(options["url"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if not 1 <= options["players"] <= 2000:
            raise CommandError("--players must be 1 to 2000")
        guests = [Guest(n, VARIANTS[n % len(VARIANTS)]) for n in range(options["players"])]
        total = options["players"] * options["moves"]
        started = time.perf_counter()
        with tqdm(total=total, desc="moves", unit="move") as progress:

            async def run_all():
                return await asyncio.gather(
                    *(play(base, g, options["moves"], options["pace"], progress) for g in guests),
                    return_exceptions=True,
                )

            outcomes = asyncio.run(run_all())
        wall = time.perf_counter() - started
        failures = Counter(type(o).__name__ for o in outcomes if isinstance(o, BaseException))
        trips = [t for g in guests for t in g.round_trips_ms]
        errors = sum((g.errors for g in guests), Counter())
        self.stdout.write(
            f"players {len(guests)}, failed {sum(failures.values())} {dict(failures)}"
        )
        self.stdout.write(
            f"frames answered {len(trips)}, log entries acked {sum(g.acked for g in guests)}"
        )
        self.stdout.write(f"error frames {dict(errors) or 0}")
        if trips:
            self.stdout.write(
                f"round trip ms: median {percentile(trips, 50):.1f}  p95 {percentile(trips, 95):.1f}  p99 {percentile(trips, 99):.1f}  max {max(trips):.1f}"
            )
            self.stdout.write(f"throughput {len(trips) / wall:.1f} moves/s over {wall:.1f} s")
        if not options["no_verify"]:
            good, bad = verify([g for g in guests if g.game])
            self.stdout.write(f"database check: {good} logs match what was acknowledged")
            for line in bad[:10]:
                self.stdout.write(f"  MISMATCH {line}")
            if bad:
                raise CommandError(f"{len(bad)} game logs differ from what was acknowledged")
