"""Redis's channel layer (games/channel_layer.py): a publish does not wait for its shard's lock,
which a subscribe or an unsubscribe holds for a round trip of the event loop; the messages still
arrive, in the order each sender sent them; publishes sent together go on one connection, and a
publish that Redis never got raises in its sender."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
import redis

from games.channel_layer import PubSubChannelLayer, Shard

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="REDIS_URL is not set")


def one_shard_layer() -> PubSubChannelLayer:
    """A layer of one shard on the tests' Redis, under a prefix no other test uses."""
    return PubSubChannelLayer(
        hosts=[{"address": os.environ["REDIS_URL"]}], prefix=f"test-{uuid.uuid4().hex}"
    )


async def test_a_publish_goes_while_the_shard_is_held_by_a_subscribe():
    layer = one_shard_layer()
    channel = await layer.new_channel()
    await layer.group_add("table", channel)
    (shard,) = layer._get_layer()._shards
    assert isinstance(shard, Shard)
    try:
        async with shard._lock:  # what a subscribe on the shard holds while it waits for Redis
            await asyncio.wait_for(layer.group_send("table", {"type": "move", "n": 1}), 5)
        assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "move", "n": 1}
    finally:
        await layer.flush()


async def test_publishes_side_by_side_arrive_and_each_senders_in_order():
    layer = one_shard_layer()
    channel = await layer.new_channel()
    await layer.group_add("table", channel)

    async def sender(name: str) -> None:
        for n in range(20):
            await layer.group_send("table", {"type": "move", "by": name, "n": n})

    try:
        await asyncio.gather(*(sender(name) for name in "abcde"))
        heard = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(100)]
        for name in "abcde":
            assert [m["n"] for m in heard if m["by"] == name] == list(range(20))
    finally:
        await layer.flush()


async def test_publishes_sent_together_go_on_one_connection():
    """A hundred senders at once: one connection for the publishes beside the subscriber's, not
    one for each publish in flight (each new one costs redis-py a read of its metadata)."""
    layer = one_shard_layer()
    channel = await layer.new_channel()
    await layer.group_add("table", channel)
    (shard,) = layer._get_layer()._shards
    try:
        await asyncio.gather(
            *(layer.group_send("table", {"type": "move", "n": n}) for n in range(100))
        )
        heard = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(100)]
        assert [m["n"] for m in heard] == list(range(100))
        pool = shard._redis.connection_pool
        assert len(pool._available_connections) + len(pool._in_use_connections) <= 2
    finally:
        await layer.flush()


async def test_a_publish_redis_never_got_raises_in_its_sender():
    layer = PubSubChannelLayer(hosts=[{"address": "redis://127.0.0.1:1/0"}], prefix="nobody")
    with pytest.raises(redis.exceptions.ConnectionError):
        await asyncio.wait_for(layer.group_send("table", {"type": "move"}), 10)
    await layer.flush()
