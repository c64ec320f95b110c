"""A crowd presses Quick race (issue 17): 200 guests within a second, spread over two live
Daphnes on one PostgreSQL database and one Redis, each keeping its race's socket open.

Everyone ends up in exactly one race of 2 to 8 players (one left alone in the last lobby is
joined by a late guest, as by the next player to press), no race holds more than 8, and every
race starts by itself: the placement is one transaction on the database (no lobby lives in a
process), so two processes placing at once never overfill a race or seat a player twice. The
lobby lasts 3 s here instead of 15 (QUICK_RACE_LOBBY_S), the rules are the same.

SQLite serialises every write, so only PostgreSQL shows what two processes placing at once do;
the test is skipped on SQLite (and fails under CI=true, which runs PostgreSQL).
"""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest

from scripts import quick_crowd

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server_pair")]

PLAYERS = 200


@pytest.fixture
def servers(postgres_pair):
    """Two Daphnes on one PostgreSQL database and one Redis (the session's pair, whose quick
    races wait 3 s)."""
    return [postgres_pair.a, postgres_pair.b], postgres_pair.database_url


@pytest.mark.parametrize("variant", ["penguin", "any"])
def test_a_crowd_pressing_quick_race_on_two_servers_fills_races_of_two_to_eight(servers, variant):
    """One game, and "any" (chosen under a lock of its own: without it, two presses that found
    nothing open opened races of two games, and one player waited alone)."""
    bases, database_url = servers
    # Its own thread and event loop (a session's Playwright may hold the main thread's loop).
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        crowd = quick_crowd.crowd(bases, PLAYERS, variant, spread_s=1.0, timeout=180)
        pressers = pool.submit(asyncio.run, crowd).result()
    result = quick_crowd.figures(pressers)
    assert result["errors"] == 0, [p.error for p in pressers if p.error][:5]
    assert result["not_started"] == 0, "every race starts by itself"
    assert all(2 <= size <= 8 for size in result["race_sizes"]), result["race_sizes"]
    # A presser left alone in the last lobby (the crowd's presses slower than a lobby's clock
    # on a slow machine) gets a late guest, as the next player to press would join them.
    assert result["players"] - PLAYERS == result["late_guests"] <= 1
    assert sum(n * count for n, count in result["race_sizes"].items()) == result["players"]
    codes = sorted({p.code for p in pressers})
    record = quick_crowd.record_check(database_url, codes)
    assert record["db_players_in_two"] == 0, "nobody in two races"
    assert record["db_over_eight"] == [] and record["db_not_started"] == []
    assert sum(n * count for n, count in record["db_sizes"].items()) == result["players"]


def test_a_presser_left_alone_is_joined_by_a_late_guest_and_both_race(servers):
    """One presser, alone in its lobby: a race of one never starts, and once it has waited alone
    the crowd sends a late guest, who joins that race (not a new one), and both start."""
    bases, database_url = servers
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        crowd = quick_crowd.crowd(bases, 1, "penguin", spread_s=0, timeout=60, alone_s=2.0)
        pressers = pool.submit(asyncio.run, crowd).result()
    result = quick_crowd.figures(pressers)
    assert result["errors"] == 0, [p.error for p in pressers if p.error]
    assert (result["players"], result["late_guests"], result["not_started"]) == (2, 1, 0)
    assert result["race_sizes"] == {2: 1}
    assert quick_crowd.record_check(database_url, [pressers[0].code])["db_sizes"] == {2: 1}
