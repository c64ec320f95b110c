"""The repo's nginx configuration, run for real (scripts/proxy.py): Debian's nginx in front of
two Daphnes on localhost, as docker compose runs it in front of the web replicas.

A race through nginx, every socket of it on the Daphne its code picks: countdown, a move, the
live standings, a reconnect that lands on the same Daphne and gets exactly what it missed, the
results; sixteen races' codes spread over both Daphnes. A static file comes from nginx's disk,
a page from a Daphne, and a forged X-Forwarded-For does not reach Django (login limits per
address would be worthless otherwise). A race whose racers are on two Daphnes (one restarted,
replicas added) is tests/races/test_race_live.py's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import json
import re
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
import websockets
from django.conf import settings

from scripts.client import Browser
from scripts.loadtest import create_race, join_race
from scripts.proxy import BEHIND_PROXY, collect_static, nginx_binary, proxy_for
from scripts.servers import migrate, server_env, start_daphnes
from tests.live import expect, local_redis_url
from tests.required import unavailable

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("proxy")]


@pytest.fixture(scope="module")
def stack():
    """nginx on a port of 127.0.0.1 in front of two Daphnes sharing one SQLite file and Redis:
    (nginx, [daphne_a, daphne_b], static_root)."""
    if nginx_binary() is None:
        unavailable("nginx is not installed (apt-get install nginx): the proxy cannot be tested")
    redis_url = local_redis_url()
    with tempfile.TemporaryDirectory(prefix="proxy-test-") as tmp:
        env = server_env(f"sqlite:///{Path(tmp) / 'db.sqlite3'}", redis_url)
        migrate(env)
        static_root = Path(tmp) / "static"
        collect_static(static_root, env)
        servers = start_daphnes(2, env, Path(tmp) / "logs", extra_args=BEHIND_PROXY)
        try:
            with proxy_for(servers, static_root) as nginx:
                yield nginx, servers, static_root
        finally:
            for server in servers:
                server.stop()


def fetch(base: str, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        reply = conn.getresponse()
        return reply.status, dict(reply.headers), reply.read()
    finally:
        conn.close()


def test_static_files_come_from_nginx_and_pages_from_a_daphne(stack):
    nginx, servers, static_root = stack
    css = next(static_root.glob("css/*.css"))
    path = f"/static/{css.relative_to(static_root)}"
    status, headers, body = fetch(nginx.url, path)
    assert status == 200 and body == css.read_bytes()
    assert headers["Cache-Control"] == "max-age=3600"  # nginx's `expires`, not Django's answer
    assert not any(path in server.log() for server in servers), "a Daphne served it"

    status, _, body = fetch(nginx.url, "/")
    assert status == 200 and b"<html" in body.lower()
    assert any('"GET /"' in server.log() for server in servers)


def test_a_forged_forwarded_address_does_not_reach_django(stack):
    """Failed logins from one client with a different forged X-Forwarded-For each are still one
    address to the login limit: nginx overwrites the header with the address it saw."""
    nginx, _, _ = stack
    browser = Browser(nginx.url)
    assert browser.request("GET", "/accounts/login/")[0] == 200
    statuses = []
    for n in range(settings.AXES_FAILURE_LIMIT):
        form = {"username": f"nobody{n}", "password": "wrong"}
        statuses.append(login_status(browser, form, forged=f"198.51.100.{n + 1}"))
    assert statuses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]


def login_status(browser: Browser, form: dict, forged: str) -> int:
    parts = urlsplit(browser.base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    body = urlencode({**form, "csrfmiddlewaretoken": browser.cookies["csrftoken"]})
    headers = {
        "Cookie": browser.cookie_header(),
        "Content-Type": "application/x-www-form-urlencoded",
        "Origin": browser.base,
        "X-Forwarded-For": forged,
    }
    try:
        conn.request("POST", "/accounts/login/", body, headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_race_through_the_proxy_stays_on_the_daphne_its_code_picks(stack):
    nginx, servers, _ = stack
    # Its own thread and event loop: a session's Playwright may hold the main thread's loop.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, race_through_proxy(nginx.url, servers)).result()


def test_races_are_spread_over_the_daphnes_by_their_codes(stack):
    """Sixteen codes, each socket opened twice: both land on one Daphne, and the codes are
    spread over both (all sixteen on one of two Daphnes: one chance in 32,768). A code of no
    race is answered `not_found` by the Daphne that took it."""
    nginx, servers, _ = stack

    async def land_all() -> dict[str, set[int]]:
        browser = Browser(nginx.url)
        landed: dict[str, set[int]] = {}
        for number in range(16):
            code = f"nosuchrace{number:02d}"
            landing = Landing(servers, code)
            for _ in range(2):
                ws, on = await landing.open(browser, code)
                assert (await expect(ws, "error"))["code"] == "not_found"
                await ws.close()
                landed.setdefault(code, set()).add(on)
        return landed

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        landed = pool.submit(asyncio.run, land_all()).result()
    assert all(len(on) == 1 for on in landed.values()), landed
    assert {next(iter(on)) for on in landed.values()} == {0, 1}, landed


class Landing:
    """Which Daphne a race socket opened through the proxy landed on, from their access logs."""

    def __init__(self, servers, code: str) -> None:
        self.servers, self.pattern = servers, f'"WSCONNECT /ws/race/{code}/'

    def counts(self) -> list[int]:
        return [server.log().count(self.pattern) for server in self.servers]

    async def open(self, browser: Browser, code: str, since: int | None = None):
        before = self.counts()
        url = browser.base.replace("http://", "ws://") + f"/ws/race/{code}/"
        if since is not None:
            url += f"?since={since}"
        ws = await websockets.connect(
            url,
            origin=browser.base,
            additional_headers={"Cookie": browser.cookie_header()},
            open_timeout=10,
        )
        deadline = time.monotonic() + 5
        while self.counts() == before and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        grew = [i for i, (a, b) in enumerate(zip(before, self.counts(), strict=True)) if b > a]
        assert len(grew) == 1, (before, self.counts())
        return ws, grew[0]


async def race_through_proxy(proxy: str, servers) -> None:
    ann, bob = Browser(proxy), Browser(proxy)
    code = await asyncio.to_thread(create_race, ann, "penguin", 300, "Ann")
    await asyncio.to_thread(join_race, bob, code, "Bob")
    landing = Landing(servers, code)
    ann_ws, ann_on = await landing.open(ann, code)
    bob_ws, bob_on = await landing.open(bob, code)
    assert ann_on == bob_on, "nginx puts every socket of a race on the Daphne its code picks"
    try:
        snapshot = await expect(ann_ws, "snapshot")
        assert len(snapshot["racers"]) == 2
        ann_id = next(r["id"] for r in snapshot["racers"] if r["name"] == "Ann")
        await expect(bob_ws, "snapshot")
        await bob_ws.send(json.dumps({"type": "ready"}))
        await expect(ann_ws, "ready")
        await ann_ws.send(json.dumps({"type": "ready"}))
        countdowns = [await expect(ws, "countdown") for ws in (ann_ws, bob_ws)]
        assert countdowns[0]["event"] == countdowns[1]["event"]
        ann_board = await expect(ann_ws, "state", timeout=20)
        assert (await expect(bob_ws, "state", timeout=20))["view"] == ann_board["view"]

        await ann_ws.send(json.dumps({"type": "move", "move": ann_board["legal"][0], "seq": 0}))
        ann_ack = await expect(ann_ws, "ack")
        progress = await expect(bob_ws, "progress")  # Ann's live figures
        assert "event" not in progress, "live progress is not a numbered event"
        assert {r["id"]: r["moves"] for r in progress["racers"]}[ann_id] == 1

        # Bob drops off and Ann plays on; Bob comes back through the proxy, to the same Daphne,
        # and catches up on what he missed.
        seen = countdowns[1]["event"]
        await bob_ws.close()
        await ann_ws.send(json.dumps({"type": "undo", "seq": ann_ack["seq"]}))
        await expect(ann_ws, "ack")
        bob_ws, landed = await landing.open(bob, code, since=seen)
        assert landed == ann_on
        caught_up = await expect(bob_ws, "progress")  # the catch-up's live frame, from the rows
        assert {r["id"]: r["moves"] for r in caught_up["racers"]}[ann_id] == 0
        assert (await expect(bob_ws, "state"))["view"] == ann_board["view"]

        await ann_ws.send(json.dumps({"type": "resign"}))
        await bob_ws.send(json.dumps({"type": "resign"}))
        finished = [await expect(ws, "finished") for ws in (ann_ws, bob_ws)]
        assert finished[0]["racers"] == finished[1]["racers"]
        assert sorted(r["place"] for r in finished[0]["racers"]) == [1, 2]
    finally:
        for ws in (ann_ws, bob_ws):
            await ws.close()
    status, _, body = await asyncio.to_thread(fetch, proxy, f"/races/{code}/results/")
    assert status == 200
    assert re.search(rf"Deal number {finished[0]['race']['seed']}\b", body.decode())
