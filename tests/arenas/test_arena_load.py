"""The arena load mode of scripts/loadtest.py (scripts/arena_crowd.py), small, over the two live
Daphnes of the session's pair: eight players in one arena for a few races each are placed,
race, wait on their race's page and are placed again, each within 5 s of being free beside
another; nobody is in two races at once, every race holds 2 to 8, and the arena's sorted set in
Redis holds every player with the points and in the order the record gives."""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest
import redis

from arenas import board
from arenas.models import Arena
from scripts import arena_crowd, loadtest
from scripts.servers import PrivateRedis, free_port
from tests.live import local_redis_url

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server_pair")]


def test_eight_players_race_again_and_again_in_one_arena_over_two_servers(server_pair):
    # 25 s: a race of 3 s between two placements takes some 7 s on a quiet machine, and over 15 s
    # at load 12 (a whole run beside another one), where a 15 s run placed nobody twice.
    args = loadtest.parse_args(
        [server_pair.a, server_pair.b, "--arena", "--racers", "8", "--duration", "25"]
        + ["--race-s", "3", "--variant", "penguin", "--database-url", server_pair.database_url]
        + ["--redis-url", local_redis_url()]
    )
    # Its own thread and event loop (a session's Playwright may hold the main thread's loop).
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        result = pool.submit(
            asyncio.run, arena_crowd.run(args, loadtest.Racer, loadtest.Stats())
        ).result()
    assert result["errors"] == 0, result["error_kinds"]
    assert result["placed_again"] > 0, ("placed again after a race", result)
    # Each player loaded the arena's page once, to join, and their first race's page: between two
    # races a page waits on the race's socket for the next (js/arena-next.js) and shows the next
    # race in place (js/race.js), loading no page.
    assert result["placed_frames"] > 8 and result["pages_loaded"] == 2 * 8
    # The arena's socket each opened to watch became theirs with the Join answer's ticket: each
    # was placed over it, with none opened again.
    assert result["arena_sockets_reopened"] == 0
    assert result["first_parts_ms"]["socket"]["max"] is not None
    # Nobody is sent back to a race they were done in (the generator, as a page does, waits on
    # the race's page until the server says the racer is done).
    assert result["sent_back"] == 0, result
    # Every player free beside another is placed within 5 s: as the generator timed it, and as
    # the record has it (a race's end to its racers' next placement).
    assert result["placed_over_5s_with_company"] == 0, result["placement_ms"]
    assert result["db_returned_over_5s_with_company"] == 0, result["db_return_ms"]
    # The timings drawn by 30 s of play hold every placement and every move timed (an ack; a
    # move found applied on a resync is acknowledged untimed).
    assert sum(w["count"] for w in result["placements_by_window"]) == result["placements"]
    timed = sum(w["count"] for w in result["moves_by_window"])
    assert 0 < timed <= result["moves_acked"]
    # ... and, grouped by the races closed in the second before each ack, every move timed.
    assert sum(g["count"] for g in result["moves_by_closing"]) == timed
    untimed = result["placed_frames"] - result["placements"]
    assert untimed == result["placements_untimed"], result
    # (A race placed as the run stops may still be on: its players had stopped.)
    assert result["db_races"] >= 2
    assert result["db_over_eight_or_alone"] == 0
    assert result["db_players_in_two_at_once"] == 0
    # Every player placed again came back at least once in the record, timed there too.
    assert result["db_returns"] >= result["placed_again"] > 0
    assert result["db_return_ms"]["max"] is not None
    # The arena's sorted set in Redis holds every player, each with the record's points, in the
    # order (tie-breaks included) the app's recount gives.
    assert result["board_players"] == 8 and result["board_missing_from_redis"] == 0
    assert result["board_points_differ"] == 0 and result["board_order_differ"] == 0
    assert arena_crowd.ok(result)
    assert_the_board_check_reads_redis(server_pair.database_url, result)


def assert_the_board_check_reads_redis(database_url: str, result: dict) -> None:
    """The board check reads the sorted set in the Redis it is given, not the API (which reads
    the record itself when Redis lost the set): a Redis without it fails the check, and so
    does one whose set has two players' places swapped."""
    key = board.key(Arena(public_id=result["arena"]))
    held = redis.Redis.from_url(local_redis_url()).zrange(key, 0, -1, withscores=True)
    other = PrivateRedis(free_port()).start()
    try:
        lost = arena_crowd.settled_record_check(database_url, other.url, result["arena"], 0)
        assert lost["board_missing_from_redis"] == 8 and lost["board_points_differ"] == 8
        assert not arena_crowd.ok({**result, **lost})
        (first, best), *_, (last, worst) = held
        swapped = dict(held) | {first: worst, last: best}
        redis.Redis.from_url(other.url).zadd(key, swapped)
        wrong = arena_crowd.settled_record_check(database_url, other.url, result["arena"], 0)
        assert wrong["board_missing_from_redis"] == 0 and wrong["board_order_differ"] >= 2
        assert not arena_crowd.ok({**result, **wrong})
    finally:
        other.stop()
