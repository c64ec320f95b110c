"""The load generator's pieces without a server: a racer honouring `unavailable`, a racer that
stops when its race's time is up, the /proc readings behind the server CPU per move, the
arena crowd's 5-s bound counted from when a free player has someone to race with, and where the
crowd's sockets open again when they drop."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import socket
import time
from types import SimpleNamespace

import pytest

from arenas.points import Standing, board_order, board_score
from scripts.arena_crowd import (
    ArenaPlayer,
    Crowd,
    by_closing,
    by_kind,
    closing_chart,
    compare_board,
    ok,
    over_bound_with_company,
    retried,
    start_after,
    unanswered_text,
    waited_with_company,
)
from scripts.burner import burn
from scripts.burner import parse_args as burner_args
from scripts.client import Browser
from scripts.loadtest import Pending, Racer, Stats, parse_args
from scripts.procstat import (
    Sample,
    ServerCpu,
    cores_used,
    cpu_seconds,
    listening_pids,
    load_average,
    loop_thread_times,
    machine_busy_s,
    rss_kb,
)


class Bar:
    def update(self, n: int) -> None:
        pass


def racer_with_outbox() -> tuple[Racer, list[dict]]:
    racer = Racer(0, ["http://127.0.0.1:1"], Stats(), SimpleNamespace(rng_seed=1), Bar())
    sent: list[dict] = []

    async def send(frame: dict) -> None:
        sent.append(frame)

    racer.send = send
    return racer, sent


def test_an_unavailable_move_is_sent_again_and_counts_from_its_first_send():
    """`unavailable` is no error: after `retry_ms` the same move goes again with the same seq,
    and its ack's round trip runs from the first send."""

    async def scenario() -> tuple[Racer, list[dict]]:
        racer, sent = racer_with_outbox()
        racer.pending = Pending("t3-f0", 5, time.perf_counter() - 0.5)
        refusal = {"type": "error", "code": "unavailable", "ref": "move", "retry_ms": 20}
        racer.on_frame(refusal)
        assert sent == [] and not racer.settled.is_set()
        await asyncio.sleep(0.1)
        racer.on_frame({"type": "ack", "seq": 6, "played": ["t3-f0"]})
        return racer, sent

    racer, sent = asyncio.run(scenario())
    assert sent == [{"type": "move", "move": "t3-f0", "seq": 5}]
    assert racer.stats.unavailable_retries == 1
    assert not racer.stats.errors
    assert racer.stats.acked == 1 and racer.log == ["t3-f0"]
    assert racer.stats.latencies_ms[0] >= 500


def playing(racer: Racer, seconds: float) -> None:
    """The racer plays for `seconds` on a board with one legal move, every move acknowledged."""
    racer.args = SimpleNamespace(rng_seed=1, pace=100)
    racer.board = {"seq": 0, "legal": ["t1-f0"]}
    racer.choose = lambda: "t1-f0"
    send = racer.send

    async def answered(frame: dict) -> None:
        await send(frame)
        racer.on_frame({"type": "ack", "seq": frame["seq"] + 1, "played": [frame["move"]]})

    racer.send = answered
    asyncio.run(racer.play(time.perf_counter() + seconds))


def test_a_racer_sends_no_move_once_its_race_s_clock_is_up():
    """As the race page does: past the snapshot's `ends_at`, the board takes no move."""
    racer, sent = racer_with_outbox()
    racer.on_frame(
        {"type": "snapshot", "you": {"racer": "r1"}, "race": {"ends_at": time.time() * 1000 - 1}}
    )
    playing(racer, 0.2)
    assert sent == []


def test_a_racer_told_the_race_is_over_sends_no_more_moves():
    racer, sent = racer_with_outbox()
    racer.on_frame({"type": "snapshot", "you": {"racer": "r1"}, "race": {"ends_at": None}})
    racer.on_frame({"type": "error", "code": "race_over", "ref": "move"})
    playing(racer, 0.2)
    assert sent == []
    assert racer.stats.errors == {"race_over": 1}


def test_a_move_refused_is_counted_as_refused_by_its_code_not_as_unanswered():
    """A move sent just before the race's end and refused (`race_over`) was answered: sent
    moves are the acknowledged, the refused and the unanswered, each counted."""
    racer, _ = racer_with_outbox()
    racer.pending = Pending("t1-f0", 4, time.perf_counter())
    racer.on_frame({"type": "error", "code": "race_over", "ref": "move"})
    racer.pending = Pending("t1-f0", 4, time.perf_counter())
    racer.on_frame({"type": "error", "code": "stale_seq", "ref": "move"})  # the board follows
    assert racer.stats.refused == {"race_over": 1} and racer.pending is not None
    asyncio.run(racer.close())
    assert [n["seq"] for n in racer.stats.unanswered] == [4]


def test_a_count_prints_its_kinds_only_when_there_are_some():
    assert f"refused {by_kind(0, {})}, let go" == "refused 0, let go"
    assert by_kind(3, {"race_over": 3}) == "3 {'race_over': 3}"


def test_moves_are_grouped_by_the_races_closed_in_the_second_before_their_ack():
    closes = [100.2, 100.5, 100.9, 104.0, 110.0, 110.1, 110.2, 110.3, 110.4, 110.5]
    acks = [
        (99.0, 5.0),  # nothing closed in 98.0-99.0
        (100.3, 7.0),  # one close (100.2)
        (101.0, 9.0),  # three (100.2, 100.5, 100.9)
        (104.5, 6.0),  # one (104.0)
        (106.0, 4.0),  # none
        (110.6, 80.0),  # six
    ]
    rows = by_closing(acks, closes)
    assert [(r["closes"], r["count"]) for r in rows] == [
        ("0", 2),
        ("1-2", 2),
        ("3-5", 1),
        ("6+", 1),
    ]
    assert rows[0]["median"] == 4.0 and rows[3]["p99"] == 80.0  # nearest rank
    chart = closing_chart(rows)
    assert chart[-1] == "     6+       1     80.0 /     80.0  " + "#" * 40
    assert closing_chart([]) == []
    # A small crowd never closes six races in a second: that group is empty.
    quiet = closing_chart(by_closing(acks[:5], closes))
    assert quiet[-1] == "     6+       0        - /        -  "


def test_a_racer_plays_on_while_its_race_runs():
    """The two tests above against a race that still runs: the same racer sends its moves."""
    racer, sent = racer_with_outbox()
    racer.on_frame(
        {"type": "snapshot", "you": {"racer": "r1"}, "race": {"ends_at": time.time() * 1000 + 9e6}}
    )
    playing(racer, 0.2)
    assert sent and sent[0] == {"type": "move", "move": "t1-f0", "seq": 0}


def test_an_unavailable_answer_to_a_settled_move_sends_nothing():
    """A move settled meanwhile (a resync after a reconnect) is not sent again."""

    async def scenario() -> list[dict]:
        racer, sent = racer_with_outbox()
        racer.pending = Pending("undo", 3, 0.0)
        racer.on_frame({"type": "error", "code": "unavailable", "ref": "undo", "retry_ms": 10})
        racer.pending = None
        await asyncio.sleep(0.05)
        return sent

    assert asyncio.run(scenario()) == []


def test_server_cpu_per_move_by_group():
    """(end - start) CPU seconds over the moves, in ms; the total needs the Daphnes."""
    start = Sample(0.0, {"daphne": 10.0, "postgres": 4.0, "redis": None})
    end = Sample(20.0, {"daphne": 10.8, "postgres": 4.2, "redis": None})
    assert ServerCpu.per_move(start, end, 1000) == {
        "total": 1.0,
        "daphne": 0.8,
        "postgres": 0.2,
        "redis": None,
    }
    unknown = Sample(20.0, {"daphne": None, "postgres": 4.2, "redis": None})
    assert ServerCpu.per_move(start, unknown, 1000)["total"] is None


def test_event_loops_time_on_a_core_and_waiting_for_one_each_on_average():
    """Two Daphnes' loop threads over 10 s: one ran 4 s and waited 2, the other ran 2 and
    waited 6; a Daphne with no figures is left out."""
    start = Sample(0.0, {}, loops={1: (100.0, 50.0), 2: (10.0, 5.0), 3: None})
    end = Sample(10.0, {}, loops={1: (104.0, 52.0), 2: (12.0, 11.0), 3: None})
    assert ServerCpu.event_loops(start, end) == {"running": 0.3, "waiting": 0.4}
    assert ServerCpu.event_loops(start, Sample(10.0, {}, loops={3: None})) is None
    assert ServerCpu.event_loops_text({"running": 0.3, "waiting": 0.4}) == (
        "the Daphnes' event-loop threads, each (seconds a second): on a core 0.3, waiting for one 0.4"
    )


def test_proc_readings_of_this_process():
    """This process's CPU, RSS and listening socket are found in /proc."""
    assert cpu_seconds(os.getpid()) > 0
    assert rss_kb(os.getpid()) > 0
    assert cpu_seconds(2**22 + 1) is None  # above any pid_max: gone
    ran, waited = loop_thread_times(os.getpid())
    assert ran > 0 and waited >= 0
    assert loop_thread_times(2**22 + 1) is None
    assert len(load_average()) == 3
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert listening_pids([port]) == {port: os.getpid()}
    assert listening_pids([port]) == {port: None}


def test_a_racer_catches_up_from_the_newest_event_it_heard():
    """After a silence a racer asks as a page does: for the events after the newest numbered
    one it holds (a snapshot's, an event's, a resignation's numbered `progress`), not for a
    whole snapshot; the live progress ticks carry no number and change nothing."""
    racer, _ = racer_with_outbox()
    assert racer.sync_frame() == {"type": "sync"}  # nothing heard yet: a snapshot
    racer.on_text('{"type":"snapshot","event":4,"race":{"ends_at":null},"you":{"racer":"r1"}}')
    assert racer.sync_frame() == {"type": "sync", "since": 4}
    racer.on_text('{"type":"progress","event":7,"racer":"r2","status":"resigned"}')
    racer.on_text('{"type":"progress","racers":[],"at_ms":900,"now":1}')
    racer.on_text('{"type":"joined","event":6,"racer":{"id":"r3"}}')  # late, out of order
    assert racer.sync_frame() == {"type": "sync", "since": 7}
    assert racer.progress_events == 2 and racer.frames == 4


def test_a_board_read_before_the_move_came_in_sends_nothing_again():
    """A board at the move's own `seq` that is not the first after a reconnect (a `sync`'s, the
    start's) may have been read before the move reached the server: the move is not sent
    again (a resend is answered as one, with a board the next move would take for its loss)."""

    async def scenario() -> tuple[Racer, list[dict]]:
        racer, sent = racer_with_outbox()
        racer.pending = Pending("t3-f0", 5, time.perf_counter())
        racer.on_frame({"type": "state", "seq": 5, "legal": ["t3-f0"]})
        await asyncio.sleep(0)
        assert not racer.settled.is_set()
        racer.on_frame({"type": "ack", "seq": 6, "played": ["t3-f0"]})
        return racer, sent

    racer, sent = asyncio.run(scenario())
    assert sent == []
    assert racer.stats.acked == 1 and not racer.stats.errors


def test_the_first_board_after_a_reconnect_at_the_moves_seq_sends_it_again():
    """After a reconnect, the first board at the move's own `seq` says the move was lost with
    the old socket: it goes again with the same seq; a later such board sends nothing."""

    async def scenario() -> list[dict]:
        racer, sent = racer_with_outbox()
        racer.pending = Pending("t3-f0", 5, time.perf_counter())
        racer.reopened = True  # what `connect` sets
        racer.on_frame({"type": "state", "seq": 5, "legal": ["t3-f0"]})
        await asyncio.sleep(0)
        racer.on_frame({"type": "state", "seq": 5, "legal": ["t3-f0"]})
        await asyncio.sleep(0)
        return sent

    assert asyncio.run(scenario()) == [{"type": "move", "move": "t3-f0", "seq": 5}]


def resigned_event(event: int, racer_id: str, status: str = "resigned") -> str:
    return (
        f'{{"type":"progress","event":{event},"now":1,"at_ms":9000,"racers":[{{"id":"{racer_id}",'
        f'"status":"{status}","cards":3,"moves":12,"done_ms":9000}}],"standings":["{racer_id}"]}}'
    )


def test_a_racer_is_done_when_the_server_says_so_not_when_it_sends_its_resignation():
    """As a race page does (js/race.js), the arena's generator opens the arena's socket once the
    racer is done: its resignation's event naming it, not another racer's, nor the sending."""
    racer, _ = racer_with_outbox()
    racer.racer_id = "Me0000000000"
    racer.on_text(resigned_event(7, "Other0000000"))
    racer.on_text('{"type":"progress","now":2,"at_ms":9500,"racers":[]}')
    assert not racer.done.is_set() and racer.event == 7
    racer.on_text(resigned_event(8, "Me0000000000"))
    assert racer.done.is_set() and racer.event == 8


def test_a_racer_is_done_at_the_race_s_end_or_when_its_resignation_is_refused():
    for frame in (
        {"type": "finished", "event": 4, "race": {"finished_at": 1}},
        {"type": "error", "code": "race_over", "reason": "over", "ref": "resign"},
        {"type": "error", "code": "already_finished", "reason": "done", "ref": "resign"},
    ):
        racer, _ = racer_with_outbox()
        racer.on_frame(frame)
        assert racer.done.is_set(), frame
    racer, _ = racer_with_outbox()
    racer.on_frame({"type": "error", "code": "bad_move", "reason": "no", "ref": "move"})
    assert not racer.done.is_set()


def test_a_move_in_flight_when_the_socket_goes_on_to_the_next_race_is_noted_unanswered():
    """After `placed` nothing more of the race before comes on its socket: a move still in
    flight then will never be answered, and the run lists it (its race, racer and seq, for
    the record check to look up) instead of leaving it a silent gap between sent and acked."""
    before, _ = racer_with_outbox()
    before.code, before.racer_id = "RACE01", "Me0000000000"
    before.pending = Pending("t1-f0", 7, time.perf_counter())
    before.on_frame({"type": "finished", "event": 9, "race": {"finished_at": 1}})
    after = Racer(0, ["http://127.0.0.1:1"], before.stats, SimpleNamespace(rng_seed=1), Bar())
    after.read_from_now = lambda: None
    after.take_over(before)
    [noted] = before.stats.unanswered
    assert noted["race"] == "RACE01" and noted["racer"] == "Me0000000000"
    assert (noted["seq"], noted["move"], noted["race_over_heard"]) == (7, "t1-f0", True)
    assert before.pending is None and "unanswered: race RACE01" in unanswered_text(noted)


def test_a_move_answered_before_its_socket_closes_is_not_noted_unanswered():
    racer, _ = racer_with_outbox()
    racer.pending = Pending("t1-f0", 0, time.perf_counter())
    racer.on_frame({"type": "ack", "seq": 1, "played": ["t1-f0"]})
    asyncio.run(racer.close())
    assert racer.stats.unanswered == [] and racer.stats.acked == 1
    racer.pending = Pending("t2-f0", 1, time.perf_counter())
    asyncio.run(racer.close())
    assert [n["seq"] for n in racer.stats.unanswered] == [1]


SERVERS = ["http://127.0.0.1:1", "http://127.0.0.1:2"]


def crowd_on_two(fail_over: bool) -> Crowd:
    crowd = Crowd(SimpleNamespace(rng_seed=1), Racer, Stats())
    crowd.bases, crowd.fail_over = SERVERS, fail_over
    return crowd


def reopened_at(crowd: Crowd, base: str) -> list[str]:
    """Where a crowd's race socket on `base` opens again when it drops (its first try)."""
    racer = Racer(0, crowd.reopened_on(base), Stats(), SimpleNamespace(rng_seed=1), Bar())
    racer.base = base
    tried: list[str] = []

    async def connect() -> None:
        tried.append(racer.base)

    racer.connect = connect
    asyncio.run(racer.reconnect())
    return tried


def test_a_crowd_s_dropped_race_socket_opens_again_on_its_own_server():
    """As a page's socket opens again at the address it had: the race's server, whichever it
    is (its own player's, or the one the race's code picks)."""
    assert reopened_at(crowd_on_two(False), SERVERS[0]) == [SERVERS[0]]
    assert reopened_at(crowd_on_two(False), SERVERS[1]) == [SERVERS[1]]


def test_a_failing_over_crowd_s_dropped_race_socket_opens_on_the_next_server():
    """In the drill that kills a server, as a proxy hands a dead server's sockets to a live
    one."""
    assert reopened_at(crowd_on_two(True), SERVERS[0]) == [SERVERS[1]]
    assert reopened_at(crowd_on_two(True), SERVERS[1]) == [SERVERS[0]]


def arena_socket_tries(crowd: Crowd, failure: type[Exception]) -> tuple[list[str], ArenaPlayer]:
    """The servers a player's arena socket is tried on when the first try fails so."""
    player = ArenaPlayer(0, SERVERS[0], Browser(SERVERS[0]))
    player.browser.cookies = {"sessionid": "s1"}
    tried: list[str] = []

    async def connect() -> str:
        tried.append(player.base)
        if len(tried) == 1:
            raise failure
        return "socket"

    assert asyncio.run(retried(connect, refused=lambda: crowd.server_gone(player))) == "socket"
    return tried, player


def test_a_failing_over_player_whose_server_refuses_goes_on_to_the_next_with_their_session():
    tried, player = arena_socket_tries(crowd_on_two(True), ConnectionRefusedError)
    assert tried == SERVERS
    assert player.browser.base == SERVERS[1] and player.browser.cookie_header() == "sessionid=s1"


def test_a_player_stays_on_a_server_that_answered_late_or_without_failing_over():
    """A server that answered (a timeout, a refused handshake) is still there; and a crowd that
    does not fail over tries the player's own server again, as a page does."""
    assert arena_socket_tries(crowd_on_two(True), TimeoutError)[0] == [SERVERS[0]] * 2
    assert arena_socket_tries(crowd_on_two(False), ConnectionRefusedError)[0] == [SERVERS[0]] * 2


def waiting(*waits: tuple[float, float]) -> ArenaPlayer:
    """A crowd's player with these waits, each (free at s, placed at s) of the run."""
    player = ArenaPlayer(0, "http://127.0.0.1:1", None)
    for free_s, placed_s in waits:
        player.placed_at_s.append(placed_s)
        player.placements_ms.append((placed_s - free_s) * 1000)
    return player


def test_a_player_free_alone_counts_for_the_bound_only_from_when_another_is_free():
    # The crowd's last joiner, free at 40 s with everyone racing, placed at 65 s with the racers
    # of the first race to end, free from 64.5 s: 0.5 s with company.
    straggler = waiting((40, 65))
    returners = [waiting((0, 0.4), (64.5, 65)) for _ in range(3)]
    assert waited_with_company([straggler, *returners]) == []


def test_a_wait_over_5_s_beside_another_free_player_counts():
    # Both free from 10 s, placed at 16.5 and 17 s: 6.5 and 7 s with company.
    assert waited_with_company([waiting((10, 16.5)), waiting((10, 17))]) == [6500, 7000]


def test_company_counts_from_when_the_second_player_became_free():
    # Free at 0 s, alone until 3 s, placed at 9 s: 6 s with company; the other's 6 s too.
    assert waited_with_company([waiting((0, 9)), waiting((3, 9))]) == [9000 - 3000] * 2


def test_the_records_returns_count_for_the_bound_only_beside_another_free_player():
    # Player 1's race ended at 0 s and they were placed at 7 s; player 2, free from 1 s to 7 s
    # beside them, is 6 s with company; player 3, free alone from 20 s to 27 s, counts not.
    returns = [(1, 0, 7000), (2, 1000, 7000), (3, 20_000, 27_000)]
    assert over_bound_with_company(returns) == [6000, 6000]


PASSING_RUN = {
    "errors": 0,
    "placements": 40,
    "placed_over_5s_with_company": 0,
    "sent_back": 0,
    "db_players_in_two_at_once": 0,
    "db_over_eight_or_alone": 0,
    "db_returned_over_5s_with_company": 0,
    "board_points_differ": 0,
    "board_order_differ": 0,
    "board_missing_from_redis": 0,
    "db_overdue": 0,
    "db_resigned_by_server": 0,
}


@pytest.mark.parametrize(
    "broken", ["placed_over_5s_with_company", "db_returned_over_5s_with_company"]
)
def test_an_arena_run_fails_on_a_player_placed_over_5_s_after_another_was_free_beside_them(
    broken,
):
    """The bound is the run's exit status, not a figure printed: a placement over 5 s with
    company, as the generator timed it or as the record has it, fails the run."""
    assert ok(PASSING_RUN)
    assert not ok({**PASSING_RUN, broken: 1})


def test_an_arena_run_fails_on_a_player_the_server_resigned_who_never_left_nor_idled():
    """The generator's players keep their race's page open to the end and move at their pace:
    the arena resigning one of them, as gone from every page or idle, fails the run."""
    assert not ok({**PASSING_RUN, "db_resigned_by_server": 1})


RECORD = {
    1: Standing(points=9, races=3, place_sum=5, last_scored_s=40),
    2: Standing(points=9, races=3, place_sum=4, last_scored_s=50),  # a better average place
    3: Standing(points=2, races=3, place_sum=12, last_scored_s=30),
    4: Standing(),  # joined, never raced
    5: Standing(),
}


def board_of(standings: dict[int, Standing]) -> list[tuple[str, float]]:
    """A sorted set holding these standings, in Redis's order (score, then member)."""
    return [(str(pid), board_score(standings[pid])) for pid in board_order(standings)]


def test_a_board_that_is_the_records_passes_the_check():
    found = compare_board(RECORD, board_of(RECORD))
    assert found == {
        "board_players": 5,
        "board_missing_from_redis": 0,
        "board_points_differ": 0,
        "board_order_differ": 0,
    }


def test_a_board_out_of_the_records_tie_break_order_fails_though_its_points_agree():
    """Players 1 and 2 have 9 points each; 2's better average place puts them first. A board
    that ranks 1 first (a wrong place sum on it) has every point right and two places wrong."""
    wrong = RECORD | {1: Standing(points=9, races=3, place_sum=3, last_scored_s=40)}
    found = compare_board(RECORD, board_of(wrong))
    assert found["board_points_differ"] == 0
    assert found["board_order_differ"] == 2


def test_a_board_missing_a_player_or_holding_a_stranger_fails_the_check():
    missing = compare_board(RECORD, board_of({pid: RECORD[pid] for pid in (1, 2, 3, 4)}))
    assert missing["board_missing_from_redis"] == 1 and missing["board_points_differ"] == 1
    stranger = compare_board(RECORD, board_of(RECORD | {6: Standing(points=1, races=1)}))
    assert stranger["board_missing_from_redis"] == 0 and stranger["board_points_differ"] == 1
    lost = compare_board(RECORD, [])
    assert lost["board_missing_from_redis"] == 5 and lost["board_order_differ"] == 5


@pytest.mark.parametrize(
    "broken", ["board_missing_from_redis", "board_points_differ", "board_order_differ"]
)
def test_an_arena_run_fails_on_a_board_in_redis_that_is_not_the_records(broken):
    assert not ok({**PASSING_RUN, broken: 1})


def test_an_arena_run_with_the_database_needs_the_servers_redis_for_its_board_check():
    """The board check reads the arena's sorted set from Redis: without --redis-url the run is
    refused before it starts."""
    with pytest.raises(SystemExit):
        parse_args(["--arena", "--database-url", "postgres://127.0.0.1/x"])
    assert parse_args(["--arena", "--database-url", "postgres://127.0.0.1/x", "--redis-url", "r"])


def test_cores_used_by_group_and_by_the_whole_machine():
    """Each group's CPU seconds a second over the window, this client's, and the machine's
    busy cores with everything else that ran; a worker that started meanwhile counts from
    nothing."""
    start = Sample(0.0, {"daphne": 10.0, "worker": None, "postgres": 4.0}, machine=100.0)
    end = Sample(20.0, {"daphne": 30.0, "worker": 2.0, "postgres": 8.0}, machine=136.0)
    assert cores_used(start, end, client_s=6.0) == {
        "daphne": 1.0,
        "worker": 0.1,
        "postgres": 0.2,
        "client": 0.3,
        "machine": 1.8,
    }
    assert cores_used(Sample(0.0, {}), Sample(20.0, {}), 0.0)["machine"] is None
    busy = machine_busy_s()
    assert busy is not None and busy > 0


def test_the_burner_takes_no_more_than_its_share_and_stops_on_time():
    """Half a core in periods of 0.05 s for 0.3 s: at most half of the time in CPU (less on a
    full machine), and no run past its end; a share outside 0-1 is refused."""
    wall, cpu = time.monotonic(), time.process_time()
    burn(0.5, 0.05, until=wall + 0.3)
    took, lasted = time.process_time() - cpu, time.monotonic() - wall
    assert 0.3 <= lasted < 0.3 + 0.05 + 0.05
    assert took <= 0.5 * lasted + 0.03
    for refused in (["0"], ["1.5"], ["0.5", "--period", "0"]):
        with pytest.raises(SystemExit):
            burner_args(refused)


def test_an_arena_joined_before_its_start_starts_at_the_first_whole_minute_past_the_lead():
    """The form takes whole minutes: with a lead, the first one at least that far ahead;
    without, this minute, so the arena runs as soon as it is set up."""
    at = dt.datetime(2026, 12, 6, 12, 0, 30, tzinfo=dt.UTC)
    assert start_after(at, 0) == dt.datetime(2026, 12, 6, 12, 0, tzinfo=dt.UTC)
    assert start_after(at, 60) == dt.datetime(2026, 12, 6, 12, 2, tzinfo=dt.UTC)
    assert start_after(at, 30) == dt.datetime(2026, 12, 6, 12, 1, tzinfo=dt.UTC)
    assert start_after(at.replace(second=0), 60) == dt.datetime(2026, 12, 6, 12, 1, tzinfo=dt.UTC)


def test_the_generator_measures_with_its_garbage_collector_off(monkeypatch):
    import gc

    from scripts import loadtest

    seen: list[bool] = []

    class Measured(Exception):
        pass

    async def measure(args, **kwargs):
        seen.append(gc.isenabled())
        raise Measured

    monkeypatch.setattr(loadtest, "run", measure)
    assert gc.isenabled()
    with pytest.raises(Measured):
        loadtest.main(["--racers", "2", "--races", "1", "http://127.0.0.1:1"])
    assert seen == [False]  # no collection pauses the frames waiting in its sockets
    assert gc.isenabled()  # and it is back on once the run is over, however it ended
