"""Hints on /ws/game/ (docs/protocol.md, "Hints"): the next move of a proved win, practice only.

Every frame is checked to hide face-down and stock cards (the `connect` fixture): a hint sends
the suggested move and nothing of the full position the solver searched.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async
from service_positions import near_won_state, one_move_from_stuck_state
from test_game_socket import opened

from games import consumers, hints
from games.actions import do_create_game
from games.engine import VARIANTS
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)

create_game = database_sync_to_async(do_create_game)


@pytest.mark.parametrize("variant", VARIANTS)
async def test_hint_is_a_move_that_plays_to_the_win(connect, guest_client, player, variant):
    """In a position one move from the win, the hint is a legal move, and playing it wins."""
    game = await create_game(player, variant, 0, start_state=near_won_state(variant))
    ws, state = await opened(connect, guest_client, game)
    hint = await ws.send_frame({"type": "hint", "game": game.public_id})
    assert hint == {
        "type": "hint",
        "game": game.public_id,
        "seq": 0,
        "move": hint["move"],
        "reason": "winning_line",
    }
    assert hint["move"] in state["legal"]
    ack = await ws.send_frame({"type": "move", "move": hint["move"], "seq": 0})
    assert ack["type"] == "ack" and ack["status"] == "won"


async def test_hint_without_a_solution_is_null(connect, guest_client, player):
    """A position proved lost gets `move: null` with reason `lost`; the game is unchanged."""
    game = await create_game(player, "penelopes-web", 0, start_state=one_move_from_stuck_state())
    ws, _ = await opened(connect, guest_client, game)
    hint = await ws.send_frame({"type": "hint"})
    assert (hint["type"], hint["move"], hint["reason"], hint["seq"]) == ("hint", None, "lost", 0)
    assert (await ws.send_frame({"type": "ping"}))["type"] == "pong"


async def test_hint_on_a_won_game_is_null(connect, guest_client, player):
    """After the win there is nothing to suggest: `move: null`, reason `game_over`."""
    game = await create_game(player, "penguin", 0, start_state=near_won_state("penguin"))
    ws, _ = await opened(connect, guest_client, game)
    first = await ws.send_frame({"type": "hint"})
    won = await ws.send_frame({"type": "move", "move": first["move"], "seq": 0})
    assert won["status"] == "won"
    hint = await ws.send_frame({"type": "hint"})
    assert (hint["move"], hint["reason"], hint["seq"]) == (None, "game_over", 1)


async def test_hint_before_open_is_refused(connect, guest_client):
    """A hint needs an open game: `no_game`."""
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "hint"})
    assert (error["type"], error["code"], error["ref"]) == ("error", "no_game", "hint")


@pytest.mark.parametrize("ranked", [True, False])
async def test_daily_socket_refuses_hints(connect, guest_client, player, ranked):
    """A daily attempt never gets a hint on /ws/daily/: `hint_refused`, nothing searched."""
    game = await create_game(player, "penguin", 0, kind=Game.Kind.DAILY)
    ws = await connect(guest_client, path="/ws/daily/")
    assert (await ws.send_frame({"type": "open", "game": game.public_id}))["type"] == "state"
    frame = {"type": "hint", "game": game.public_id} if ranked else {"type": "hint"}
    error = await ws.send_frame(frame)
    assert (error["type"], error["code"], error["ref"]) == ("error", "hint_refused", "hint")


async def test_race_game_gets_no_hint_on_the_practice_socket(connect, guest_client, player):
    """Naming a race game in a hint on /ws/game/ is `forbidden`, as any other frame would be."""
    race_game = await create_game(player, "penguin", 0, kind=Game.Kind.RACE)
    ws = await connect(guest_client)
    error = await ws.send_frame({"type": "hint", "game": race_game.public_id})
    assert (error["type"], error["code"]) == ("error", "forbidden")


@pytest.mark.parametrize("kind", [Game.Kind.RACE, Game.Kind.DAILY])
def test_hint_position_refuses_games_that_are_not_practice(player, kind):
    """Whatever socket asks, a race game or a daily attempt gets HintRefused."""
    game = do_create_game(player, "penguin", 0, kind=kind)
    with pytest.raises(hints.HintRefused):
        hints.hint_position(game)


# ---------------------------------------------------------------- the hint desk (games.hints)


@pytest.fixture
def desk(monkeypatch):
    """A fresh HintDesk on the practice socket, with a solver thread of its own; `release`
    lets searches made with `held=True` finish. `searches` counts the searches run."""
    gate = threading.Event()
    runs = []

    def searcher(position):
        runs.append(position.seq)
        if held.value:
            assert gate.wait(10), "the test never released the search"
        return hints.search(position)

    held = SimpleNamespace(value=False)
    fresh = hints.HintDesk(ThreadPoolExecutor(max_workers=1), searcher=searcher)
    monkeypatch.setattr(consumers, "HINTS", fresh)
    yield SimpleNamespace(desk=fresh, runs=runs, held=held, release=gate.set)
    gate.set()


@pytest.fixture
async def game(player):
    """A practice Penelope's Web game three moves from the win (one card at a time home)."""
    return await create_game(
        player, "penelopes-web", 0, start_state=near_won_state("penelopes-web", 3)
    )


async def test_following_the_hinted_line_needs_no_new_search(connect, guest_client, game, desk):
    """Three moves from the win: the first hint searches, the next two are read off its line."""
    ws, _ = await opened(connect, guest_client, game)
    for seq in range(3):
        hint = await ws.send_frame({"type": "hint"})
        assert (hint["type"], hint["seq"], hint["reason"]) == ("hint", seq, "winning_line")
        ack = await ws.send_frame({"type": "move", "move": hint["move"], "seq": seq})
        assert ack["type"] == "ack"
    assert ack["status"] == "won"
    assert desk.runs == [0]


async def test_leaving_the_line_brings_a_new_search(connect, guest_client, game, desk):
    """A move the line did not make (here: an undone one) sends the next hint to the solver."""
    ws, _ = await opened(connect, guest_client, game)
    hint = await ws.send_frame({"type": "hint"})
    assert (await ws.send_frame({"type": "move", "move": hint["move"], "seq": 0}))["type"] == "ack"
    assert (await ws.send_frame({"type": "undo", "seq": 1}))["type"] == "ack"
    again = await ws.send_frame({"type": "hint"})
    assert (again["seq"], again["move"], again["reason"]) == (2, hint["move"], "winning_line")
    assert desk.runs == [0, 2]


async def test_a_move_is_answered_while_a_hint_is_searched(connect, guest_client, game, desk):
    """The search runs beside the socket: a move sent after the hint is acked before it."""
    desk.held.value = True
    ws, state = await opened(connect, guest_client, game)
    await ws.send_json_to({"type": "hint"})
    ack = await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0})
    assert (ack["type"], ack["seq"]) == ("ack", 1)
    desk.release()
    hint = await ws.receive_json_from(timeout=10)
    assert (hint["type"], hint["seq"]) == ("hint", 0)  # the position asked about: stale now


async def test_a_second_hint_for_another_position_is_refused_while_one_runs(
    connect, guest_client, game, desk
):
    """One search per player: a hint for a new position waits for none, it is `hint_pending`."""
    desk.held.value = True
    ws, state = await opened(connect, guest_client, game)
    await ws.send_json_to({"type": "hint"})
    assert (await ws.send_frame({"type": "move", "move": state["legal"][0], "seq": 0}))["seq"] == 1
    error = await ws.send_frame({"type": "hint"})
    assert (error["type"], error["code"], error["ref"]) == ("error", "hint_pending", "hint")
    desk.release()
    assert (await ws.receive_json_from(timeout=10))["type"] == "hint"
    assert desk.runs == [0]


async def test_a_second_tab_asking_the_same_position_shares_the_search(
    connect, guest_client, game, desk
):
    """Two sockets asking for one position get the same answer from one search."""
    desk.held.value = True
    first, _ = await opened(connect, guest_client, game)
    second, _ = await opened(connect, guest_client, game)
    await first.send_json_to({"type": "hint"})
    await second.send_json_to({"type": "hint"})
    assert (await second.send_frame({"type": "ping"}))["type"] == "pong"
    desk.release()
    answers = [await ws.receive_json_from(timeout=10) for ws in (first, second)]
    assert answers[0] == answers[1] and answers[0]["reason"] == "winning_line"
    assert desk.runs == [0]


def fake_position(game_pk: int, player_pk: int, seq: int = 0, log=()) -> hints.HintPosition:
    game = SimpleNamespace(pk=game_pk, player_id=player_pk, public_id=f"g{game_pk}")
    return hints.HintPosition(game=game, seq=seq, state={"variant": "x"}, log=tuple(log))


async def test_the_desk_refuses_past_its_searches_and_frees_them_after():
    """Past `max_searches` running searches a hint is `solver_busy`, at once; a finished search
    frees its slot."""
    gate = threading.Event()

    def searcher(position):
        gate.wait(10)
        return hints.Finding(position.seq, None)

    desk_ = hints.HintDesk(ThreadPoolExecutor(max_workers=1), max_searches=2, searcher=searcher)
    running = [desk_.start(fake_position(n, n)) for n in (1, 2)]
    with pytest.raises(hints.SolverBusy):
        desk_.start(fake_position(3, 3))
    gate.set()
    await asyncio.gather(*running)
    await asyncio.sleep(0)  # the done callbacks
    assert desk_.searching() == 0
    assert (await desk_.start(fake_position(3, 3))).seq == 0


LINE = ("t0-f3", "t0-f3", "t0-f3")


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        ((), "t0-f3"),
        (("t0-f3",), "t0-f3"),
        (("t0-f3", "t0-f3"), "t0-f3"),
        (("t0-f3", "t0-f3", "t0-f3"), None),  # past the line's end
        (("t0-f2",), None),  # off the line
        (("t0-f3", "undo"), None),
    ],
)
def test_a_winning_line_answers_while_the_log_follows_it(log, expected):
    finding = hints.Finding(0, LINE)
    answer = finding.answer(fake_position(1, 1, seq=len(log), log=log))
    assert (answer.move if answer else None) == expected


@pytest.mark.parametrize(
    ("log", "lost"),
    [((), True), (("t1-t2",), True), (("t1-t2", "t2-t3"), True), (("t1-t2", "undo"), False)],
)
def test_a_proof_of_loss_holds_until_an_undo(log, lost):
    """A lost position only leads to lost ones; an undo may lead back to a winnable one."""
    answer = hints.Finding(0, None, lost=True).answer(fake_position(1, 1, len(log), log))
    assert (answer is not None and answer.reason == "lost") == lost


async def test_a_search_outlives_the_socket_that_asked(connect, guest_client, game, desk):
    """A socket closed mid-search drops its wait, not the search: a new socket asking for the
    same position joins it."""
    desk.held.value = True
    first, _ = await opened(connect, guest_client, game)
    await first.send_json_to({"type": "hint"})
    assert (await first.send_frame({"type": "ping"}))["type"] == "pong"
    await first.disconnect()
    second, _ = await opened(connect, guest_client, game)
    await second.send_json_to({"type": "hint"})
    desk.release()
    hint = await second.receive_json_from(timeout=10)
    assert (hint["type"], hint["seq"], hint["reason"]) == ("hint", 0, "winning_line")
    assert desk.runs == [0]
