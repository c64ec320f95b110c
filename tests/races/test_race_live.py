"""Two Daphne processes, one race: players on different processes race together.

The processes share a database (the record: one SQLite file, or PostgreSQL when the tests run
on it) and Redis (the channel layer and the leaderboards): the session's `server_pair`. Ann's socket is on process A, Bob's on process B; every event reaches both. Bob
then drops his socket and comes back on the other process with ?since=N, and gets exactly what
he missed and his board as it was: nothing lives only in one process's memory.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re

import pytest

from tests.live import Visitor, expect, named

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server_pair")]


def race_code(url: str) -> str:
    return re.search(r"/races/([A-Z0-9]{6})/", url).group(1)


def test_racers_on_two_processes_race_together(server_pair):
    """Start, moves, progress and the finish reach both processes; a reconnect on the other
    process resumes exactly."""
    # Its own thread and event loop: a session's Playwright (sync API) keeps a loop running
    # in the main thread, where asyncio.run() would refuse to start another.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, race_on_two_processes(server_pair.a, server_pair.b)).result()


async def race_on_two_processes(a: str, b: str) -> None:
    ann, bob = Visitor(), Visitor()
    ann.get(f"{a}/races/new/")
    code = race_code(
        ann.post(
            f"{a}/races/new/",
            {
                "variant": "penelopes-web",
                "deal": "seed",
                "seed": 7318420953371,  # a deal with moves (some random deals have none)
                "max_players": 8,
                "time_limit": "300",
                "visibility": "link",
                "name": named("Ann"),
            },
        )
    )
    bob.get(f"{b}/races/{code}/")
    bob.post(f"{b}/races/{code}/join/", {"name": named("Bob")})

    ann_ws = await ann.socket(a, code)
    bob_ws = await bob.socket(b, code)
    try:
        snapshot = await expect(ann_ws, "snapshot")
        assert len(snapshot["racers"]) == 2
        ann_id = snapshot["you"]["racer"]
        await expect(bob_ws, "snapshot")

        await bob_ws.send(json.dumps({"type": "ready"}))
        ready = await expect(ann_ws, "ready")  # from process B to process A
        await ann_ws.send(json.dumps({"type": "ready"}))
        countdown_a = await expect(ann_ws, "countdown")
        countdown_b = await expect(bob_ws, "countdown")
        assert countdown_a["race"] == countdown_b["race"]
        assert countdown_a["event"] == countdown_b["event"] == ready["event"] + 2

        ann_board = await expect(ann_ws, "state")
        bob_board = await expect(bob_ws, "state")
        assert ann_board["view"] == bob_board["view"], "one deal for everyone"

        await ann_ws.send(json.dumps({"type": "move", "move": ann_board["legal"][0], "seq": 0}))
        ann_ack = await expect(ann_ws, "ack")
        progress = await expect(bob_ws, "progress")  # from process A to process B, live
        assert [(r["id"], r["moves"]) for r in progress["racers"]] == [(ann_id, 1)]

        # Bob drops off; Ann plays on; Bob comes back on the other process.
        seen = countdown_b["event"]
        await bob_ws.close()
        await ann_ws.send(json.dumps({"type": "undo", "seq": ann_ack["seq"]}))
        await expect(ann_ws, "ack")
        bob_ws = await bob.socket(a, code, since=seen)
        caught_up = await expect(bob_ws, "progress")  # where everyone is, from the rows
        assert {r["id"]: r["moves"] for r in caught_up["racers"]}[ann_id] == 0
        assert (await expect(bob_ws, "state"))["view"] == bob_board["view"]

        await ann_ws.send(json.dumps({"type": "resign"}))
        await bob_ws.send(json.dumps({"type": "resign"}))
        finished_a = await expect(ann_ws, "finished")
        finished_b = await expect(bob_ws, "finished")
        assert finished_a == {**finished_b, "now": finished_a["now"]}
        assert sorted(r["place"] for r in finished_a["racers"]) == [1, 2]
    finally:
        await ann_ws.close()
        await bob_ws.close()

    results = bob.get(f"{b}/races/{code}/results/")
    assert f"Deal number {finished_a['race']['seed']}" in results
