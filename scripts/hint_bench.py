"""Hint latency over a live Daphne: the first hint (a search), the next ones (read off the
winning line while the player follows it), and a move sent while a hint search runs.

    python scripts/hint_bench.py http://127.0.0.1:8000 [ROUNDS]

Plays Spiderweb deals 1000… (three hinted moves each) and opens Eighty Thieves deals 5000…,
whose hint runs its whole 2 s budget, to time a move's ack behind it. Prints median and max.
"""

import asyncio
import contextlib
import json
import re
import statistics
import sys
import time
from pathlib import Path

import websockets

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.client import Browser

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 6


def open_page(path):
    """A deal's page as a new browser, then its first action's POST (a GET makes no game):
    (cookie header, the game's id)."""
    browser = Browser(BASE)
    browser.request("GET", path)
    status, _, _ = browser.request("POST", path, {})
    if status != 302:
        raise RuntimeError(f"POST {path} answered {status}")
    _, _, html = browser.request("GET", path)
    game = re.search(r'"game": "([^"]+)"', html).group(1)
    return browser.cookie_header(), game


async def recv_type(ws, kind):
    while True:
        f = json.loads(await ws.recv())
        if f["type"] == kind:
            return f


@contextlib.asynccontextmanager
async def opened(variant: str, seed: int):
    """A guest's socket with the practice game of (variant, seed) open: (socket, state)."""
    cookie, game = open_page(f"/play/{variant}/{seed}/")
    async with websockets.connect(
        BASE.replace("http", "ws") + "/ws/game/",
        additional_headers={"Cookie": cookie, "Origin": BASE},
    ) as ws:
        await ws.send(json.dumps({"type": "open", "game": game}))
        yield ws, await recv_type(ws, "state")


async def follow_hints(variant: str, seed: int) -> list[float]:
    """Seconds to each of up to three hints, each hinted move played before the next ask."""
    async with opened(variant, seed) as (ws, state):
        times = []
        for i in range(3):
            t = time.perf_counter()
            await ws.send(json.dumps({"type": "hint"}))
            h = await recv_type(ws, "hint")
            times.append(time.perf_counter() - t)
            if not h["move"]:
                break
            await ws.send(json.dumps({"type": "move", "move": h["move"], "seq": state["seq"] + i}))
            await recv_type(ws, "ack")
        return times


async def move_during_hint(variant: str, seed: int) -> float:
    """Seconds to the ack of a move sent right after a hint."""
    async with opened(variant, seed) as (ws, state):
        await ws.send(json.dumps({"type": "hint"}))
        t = time.perf_counter()
        await ws.send(json.dumps({"type": "move", "move": state["legal"][0], "seq": state["seq"]}))
        while json.loads(await ws.recv())["type"] not in ("ack", "error"):
            pass
        return time.perf_counter() - t


async def main():
    first, later, acks = [], [], []
    for r in range(ROUNDS):
        ts = await follow_hints("spiderweb", 1000 + r)
        first.append(ts[0])
        later.extend(ts[1:])
    for r in range(ROUNDS):
        acks.append(
            await move_during_hint("eighty-thieves", 5000 + r)
        )  # a hint that runs its whole 2 s
        await asyncio.sleep(2.2)  # let that search end before the next round

    def p(xs):
        return f"median {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms (n={len(xs)})"

    print("first hint (search):", p(first))
    print("next hints (line):  ", p(later) if later else "none")
    print("move ack during a 2 s hint search:", p(acks))


if __name__ == "__main__":
    asyncio.run(main())
