"""A Daphne killed in the middle of a rated race's close: the ratings change once (issue 17).

Ann and Bob (signed in) race a rated friends' race on server A. Ann resigns; the test then holds
their rating rows locked, so when Bob resigns the close on A (which ends the race, places the
racers and rates them, in one transaction) stops inside itself, at the ratings. A is SIGKILLed
there; PostgreSQL rolls the half-done close back. Bob comes back on server B and resigns again:
the race closes there, once, and each racer's rating has changed exactly once (one
RatingChange each, `races` 1), with one `finished` event. A close whose ratings were written
outside the close's transaction would leave them applied by the dead close and again by the
second.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import re
import time

import psycopg
import pytest

from scripts.client import query
from scripts.fault_drills import drill_services
from scripts.servers import create_database, migrate, server_env
from tests.live import Visitor, expect, postgres_url

pytestmark = pytest.mark.slow

DATABASE = "solitaire_rating_kill_test"


def sign_up(visitor: Visitor, base: str, username: str) -> None:
    visitor.get(f"{base}/accounts/signup/")
    password = "a-long-test-password-1"
    visitor.post(
        f"{base}/accounts/signup/",
        {"username": username, "password1": password, "password2": password},
    )


def player_id(database_url: str, username: str) -> int:
    ((pk,),) = query(
        database_url,
        "SELECT p.id FROM games_player p JOIN auth_user u ON u.id = p.user_id WHERE u.username = %s",
        [username],
    )
    return pk


def close_waiting(database_url: str) -> bool:
    """Whether some server's transaction waits for a lock (our hold on the rating rows)."""
    rows = query(
        database_url,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
        [],
    )
    return rows[0][0] > 0


async def rated_race_killed_in_its_close(a, b, database_url: str) -> dict:
    ann, bob = Visitor(), Visitor()
    sign_up(ann, a.url, "ann_rated")
    sign_up(bob, a.url, "bob_rated")
    ann.get(f"{a.url}/races/new/")
    form = {
        "variant": "penguin",
        "deal": "random",
        "max_players": 8,
        "time_limit": "300",
        "visibility": "link",
        "name": "Ann",
        "rated": "on",
    }
    code = re.search(r"/races/([A-Z0-9]{6})/", ann.post(f"{a.url}/races/new/", form)).group(1)
    bob.get(f"{a.url}/races/{code}/")
    bob.post(f"{a.url}/races/{code}/join/", {"name": "Bob"})
    ann_ws, bob_ws = await ann.socket(a.url, code), await bob.socket(a.url, code)
    await expect(ann_ws, "snapshot")
    await expect(bob_ws, "snapshot")
    await ann_ws.send(json.dumps({"type": "start"}))
    await expect(bob_ws, "state", timeout=20)  # the board, at the start
    await expect(ann_ws, "state", timeout=20)
    await ann_ws.send(json.dumps({"type": "resign"}))
    await expect(bob_ws, "progress")

    players = [player_id(database_url, "ann_rated"), player_id(database_url, "bob_rated")]
    hold = psycopg.connect(database_url)
    try:
        for pk in players:
            hold.execute(
                "INSERT INTO races_rating (player_id, variant, mu, sigma, races, updated_at) "
                "VALUES (%s, 'penguin', 1500, 350, 0, now())",
                [pk],
            )
        hold.commit()
        hold.execute("SELECT id FROM races_rating FOR UPDATE").fetchall()  # held: the close waits
        await bob_ws.send(json.dumps({"type": "resign"}))
        deadline = time.monotonic() + 20
        while not close_waiting(database_url):
            assert time.monotonic() < deadline, "the close never reached the ratings"
            await asyncio.sleep(0.1)
        a.kill()
    finally:
        hold.rollback()
        hold.close()
    for ws in (ann_ws, bob_ws):
        with contextlib.suppress(Exception):  # its server is gone
            await ws.close()
    after_kill = query(
        database_url,
        "SELECT r.status, (SELECT count(*) FROM races_ratingchange c WHERE c.race_id = r.id) "
        "FROM races_race r WHERE r.code = %s",
        [code],
    )[0]

    bob_ws = await bob.socket(b.url, code)
    await expect(bob_ws, "snapshot")
    await bob_ws.send(json.dumps({"type": "resign"}))
    finished = await expect(bob_ws, "finished", timeout=20)
    await bob_ws.close()
    return {"code": code, "after_kill": after_kill, "finished": finished, "players": players}


@pytest.fixture(scope="module")
def services(drill_options):
    database_url = postgres_url(DATABASE)
    create_database(database_url, drop=True)
    migrate(server_env(database_url))
    with drill_services(drill_options, 2, database_url=database_url) as (_, servers):
        yield servers, database_url


def test_a_server_killed_in_a_rated_close_leaves_the_ratings_changed_once(services):
    (a, b), database_url = services
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        run = rated_race_killed_in_its_close(a, b, database_url)
        found = pool.submit(asyncio.run, run).result()
    assert found["after_kill"] == ("started", 0), "the killed close was rolled back whole"
    assert set(found["finished"]["ratings"]) == {r["id"] for r in found["finished"]["racers"]}
    changes = query(
        database_url,
        "SELECT c.player_id, c.races FROM races_ratingchange c JOIN races_race r "
        "ON r.id = c.race_id WHERE r.code = %s ORDER BY c.player_id",
        [found["code"]],
    )
    assert changes == [(pk, 1) for pk in sorted(found["players"])]
    ratings = query(database_url, "SELECT races FROM races_rating ORDER BY player_id", [])
    assert ratings == [(1,), (1,)]
    finished = query(
        database_url,
        "SELECT count(*) FROM races_raceevent e JOIN races_race r ON r.id = e.race_id "
        "WHERE r.code = %s AND e.kind = 'finished'",
        [found["code"]],
    )
    assert finished == [(1,)]
