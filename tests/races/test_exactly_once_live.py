"""Exactly-once under a race of writes, on PostgreSQL, across two live Daphnes.

One player holds two sockets on the same game, one on each process (two tabs behind a load
balancer), and both send a move at the same `seq` at the same moment: the same move (a resend
from a second tab), or two different moves. Exactly one may be applied: one socket gets the
`ack`, the other the game as it now stands (`state`: its `seq` is behind, a resend, nothing
applied; docs/protocol.md), and the game's Move rows grow by exactly that one move. Twenty
rounds each, in a practice game (/ws/game/) and in a running race (/ws/race/<code>/).

SQLite serialises every write, so only PostgreSQL, where two processes really write at once,
can show a double apply; the test is skipped on SQLite, and fails under CI=true instead (CI runs
PostgreSQL). Whatever keeps the write exactly-once (a row lock, a compare-and-set on the stored
`seq`), taking it out makes both sockets get an `ack` or the log grow by two in some round.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import random
import re

import pytest

from scripts.client import query
from scripts.practice_load import CONFIG_PATTERN
from tests.live import Visitor, expect, named

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server_pair")]

ROUNDS = 20
ROUND_S = 0.5
"""At least this long a round (a move and a ping per socket): 30 frames in 5 s is a socket's
budget."""
SEED = 7318420953371  # a Penelope's Web deal with moves to make


@pytest.fixture
def servers(postgres_pair):
    """Two Daphnes on one PostgreSQL database and one Redis (the session's pair)."""
    return postgres_pair.a, postgres_pair.b, postgres_pair.database_url


def stored_log(database_url: str, game: str) -> list[str]:
    """The game's Move rows, in order; their seqs must be 1, 2, … with no gap or repeat."""
    rows = query(
        database_url,
        "SELECT m.seq, m.move FROM games_move m JOIN games_game g ON g.id = m.game_id "
        "WHERE g.public_id = %s ORDER BY m.seq",
        [game],
    )
    assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1)), rows
    return [move for _, move in rows]


async def answers(ws, fence: int) -> list[dict]:
    """Every frame up to the pong for `fence`: the socket answers its frames in order, so these
    are the answers to what it was sent before the ping (race events left out)."""
    await ws.send(json.dumps({"type": "ping", "t": fence}))
    frames = []
    try:
        async with asyncio.timeout(15):
            while True:
                frame = json.loads(await ws.recv())
                if frame["type"] == "pong" and frame.get("t") == fence:
                    return frames
                if frame["type"] not in ("progress", "pong"):
                    frames.append(frame)
    except TimeoutError:
        raise AssertionError(f"no pong {fence} in 15 s; got {frames}") from None


async def collide(database_url: str, game: str, sockets: list, board: dict, same: bool) -> None:
    """ROUNDS rounds of two simultaneous moves at one `seq`, each checked against the record."""
    rng = random.Random(SEED)
    log = stored_log(database_url, game)
    assert len(log) == board["seq"]
    rounds = fence = 0
    clock = asyncio.get_running_loop().time
    next_at = clock()
    while rounds < ROUNDS:
        await asyncio.sleep(max(0.0, next_at - clock()))
        next_at = clock() + ROUND_S
        seq, legal = board["seq"], board["legal"]
        assert len(log) == seq
        fence += 1
        if len(legal) < (1 if same else 2):
            # Too few moves to collide on: take one back from one socket, and go on.
            await sockets[0].send(json.dumps({"type": "undo", "seq": seq}))
            (ack,) = [f for f in await answers(sockets[0], fence) if f["type"] == "ack"]
            await answers(sockets[1], fence)  # its copy of the change
            log.append("undo")
            assert stored_log(database_url, game) == log
            board = ack
            continue
        moves = [rng.choice(legal)] * 2 if same else rng.sample(legal, 2)
        await asyncio.gather(
            *(
                ws.send(json.dumps({"type": "move", "move": move, "seq": seq}))
                for ws, move in zip(sockets, moves, strict=True)
            )
        )
        got = await asyncio.gather(*(answers(ws, fence) for ws in sockets))
        where = f"round {rounds}, seq {seq}, moves {moves}: {got}"
        errors = [f for frames in got for f in frames if f["type"] == "error"]
        assert not errors, where
        acks = [(i, f) for i, frames in enumerate(got) for f in frames if f["type"] == "ack"]
        assert len(acks) == 1, f"exactly one ack: {where}"
        winner, ack = acks[0]
        assert ack["seq"] == seq + 1 and ack["played"] == [moves[winner]], where
        loser_states = [f for f in got[1 - winner] if f["type"] == "state"]
        assert loser_states and loser_states[-1]["seq"] == seq + 1, f"the other a state: {where}"
        assert loser_states[-1]["view"] == ack["view"], where
        assert loser_states[-1]["legal"] == ack["legal"], where
        log.append(moves[winner])
        assert stored_log(database_url, game) == log, f"exactly one move stored: {where}"
        board = ack
        rounds += 1


def in_own_loop(coroutine) -> None:
    """Run in a thread of its own: a session's Playwright keeps a loop in the main thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coroutine).result()


# ------------------------------------------------------------------ practice


async def practice_collisions(a: str, b: str, database_url: str, same: bool) -> None:
    player = Visitor()
    deal = f"{a}/play/penelopes-web/{SEED % 10**9}/"
    player.get(deal)  # the page writes nothing: its first action (the POST) starts the game
    page = player.get(player.post(deal, {}))
    config = json.loads(CONFIG_PATTERN.search(page).group(1))
    sockets = [await player.connect(base, config["ws_path"]) for base in (a, b)]
    try:
        boards = []
        for ws in sockets:
            await ws.send(json.dumps({"type": "open", "game": config["game"]}))
            boards.append(await expect(ws, "state"))
        assert boards[0]["view"] == boards[1]["view"]
        await collide(database_url, config["game"], sockets, boards[0], same)
    finally:
        for ws in sockets:
            await ws.close()


@pytest.mark.parametrize("same", [True, False], ids=["same-move", "different-moves"])
def test_practice_moves_at_one_seq_from_two_processes_are_applied_once(servers, same):
    """The same move, or two different ones, at one seq from both processes: one ack, one
    `state` (never an ack) showing the move acknowledged, and that move the one Move row added."""
    in_own_loop(practice_collisions(*servers, same=same))


# ------------------------------------------------------------------ races


async def race_collisions(a: str, b: str, database_url: str, same: bool) -> None:
    racer = Visitor()
    racer.get(f"{a}/races/new/")
    form = {
        "variant": "penelopes-web",
        "deal": "seed",
        "seed": SEED,
        "max_players": 8,
        "time_limit": "300",
        "visibility": "link",
        "name": named("Ann"),
    }
    code = re.search(r"/races/([A-Z0-9]{6})/", racer.post(f"{a}/races/new/", form)).group(1)
    sockets = [await racer.socket(base, code) for base in (a, b)]
    try:
        for ws in sockets:
            await expect(ws, "snapshot")
        await sockets[0].send(json.dumps({"type": "start"}))  # a solo race: the host may
        boards = [await expect(ws, "state", timeout=15) for ws in sockets]  # after the countdown
        assert boards[0]["view"] == boards[1]["view"] and boards[0]["game"] == boards[1]["game"]
        await collide(database_url, boards[0]["game"], sockets, boards[0], same)
        await sockets[0].send(json.dumps({"type": "resign"}))
        await expect(sockets[1], "finished")
    finally:
        for ws in sockets:
            await ws.close()


@pytest.mark.parametrize("same", [True, False], ids=["same-move", "different-moves"])
def test_race_moves_at_one_seq_from_two_processes_are_applied_once(servers, same):
    """A racer's two tabs on two processes send the same move, or two different ones, at one
    seq: one applied and acknowledged, the other tab gets the board with it."""
    in_own_loop(race_collisions(*servers, same=same))
