"""Two Daphne processes, one arena: a racer who closes their race's page without resigning is
resigned once no server has seen a page of theirs for `RACER_GONE_AFTER_S` (6 s on the session's
`server_pair`), and the racer done in that race, who waited for its end, is placed again. A
second tab on the other process keeps them in the race: the servers say who they see in the
record, not each in its own memory."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import time
from datetime import UTC, datetime

import pytest

from tests.live import PAIR_ENV, Visitor, expect

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server_pair")]

GONE_S = float(PAIR_ENV["RACER_GONE_AFTER_S"])
LOOKS_EVERY_S = 5.0
"""How often an arena's room looks for racers who left (`arenas.rooms.PRESENCE_EVERY_S`)."""


def test_a_racer_whose_every_page_closed_is_resigned_and_the_racer_who_waited_races_again(
    server_pair,
):
    # Its own thread and event loop (a session's Playwright keeps one in the main thread).
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, left_over_two_processes(server_pair.a, server_pair.b)).result()


def joined(visitor: Visitor, base: str, arena_url: str) -> None:
    visitor.get(arena_url.replace(arena_url.split("/arenas/")[0], base))
    visitor.post(f"{base}/arenas/{arena_id(arena_url)}/join/", {})


def arena_id(url: str) -> str:
    return re.search(r"/arenas/([^/]+)/", url).group(1)


def race_code(url: str) -> str:
    return re.search(r"/races/([A-Z0-9]{6})/", url).group(1)


async def quiet_for(ws, seconds: float) -> list[str]:
    """The types of the frames that came in `seconds`."""
    seen: list[str] = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            seen.append(json.loads(await asyncio.wait_for(ws.recv(), left))["type"])
        except TimeoutError:
            break
    return seen


async def left_over_two_processes(a: str, b: str) -> None:
    ann, bob, cat = Visitor(), Visitor(), Visitor()
    ann.get(f"{a}/arenas/new/")
    arena_url = ann.post(
        f"{a}/arenas/new/",
        {
            "variant": "penguin",
            "starts_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M"),
            "minutes": 30,
            "race_time_limit_s": 300,
            "visibility": "link",
            "join": "on",
        },
    )
    public_id = arena_id(arena_url)
    joined(bob, b, arena_url)

    # Ann (on A) and Bob (on B) are placed together from the arena's page.
    lobbies = [await ann.connect(a, f"/ws/arena/{public_id}/")]
    lobbies.append(await bob.connect(b, f"/ws/arena/{public_id}/"))
    urls = {(await expect(ws, "placed", timeout=20))["url"] for ws in lobbies}
    for ws in lobbies:
        await ws.close()
    [url] = urls
    code = race_code(url)

    ann_ws = await ann.socket(a, code)
    bob_b = await bob.socket(b, code)  # Bob's first tab, on B
    bob_a = await bob.socket(a, code)  # and a second one, on A
    cat_ws = None
    try:
        for ws in (ann_ws, bob_b, bob_a):
            await expect(ws, "snapshot")
        await expect(ann_ws, "state", timeout=20)  # the start: the boards come
        # Cat joins once the race runs: she waits alone in the lobby for the next race.
        joined(cat, a, arena_url)
        cat_ws = await cat.connect(a, f"/ws/arena/{public_id}/")

        await ann_ws.send(json.dumps({"type": "resign"}))
        await expect(ann_ws, "progress")
        await ann_ws.send(json.dumps({"type": "wait"}))
        await expect(ann_ws, "standings")

        # Bob closes the tab on B; his tab on A still shows him racing: he stays in.
        await bob_b.close()
        frames = await quiet_for(ann_ws, GONE_S + LOOKS_EVERY_S + 2)
        assert "finished" not in frames and "placed" not in frames

        # He closes that one too: gone from every server, he is resigned, the race closes, and
        # Ann, who waited for it, is placed again, with Cat.
        await bob_a.close()
        closed_at = time.monotonic()
        finished = await expect(ann_ws, "finished", timeout=GONE_S + 2 * LOOKS_EVERY_S + 10)
        waited = time.monotonic() - closed_at
        statuses = sorted(r["status"] for r in finished["racers"])
        assert statuses == ["resigned", "resigned"]
        left = [r["resigned_for"] for r in finished["racers"] if r["resigned_for"]]
        assert left == ["left"]  # Bob; Ann resigned herself
        next_url = (await expect(ann_ws, "placed", timeout=15))["url"]
        assert (await expect(cat_ws, "placed", timeout=15))["url"] == next_url != url
        assert waited >= GONE_S
    finally:
        for ws in (ann_ws, bob_b, bob_a, cat_ws):
            if ws is not None:
                await ws.close()
