"""Oversized frames against a live Daphne started as production starts it (scripts/servers.py):
a frame over the consumer's 4096 bytes gets `too_large`; a message over Daphne's 64 KB limit is
cut off at the protocol before it is buffered, with a close frame of code 1009 (not a reset the
client could not tell from a network failure), so no `too_large` answer comes; the server serves
on."""

import asyncio
import json
import re
import urllib.request

import pytest
import websockets
from websockets.frames import Close

from tests.live import Visitor

pytestmark = pytest.mark.slow


def socket_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws/game/"


async def first_frame_after(base: str, text: str) -> dict:
    async with websockets.connect(socket_url(base), origin=base) as ws:
        await ws.send(text)
        return json.loads(await asyncio.wait_for(ws.recv(), 10))


def test_a_frame_over_4096_bytes_is_refused_with_too_large(live_url):
    frame = asyncio.run(
        first_frame_after(live_url, json.dumps({"type": "ping", "pad": "x" * 8000}))
    )
    assert frame["type"] == "error" and frame["code"] == "too_large"


@pytest.fixture(scope="module")
def race_path(live_url):
    """A race's socket path on the live server (a race in its lobby)."""
    host = Visitor()
    host.get(f"{live_url}/races/new/")
    ended_on = host.post(
        f"{live_url}/races/new/",
        {"variant": "penguin", "deal": "random", "max_players": 2, "visibility": "link"},
    )
    code = re.search(r"/races/([A-Z0-9]{6})/", ended_on).group(1)
    return f"/ws/race/{code}/"


async def close_after_sending(base: str, path: str, message) -> Close | None:
    """The close frame the server sent after `message` (str, or a list of fragments)."""
    async with websockets.connect(base.replace("http://", "ws://") + path, origin=base) as ws:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.send(message)
            async with asyncio.timeout(10):
                while True:  # a race's snapshot comes first; `too_large` would come next
                    await ws.recv()
        return closed.value.rcvd


@pytest.mark.parametrize(
    ("socket", "message"),
    [
        ("game", "[" * (1024 * 1024)),
        ("game", "x" * (64 * 1024 + 1)),
        ("game", ["x" * 30_000] * 3),  # three frames of one 90 KB message
        ("race", "[" * (1024 * 1024)),
    ],
    ids=["1MB", "64KB+1", "fragmented-90KB", "1MB-race"],
)
def test_a_message_over_64_kb_is_closed_with_1009(live_url, race_path, socket, message):
    """The client gets a close frame with 1009 (message too big), and the server serves on."""
    path = {"game": "/ws/game/", "race": race_path}[socket]
    received = asyncio.run(close_after_sending(live_url, path, message))
    assert received is not None, "the connection was reset without a close frame"
    assert received.code == 1009
    with urllib.request.urlopen(f"{live_url}/healthz", timeout=5) as reply:
        assert reply.status == 200
    pong = asyncio.run(first_frame_after(live_url, json.dumps({"type": "ping"})))
    assert pong["type"] == "pong"
