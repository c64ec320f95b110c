"""Race writes and race forms are limited per player, not only per socket: more sockets or tabs
do not buy a bigger budget. What is refused changes nothing."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from hostile_harness import Session, game_fingerprint, race_fingerprint

from games.throttles import (  # reset per test by tests/conftest.py
    RACE_FORMS,
    RACE_WRITES,
    PlayerBudget,
)
from races.models import Race

pytestmark = pytest.mark.django_db(transaction=True)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_player_budget_allows_the_limit_then_refuses_until_the_window_slides():
    """`limit` writes in the window pass, the next is refused (and not counted), and the budget
    comes back as the oldest writes leave the window; players do not share a budget."""
    clock = FakeClock()
    budget = PlayerBudget(limit=3, window=10, clock=clock)
    assert [budget.allow(1) for _ in range(4)] == [True, True, True, False]
    assert budget.allow(2)
    clock.now += 10.01
    assert [budget.allow(1) for _ in range(4)] == [True, True, True, False]


def test_a_refused_write_says_the_budget():
    budget = PlayerBudget(limit=1, window=5, clock=FakeClock())
    assert budget.refusal(1, "moves") is None
    assert budget.refusal(1, "moves") == "more than 1 moves in 5 s, over all your sockets"


def test_a_player_budget_forgets_the_least_recent_players_past_its_size():
    """Memory stays bounded: past `players` entries the least recently seen is dropped."""
    budget = PlayerBudget(limit=1, window=60, players=2, clock=FakeClock())
    assert budget.allow(1) and budget.allow(2) and budget.allow(3)
    assert budget.allow(1)  # forgotten, so allowed again
    assert not budget.allow(3)


async def test_race_writes_are_limited_across_a_players_sockets(running_race):
    """Ann spreading race actions over three sockets (each under its own frame budget) is
    refused past the per-player limit with `rate_limited`; a move refused so is not played."""
    race = running_race.race
    path = f"/ws/race/{race.code}/"
    sockets = [Session(path, running_race.ann) for _ in range(3)]
    for session in sockets:
        assert await session.open()
        board = await session.until("state")
    per_socket = RACE_WRITES.limit // 3 + 2  # under each socket's own frame budget
    before = await database_sync_to_async(race_fingerprint)(race)
    for _ in range(per_socket):
        for session in sockets:
            await session.communicator.send_json_to({"type": "join"})  # a racer re-joining
    await sockets[0].communicator.send_json_to(
        {"type": "move", "move": board["legal"][0], "seq": 0}
    )
    refused_move = await sockets[0].until("error")
    while refused_move.get("ref") != "move":
        refused_move = await sockets[0].until("error")
    refusals = [f for f in sockets[0].log if '"type":"error"' in f]
    for session in sockets[1:]:
        await session.drain(0.5)
        refusals += [f for f in session.log if '"type":"error"' in f]
    for session in sockets:
        await session.close()
    assert refused_move["code"] == "rate_limited"
    assert all('"code":"rate_limited"' in f for f in refusals)
    assert len(refusals) >= per_socket * 3 + 1 - RACE_WRITES.limit
    assert await database_sync_to_async(race_fingerprint)(race) == before


def test_race_forms_are_limited_per_player(make_client):
    """Creating races is limited per player: past the limit the form answers 429 and no race is
    made."""
    ann = make_client("Ann")
    form = {"variant": "penguin", "deal": "random", "max_players": "4", "visibility": "link"}
    codes = [ann.post("/races/new/", form).status_code for _ in range(RACE_FORMS.limit + 2)]
    assert codes[: RACE_FORMS.limit] == [302] * RACE_FORMS.limit
    assert codes[RACE_FORMS.limit :] == [429, 429]
    assert Race.objects.filter(host=ann.player).count() == RACE_FORMS.limit


async def test_game_writes_are_limited_across_a_players_sockets(
    guest_client, player, make_game, monkeypatch
):
    """A player spreading moves on a practice or daily game over three sockets (each under its
    own frame budget) is refused past the per-player limit with `rate_limited`; a move refused
    so is not played. (A budget of 6 here instead of `PLAYER_WRITE_LIMIT`: each write under it
    takes the game's row lock, slow on a busy test machine.)"""
    from games import consumers

    budget = PlayerBudget(limit=6, window=60.0)
    monkeypatch.setattr(consumers, "GAME_WRITES", budget)
    game = await database_sync_to_async(make_game)(player, "penguin", 1)
    sockets = [Session("/ws/game/", guest_client) for _ in range(3)]
    for session in sockets:
        assert await session.open()
        await session.communicator.send_json_to({"type": "open", "game": game.public_id})
        board = await session.until("state")
    per_socket = budget.limit // 3 + 2  # 4 each, 12 in all: 6 pass, 6 are refused
    codes = []
    for _ in range(per_socket):
        for session in sockets:
            # A seq ahead of the game: refused by the game (`stale_seq`) after the budget check.
            await session.communicator.send_json_to({"type": "undo", "seq": 10_000})
            codes.append((await session.until("error", timeout=20))["code"])
    before = await database_sync_to_async(game_fingerprint)(game)
    await sockets[0].communicator.send_json_to(
        {"type": "move", "move": board["legal"][0], "seq": board["seq"]}
    )
    refused_move = await sockets[0].until("error", timeout=20)
    for session in sockets:
        await session.close()
    assert codes == ["stale_seq"] * budget.limit + ["rate_limited"] * (len(codes) - budget.limit)
    assert refused_move["code"] == "rate_limited" and refused_move["ref"] == "move"
    assert await database_sync_to_async(game_fingerprint)(game) == before
