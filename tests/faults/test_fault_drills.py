"""The fault drills of scripts/fault_drills.py, each a test: real Daphne processes, a private
redis-server, PostgreSQL; a crash, a restart, a vanished client, a client that never reads, a
PostgreSQL restart (on a private cluster), and in an arena a Redis restart and a crash."""

from __future__ import annotations

import pytest

from scripts.fault_drills import print_summary, run_drills
from scripts.proxy import nginx_binary
from tests.required import unavailable

pytestmark = pytest.mark.slow


def drill(name: str, options) -> None:
    (result,) = run_drills([name], options)
    print_summary([result])
    assert result.passed, (result.checks, result.evidence)


def test_a_killed_server_s_racers_resume_on_the_other_with_nothing_lost(drill_options):
    """A Daphne is SIGKILLed mid-race: its racers reconnect to the other and play on; every
    acknowledged move is stored once."""
    drill("daphne-kill", drill_options)


def test_races_go_on_when_redis_restarts_empty(drill_options):
    """Redis restarted empty mid-race: moves go on, events flow again, the standings still list
    every racer (they are sorted from the rows), nothing is lost."""
    drill("redis-restart", drill_options)


def test_a_vanished_client_is_dropped_and_its_seat_kept(drill_options):
    """A client that stops answering is dropped after the ping timeout; its seat stays racing
    and the others are unaffected."""
    drill("vanish", drill_options)


def test_a_reader_that_never_reads_does_not_grow_the_server(drill_options):
    """A spectator that never reads is dropped after the ping timeout; the server's memory
    does not keep growing and the racers play on."""
    drill("slow-reader", drill_options)


def test_a_postgres_restart_mid_race_costs_no_move(postgres_drill_options):
    """PostgreSQL (a private cluster) is down for about 2 s mid-race: every move waits and is
    acknowledged once it is back, none lost, doubled or refused with server_error."""
    drill("postgres-restart", postgres_drill_options)


def test_a_killed_server_behind_the_proxy_hands_its_racers_to_the_other(drill_options):
    """The repo's nginx in front of two Daphnes, one SIGKILLed mid-race: its racers reconnect to
    the proxy's address, land on the other Daphne and finish with nothing lost."""
    if nginx_binary() is None:
        unavailable("nginx is not installed (apt-get install nginx): the proxy drill cannot run")
    drill("proxy-daphne-kill", drill_options)


def test_an_arena_goes_on_and_keeps_every_point_when_redis_restarts_empty(drill_options):
    """Redis restarted empty mid-arena (its board and the sockets' groups gone): players are
    still placed, and the board's sorted set is back in Redis (read there, not through the API,
    which reads the record when the set is gone) with every player, in the record's order and
    with the record's points."""
    drill("arena-redis-restart", drill_options)


def test_an_arena_keeps_every_move_and_point_when_a_server_is_killed_mid_arena(drill_options):
    """One of two Daphnes SIGKILLed while its arena players race and wait for their next race:
    their sockets open again on the other, each is placed again, the races they were in end,
    nobody is in two races at once, the results of the races closed before the kill stand,
    every acknowledged move is stored once, and the board in Redis is the record's."""
    drill("arena-server-kill", drill_options)
