"""A quick race starts though the Daphne that placed its players died (issue 17).

Ann and Bob press Quick race on server A, and watch their race from server B. A is SIGKILLed
during the lobby's 15 s: nothing about the race lived in A (the placement is a committed
transaction, the lobby's end a column of the race's row), so at `autostart_at` a timer of B's
sockets starts the race, once, and both get the countdown and their boards on B.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re

import pytest

from scripts.client import query
from scripts.fault_drills import drill_services
from scripts.servers import create_database, migrate, server_env
from tests.live import Visitor, expect, postgres_url

pytestmark = pytest.mark.slow

DATABASE = "solitaire_quick_kill_test"


@pytest.fixture
def services(drill_options):
    database_url = postgres_url(DATABASE)
    create_database(database_url, drop=True)
    migrate(server_env(database_url))
    with drill_services(drill_options, 2, database_url=database_url) as (_, servers):
        yield servers, database_url


def press(visitor: Visitor, base: str) -> str:
    """The home page, then the Quick race button; the race's code."""
    visitor.get(f"{base}/")
    url = visitor.post(f"{base}/races/quick/", {"variant": "spiderweb"})
    return re.search(r"/races/([A-Z0-9]{6})/$", url).group(1)


async def placed_on_a_started_on_b(a, b) -> tuple[str, list[dict]]:
    ann, bob = Visitor(), Visitor()
    code = press(ann, a.url)
    assert press(bob, a.url) == code
    sockets = [await ann.socket(b.url, code), await bob.socket(b.url, code)]
    for ws in sockets:
        snapshot = await expect(ws, "snapshot")
        assert snapshot["race"]["autostart_at"] is not None and snapshot["you"]["racer"]
    a.kill()  # mid-lobby: the race's start is B's to make
    countdowns = [await expect(ws, "countdown", timeout=40) for ws in sockets]
    for ws in sockets:
        await expect(ws, "state", timeout=20)
        await ws.close()
    return code, countdowns


def test_a_quick_race_placed_by_a_killed_server_starts_on_the_other(services):
    (a, b), database_url = services
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        code, countdowns = pool.submit(asyncio.run, placed_on_a_started_on_b(a, b)).result()
    assert countdowns[0]["event"] == countdowns[1]["event"]
    assert len(countdowns[0]["racers"]) == 2
    rows = query(
        database_url,
        "SELECT r.status, (SELECT count(*) FROM races_raceevent e WHERE e.race_id = r.id "
        "AND e.kind = 'countdown') FROM races_race r WHERE r.code = %s",
        [code],
    )
    assert rows == [("started", 1)], "started once"
