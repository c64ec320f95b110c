"""The event loop's one channel and the groups it is in for its listeners (games/groups.py):
sockets, relays and rooms hear their groups without a channel of their own."""

import asyncio

import pytest
from channels.layers import get_channel_layer

from games.groups import GROUPS, Groups, group_send, group_send_nowait
from tests.support import slow_group_discard


class Listener:
    def __init__(self) -> None:
        self.heard: list[dict] = []

    def hear(self, message: dict) -> None:
        self.heard.append(message)


async def settle(listener: Listener) -> None:
    """Wait (up to 2 s: Redis's pub/sub reader polls) until the listener heard a message."""
    for _ in range(200):
        if listener.heard:
            return
        await asyncio.sleep(0.01)


async def test_a_group_s_message_reaches_each_listener_in_it_once_and_no_other():
    groups = GROUPS.get()
    ann, bob, eve = Listener(), Listener(), Listener()
    await groups.add("race.A", ann)
    await groups.add("race.A", bob)
    await groups.add("race.B", eve)
    await group_send("race.A", {"type": "race.events", "n": 1})
    await settle(ann)
    await settle(bob)
    assert [m["n"] for m in ann.heard] == [1] and [m["n"] for m in bob.heard] == [1]
    assert ann.heard[0]["group"] == "race.A"  # the message names its group
    assert eve.heard == []


async def test_a_listener_that_left_hears_no_more_and_the_others_still_do():
    groups = GROUPS.get()
    ann, bob = Listener(), Listener()
    await groups.add("game.G", ann)
    await groups.add("game.G", bob)
    groups.discard("game.G", ann)
    await group_send("game.G", {"type": "game.changed", "n": 2})
    await settle(bob)
    assert ann.heard == [] and [m["n"] for m in bob.heard] == [2]


async def test_the_loop_joins_a_group_once_however_many_listen(monkeypatch):
    layer = get_channel_layer()
    adds = []
    add = layer.group_add

    async def counted(group, channel):
        adds.append(group)
        await add(group, channel)

    monkeypatch.setattr(layer, "group_add", counted)
    groups = Groups()
    await asyncio.gather(*(groups.add("race.C", Listener()) for _ in range(20)))
    assert adds == ["race.C"]


async def test_leaving_and_joining_again_at_once_leaves_the_loop_in_the_group(monkeypatch):
    """The last listener leaves while the layer's discard is a slow round trip (Redis), and a
    new one joins at once (a page reconnecting): the join waits for the leave, so the loop's
    channel ends in the group and the new listener hears it."""
    slow_group_discard(monkeypatch, 0.05)
    groups = Groups()
    first, second = Listener(), Listener()
    await groups.add("race.D", first)
    groups.discard("race.D", first)
    await groups.add("race.D", second)
    await asyncio.sleep(0.1)
    await group_send("race.D", {"type": "race.events", "n": 3})
    await settle(second)
    assert [m["n"] for m in second.heard] == [3] and first.heard == []


async def test_a_failed_join_leaves_the_listener_in_no_group_and_the_next_join_tries_again(
    monkeypatch,
):
    layer = get_channel_layer()
    add = layer.group_add
    calls = []

    async def unreachable_once(group, channel):
        calls.append(group)
        if len(calls) == 1:
            raise ConnectionError("Redis is away")
        await add(group, channel)

    monkeypatch.setattr(layer, "group_add", unreachable_once)
    groups = Groups()
    ann = Listener()
    with pytest.raises(ConnectionError):
        await groups.add("arena.E", ann)
    assert "arena.E" not in groups.members
    await groups.add("arena.E", ann)
    await group_send("arena.E", {"type": "arena.changed", "n": 4})
    await settle(ann)
    assert [m["n"] for m in ann.heard] == [4] and len(calls) == 2


async def test_one_listener_s_fault_costs_the_others_nothing():
    class Broken:
        def hear(self, message: dict) -> None:
            raise RuntimeError("a bug in one listener")

    groups = GROUPS.get()
    ann = Listener()
    await groups.add("race.F", Broken())
    await groups.add("race.F", ann)
    await group_send("race.F", {"type": "race.events", "n": 5})
    await settle(ann)
    assert [m["n"] for m in ann.heard] == [5]


async def test_a_burst_handed_to_the_loop_at_once_reaches_every_listener():
    """A thousand announcements handed to the loop before its reader runs (a move batch's, the
    actions' from their threads) all reach their listeners: the loop's one channel holds what
    a channel a socket held before (the in-memory layer's capacity is set for it)."""
    groups = GROUPS.get()
    listeners = [Listener() for _ in range(50)]
    for i, listener in enumerate(listeners):
        await groups.add(f"race.burst{i}", listener)
    for n in range(20):
        for i in range(len(listeners)):
            group_send_nowait(f"race.burst{i}", {"type": "race.events", "n": n})
    for _ in range(300):
        if all(len(listener.heard) == 20 for listener in listeners):
            break
        await asyncio.sleep(0.01)
    assert [len(listener.heard) for listener in listeners] == [20] * 50
