"""Bots and simulated people, for the fair-play rules (fairplay/rules.py, docs/fair-play.md).

Three bots, as issue 26 names them, each a way of choosing moves and a pace:

- `solver_fastest`: the solver's winning line, at the fastest pace the server accepts (a socket
  may send 30 frames in any 5 s, games/sockets.py `FrameBudget`: one move every 5/29 s);
- `solver_waits`: the same line with random waits of 0.3-0.7 s;
- `greedy`: a legal move, foundation moves first, at 3 moves a second.

And people (`human_pace`): think times drawn from a long-tailed (log-normal) distribution, with
quick follow-ups (a card sent home right after the move that freed it), pauses of seconds, the
odd undo, and a fast expert who keeps about 1.5 moves a second over a whole game.

Two ways to use them:

- simulated (`simulated_record`): the server's record of a game as the rules read it, the
  server's times being the client's sends plus the network's transit. Pure and fast: the tests
  judge thousands of games this way.
- live (`play_daily`, `play_quick_race`, and `main`): a bot signs up, then plays today's daily
  or a rated quick race over the real websockets, exactly as the page does (scripts/client.py's
  Browser for the pages, `websockets` for the socket). It reads the position from the `state`
  frames' view, so it plays Penguin (every card face up: `Game.from_dict` of the view is the
  position) with the solver; the greedy bot plays any variant from the frame's `legal` list.

    python scripts/bots.py play http://127.0.0.1:8000 solver_fastest --daily penguin
    python scripts/bots.py play http://127.0.0.1:8000 greedy --quick penguin --players 2
    python scripts/bots.py simulate --games 10000     # the rules' verdicts, per kind of player
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from daily.dealpick import budget as daily_budget
from fairplay.rules import Record
from games.engine import Game
from games.solver import Verdict, solve

FRAMES_PER_WINDOW = 29
"""One under the socket's frame budget (30 in 5 s): the fastest pace the server accepts."""

FRAME_WINDOW_S = 5.0

Pace = Callable[[random.Random], Iterator[float]]
"""A pace: given a random source, the wait before each action, in seconds."""


# ------------------------------------------------------------------ paces


def fastest(rng: random.Random) -> Iterator[float]:
    """The solver bot (a): as fast as the frame budget lets one socket send."""
    while True:
        yield FRAME_WINDOW_S / FRAMES_PER_WINDOW


def random_waits(rng: random.Random) -> Iterator[float]:
    """The solver bot (b): a wait of 0.3-0.7 s before each move."""
    while True:
        yield rng.uniform(0.3, 0.7)


def three_a_second(rng: random.Random) -> Iterator[float]:
    """The greedy bot (c): 3 moves a second."""
    while True:
        yield 1 / 3


@dataclass(frozen=True)
class Person:
    """How one person plays a game: think times log-normal around `median_s` (spread `sigma`),
    a quick follow-up (0.18-0.6 s) with probability `follow`, a pause of `pause_s` seconds with
    probability `pause`, an undo (soon after the move it takes back) with probability `undo`."""

    median_s: float
    sigma: float
    follow: float
    pause: float
    pause_s: tuple[float, float]
    undo: float

    def waits(self, rng: random.Random) -> Iterator[tuple[float, bool]]:
        """(wait, is an undo) for each action."""
        while True:
            if rng.random() < self.undo:
                yield rng.uniform(0.4, 1.5), True
            elif rng.random() < self.follow:
                yield rng.uniform(0.18, 0.6), False
            elif rng.random() < self.pause:
                yield rng.uniform(*self.pause_s), False
            else:
                yield rng.lognormvariate(math.log(self.median_s), self.sigma), False


def fast_expert(rng: random.Random) -> Person:
    """About 1.5 moves a second over a whole game: quick thinks, many follow-ups, short pauses."""
    return Person(
        median_s=rng.uniform(0.55, 0.65),
        sigma=rng.uniform(0.45, 0.7),
        follow=rng.uniform(0.15, 0.3),
        pause=rng.uniform(0.01, 0.03),
        pause_s=(1.5, 5.0),
        undo=rng.uniform(0.0, 0.03),
    )


def ordinary_player(rng: random.Random) -> Person:
    """Anyone from quick to slow: a median think of 0.7-4 s, pauses of 3-20 s."""
    return Person(
        median_s=math.exp(rng.uniform(math.log(0.7), math.log(4.0))),
        sigma=rng.uniform(0.5, 1.0),
        follow=rng.uniform(0.05, 0.3),
        pause=rng.uniform(0.01, 0.06),
        pause_s=(3.0, 20.0),
        undo=rng.uniform(0.0, 0.05),
    )


def person(rng: random.Random) -> Person:
    """A person from the population the false-hold rate is measured on: one in four a fast
    expert."""
    return fast_expert(rng) if rng.random() < 0.25 else ordinary_player(rng)


def with_pauses(pace: Pace) -> Pace:
    """A bot that hides its pace: one wait in ten is 1-5 s longer, as a person's pauses are."""

    def waits(rng: random.Random) -> Iterator[float]:
        for wait in pace(rng):
            yield wait + (rng.uniform(1, 5) if rng.random() < 0.1 else 0.0)

    return waits


# ------------------------------------------------------------------ the simulated record


def transit_s(rng: random.Random) -> float:
    """A frame's way from the client to the server's store: 10-200 ms, most near 30."""
    return min(0.2, 0.01 + rng.lognormvariate(math.log(0.02), 0.6))


def held_up_transit_s(rng: random.Random) -> float:
    """A busy server or a congested network: as `transit_s`, but one frame in fifteen is held up
    0.3-1.5 s more (what a loaded test machine does to a bot's frames)."""
    held_up = rng.uniform(0.3, 1.5) if rng.random() < 1 / 15 else 0.0
    return transit_s(rng) + held_up


Transit = Callable[[random.Random], float]


def simulated_record(
    waits: Iterator[tuple[float, bool]],
    actions: int,
    rng: random.Random,
    agreement: float | None = None,
    solver_answers: float = 0.8,
    transit: Transit = transit_s,
) -> Record:
    """The server's record of a game of `actions` actions played with these waits: each sent its
    wait after the one before, but not before that one's answer is back (one move in flight),
    and stored after its transit.

    `agreement`: the chance a move was the solver's choice (where the solver answered, with
    chance `solver_answers`); None: the solver was not asked. `transit`: a frame's way, each
    direction."""
    sent = answered = 0.0
    times, undo, choice = [], [], []
    for _ in range(actions):
        wait, is_undo = next(waits)
        sent = max(sent + wait, answered)
        arrived = sent + transit(rng)
        times.append(max([round(arrived * 1000), *times[-1:]]))
        undo.append(is_undo)
        if agreement is None or is_undo or rng.random() >= solver_answers:
            choice.append(None)
        else:
            choice.append(rng.random() < agreement)
        answered = arrived + transit(rng)
    return Record(
        times_ms=times,
        undo=undo,
        finish_ms=times[-1] if times else None,
        solver_choice=None if agreement is None else choice,
    )


def moves_only(pace: Pace, rng: random.Random) -> Iterator[tuple[float, bool]]:
    """A bot's waits as (wait, not an undo)."""
    return ((wait, False) for wait in pace(rng))


BOTS: dict[str, tuple[Pace, float]] = {
    "solver_fastest": (fastest, 0.9),
    "solver_waits": (random_waits, 0.9),
    "greedy": (three_a_second, 0.3),
}
"""Each bot's pace, and how often its move is the solver's choice (the solver's line is re-found
from each position, which does not always start with the move the first search's line went on
with: 82-97% on Penguin deals)."""


def simulated_bot_record(
    name: str, rng: random.Random, actions: int = 95, transit: Transit = transit_s
) -> Record:
    pace, agreement = BOTS[name]
    return simulated_record(
        moves_only(pace, rng), actions, rng, agreement=agreement, transit=transit
    )


def simulated_human_record(rng: random.Random, who: Person | None = None) -> Record:
    """A person's game of 40-160 actions; the solver's agreement 0.2-0.8."""
    who = who or person(rng)
    return simulated_record(
        who.waits(rng), rng.randint(40, 160), rng, agreement=rng.uniform(0.2, 0.8)
    )


# ------------------------------------------------------------------ choosing moves


SOLVER_NODES = daily_budget("penguin")[1]
"""The bot's search budget in positions, the one the daily's proof of its Penguin deal has: a
count, not a time, so that a bot on a busy machine finds the line it finds on
an idle one (5 s of wall clock, under a whole test run, ended searches with no answer)."""


def solver_line(view: dict, max_nodes: int = SOLVER_NODES) -> list[str]:
    """The solver's winning line from a position every card of which is in `view` (Penguin)."""
    result = solve(Game.from_dict(view).to_dict(), max_nodes=max_nodes, max_seconds=None)
    if result.verdict != Verdict.WON:
        raise RuntimeError(f"the solver found no win ({result.verdict})")
    return list(result.moves)


def greedy_move(legal: list[str], rng: random.Random) -> str:
    """A foundation move if there is one, else any legal move."""
    home = [m for m in legal if re.search(r"-f\d", m)]
    return home[0] if home else rng.choice(legal)


# ------------------------------------------------------------------ live play


MAX_MOVES = 120
"""A bot that has not won after this many moves (the greedy one wanders) stops and resigns: more
than a Penguin win takes (87-96 moves for the solver's bots), and the rules judge a game from 15
actions on. Each move the greedy bot makes in a lost position costs the server's assessment a
search of the whole node budget (about 0.075 s), 15 s of CPU at 200 moves."""


class Player:
    """A bot with an account, playing over the real sockets of a running server."""

    def __init__(self, base: str, name: str, pace: Pace, chooser: str, seed: int = 0) -> None:
        from scripts.client import Browser

        self.base = base
        self.browser = Browser(base)
        self.name = name
        self.rng = random.Random(seed)
        self.waits = pace(self.rng)
        self.chooser = chooser
        self.line: list[str] = []

    def sign_up(self, username: str, password: str = "bot-password-26!") -> None:
        self.browser.request("GET", "/accounts/signup/")
        status, headers, text = self.browser.request(
            "POST",
            "/accounts/signup/",
            {"username": username, "password1": password, "password2": password},
        )
        if status != 302:
            raise RuntimeError(f"signing up answered {status}: {text[:300]}")

    def ws_url(self, path: str) -> str:
        return self.base.replace("http", "ws", 1) + path

    def headers(self) -> dict:
        return {"Cookie": self.browser.cookie_header(), "Origin": self.base}

    def next_move(self, frame: dict) -> str:
        legal = frame["legal"]
        if self.chooser == "greedy":
            return greedy_move(legal, self.rng)
        if not self.line or self.line[0] not in legal:
            self.line = solver_line(frame["view"])
        return self.line.pop(0)

    async def play_game(self, socket, frame: dict) -> dict:
        """Play from this `state` frame until the game is won or stuck (the greedy bot undoes
        its way out of a stuck position), or MAX_MOVES are played: one move in flight, each sent its wait after the one before (not before the
        answer to it); the last frame."""
        sent = time.monotonic()
        for _ in range(MAX_MOVES):
            # The greedy bot wanders: stuck, it takes a move back and tries another.
            wanders = self.chooser == "greedy" and frame["status"] == "stuck" and frame["can_undo"]
            if not wanders and (frame["status"] != "playing" or not frame["legal"]):
                break
            sent = max(sent + next(self.waits), time.monotonic())
            await asyncio.sleep(sent - time.monotonic())
            if wanders:
                action = {"type": "undo", "seq": frame["seq"]}
            else:
                action = {"type": "move", "move": self.next_move(frame), "seq": frame["seq"]}
            await socket.send(json.dumps(action))
            frame = await until(socket, {"ack", "state"})
        return frame


async def until(socket, types: set[str], timeout: float = 30.0) -> dict:
    """The next frame of one of these types (an `error` frame raises)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(await asyncio.wait_for(socket.recv(), deadline - time.monotonic()))
        if frame.get("type") == "error":
            raise RuntimeError(f"the server refused: {frame}")
        if frame.get("type") in types:
            return frame


async def play_daily(bot: Player, variant: str) -> dict:
    """Start today's daily of `variant` (ranked: the account's first attempt) and play it; the
    last frame."""
    import websockets

    bot.browser.request("GET", f"/daily/{variant}/")
    status, headers, _ = bot.browser.request("POST", f"/daily/{variant}/start/", {})
    found = re.search(r"/daily/play/([^/]+)/", headers.get("Location", ""))
    if status != 302 or found is None:
        raise RuntimeError(f"starting the daily answered {status} {headers.get('Location')}")
    game = found.group(1)
    async with websockets.connect(
        bot.ws_url("/ws/daily/"), additional_headers=bot.headers()
    ) as socket:
        await socket.send(json.dumps({"type": "open", "game": game}))
        frame = await until(socket, {"state"})
        last = await bot.play_game(socket, frame)
    if last["status"] == "playing":
        bot.browser.request("POST", f"/daily/play/{game}/resign/", {})
    return {**last, "game": game}


async def play_quick_race(
    bots: list[Player], variant: str, on_start: Callable[[], None] | None = None
) -> list[dict]:
    """Every bot presses Quick race for `variant` (they land in one race), waits for the start,
    and plays; each bot's last frame. `on_start` is called once every bot has its board."""
    import websockets

    dealt = 0
    all_dealt = asyncio.Event()

    codes = set()
    for bot in bots:
        bot.browser.request("GET", "/races/")
        status, headers, _ = bot.browser.request("POST", "/races/quick/", {"variant": variant})
        found = re.fullmatch(r"/races/([A-Z0-9]+)/", headers.get("Location", ""))
        if status != 302 or found is None:
            raise RuntimeError(f"quick race answered {status} {headers.get('Location')}")
        codes.add(found.group(1))
    if len(codes) != 1:
        raise RuntimeError(f"the bots were placed in several races: {sorted(codes)}")
    code = codes.pop()

    async def race(bot: Player) -> dict:
        async with websockets.connect(
            bot.ws_url(f"/ws/race/{code}/"), additional_headers=bot.headers()
        ) as socket:
            frame = await until(socket, {"state"}, timeout=120)
            nonlocal dealt
            dealt += 1
            if dealt == len(bots):
                if on_start is not None:
                    on_start()
                all_dealt.set()
            await all_dealt.wait()
            last = await bot.play_game(socket, frame)
            if last["status"] in ("playing", "stuck"):
                await socket.send(json.dumps({"type": "resign"}))
                await until(socket, {"progress", "finished"})
            return {**last, "code": code}

    return await asyncio.gather(*(race(bot) for bot in bots))


CHOOSERS = {"solver_fastest": "solver", "solver_waits": "solver", "greedy": "greedy"}


def run_ahead(niceness: int) -> None:
    """This process at `niceness` (below 0: ahead of the machine's other work), where allowed."""
    with contextlib.suppress(PermissionError):
        os.setpriority(os.PRIO_PROCESS, 0, niceness)


def play_in_process(base: str, kind: str, where: str, names: list[str], placing=None) -> list:
    """Sign up one bot a name and play: `where` "daily" (the first name plays today's Penguin
    daily) or "quick" (every name in one rated Penguin quick race). Synchronous and picklable,
    for a process of its own: a bot's solver search in a thread would hold up the others' sends.
    `placing`: a lock held from the first press until the race has started, so that bots
    placed at once elsewhere do not land in this race. Each bot's last frame."""
    bots = [make_bot(base, kind, seed=i) for i in range(len(names))]
    for bot, name in zip(bots, names, strict=True):
        bot.sign_up(name)
    if where == "daily":
        return [asyncio.run(play_daily(bots[0], "penguin"))]
    if placing is None:
        return asyncio.run(play_quick_race(bots, "penguin"))
    held = placing.acquire()

    def release() -> None:
        nonlocal held
        if held:
            held = False
            placing.release()

    try:
        return asyncio.run(play_quick_race(bots, "penguin", on_start=release))
    finally:
        release()  # the race failed before its start


def make_bot(base: str, kind: str, seed: int = 0) -> Player:
    pace, _ = BOTS[kind]
    return Player(base, kind, pace, CHOOSERS[kind], seed=seed)


def simulated_holds(games: int, seed: int = 26) -> dict[str, dict[str, int]]:
    """Per kind of player (people, fast experts, each bot): how many of `games` simulated games
    each verdict's rule gave."""
    from collections import Counter

    from fairplay.rules import assess

    rng = random.Random(seed)
    makers = {
        "people": lambda: simulated_human_record(rng),
        "fast experts": lambda: simulated_human_record(rng, fast_expert(rng)),
        **{
            name: (lambda name=name: simulated_bot_record(name, rng, rng.randint(15, 120)))
            for name in BOTS
        },
    }
    tallies = {}
    for kind, make in makers.items():
        judged = [assess(make()) for _ in range(games)]
        tallies[kind] = dict(Counter(f"{j.verdict}:{j.rule}" for j in judged))
    return tallies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="a bot plays on a running server")
    play.add_argument("base", help="the server, e.g. http://127.0.0.1:8000")
    play.add_argument("bot", choices=sorted(BOTS))
    where = play.add_mutually_exclusive_group(required=True)
    where.add_argument("--daily", metavar="VARIANT")
    where.add_argument("--quick", metavar="VARIANT")
    play.add_argument("--players", type=int, default=2, help="bots in the quick race")
    simulate = commands.add_parser("simulate", help="the rules' verdicts on simulated games")
    simulate.add_argument("--games", type=int, default=10_000, help="games of each kind")
    simulate.add_argument("--seed", type=int, default=26)
    args = parser.parse_args(argv)
    if args.command == "simulate":
        for kind, tally in simulated_holds(args.games, args.seed).items():
            held = sum(n for verdict, n in tally.items() if not verdict.startswith("clear"))
            print(f"{kind}: {held} of {args.games} held ({held / args.games:.2%}); {tally}")
        return 0
    stamp = int(time.time())
    if args.daily:
        bot = make_bot(args.base, args.bot)
        bot.sign_up(f"{args.bot}-{stamp}")
        print(asyncio.run(play_daily(bot, args.daily)))
    else:
        bots = [make_bot(args.base, args.bot, seed=i) for i in range(args.players)]
        for i, bot in enumerate(bots):
            bot.sign_up(f"{args.bot}-{stamp}-{i}")
        for last in asyncio.run(play_quick_race(bots, args.quick)):
            print(last)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
