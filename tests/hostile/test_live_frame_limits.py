"""Oversized frames against a live Daphne started as production starts it (scripts/servers.py):
a frame over the consumer's 4096 bytes gets `too_large`; one over Daphne's 64 KB limit is cut
off at the protocol (close code 1009) before it is buffered, so no `too_large` answer comes;
the server serves on."""

import asyncio
import json
import urllib.request

import pytest
import websockets

from tests.live import live_server_process

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live_url():
    with live_server_process() as url:
        yield url


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


def test_a_megabyte_frame_is_cut_off_by_the_server(live_url):
    async def send_big():
        async with websockets.connect(socket_url(live_url), origin=live_url) as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.send("[" * (1024 * 1024))
                await asyncio.wait_for(ws.recv(), 10)  # the consumer would answer `too_large`
            return closed.value.rcvd

    received = asyncio.run(send_big())
    # 1009 "message too big", unless the server dropped the socket while the client still sent.
    assert received is None or received.code == 1009
    with urllib.request.urlopen(f"{live_url}/healthz", timeout=5) as reply:
        assert reply.status == 200
    pong = asyncio.run(first_frame_after(live_url, json.dumps({"type": "ping"})))
    assert pong["type"] == "pong"
