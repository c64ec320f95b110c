"""The channel layer with Redis: channels-redis's pub/sub layer, whose publishes do not queue
behind the shard's lock and go to Redis together.

channels-redis puts every publish, subscribe and unsubscribe of an event loop behind one lock a
shard (`RedisSingleShardConnection`), so a busy loop's publishes go one round trip at a time, and
a socket's join of a group (a subscribe) waits behind all of them: at 1,000 racers in an arena a
join waited seconds (docs/performance-log.md, "Arenas, ninth day"). The lock guards the shard's one
pub/sub connection, which the subscribes and unsubscribes share; a publish does not need it.

Here only subscribes and unsubscribes take the lock. The publishes of the loop wait in the
shard's outbox, and one task sends what is there as one pipeline (one write, one read, on one
connection of the shard's pool), then the next: a crowd's publishes cost the loop a few system
calls a round trip instead of a few each, and the pool one connection instead of one for each
publish in flight (each new connection of redis-py reads the package's metadata from disk;
docs/performance-log.md, "Arenas, twentieth day"). A send returns when Redis has its publish, and
raises what the pipeline raised. The order is kept: the outbox is first in, first out.
"""

from __future__ import annotations

import asyncio

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisSingleShardConnection


class Shard(RedisSingleShardConnection):
    """One host of the layer: its pub/sub connection behind the lock, its publishes in the
    outbox, sent a pipeline at a time."""

    def __init__(self, host, channel_layer) -> None:
        super().__init__(host, channel_layer)
        self._outbox: list[tuple[str, bytes, asyncio.Future]] = []
        self._sender: asyncio.Task | None = None

    async def publish(self, channel, message):
        sent = asyncio.get_running_loop().create_future()
        self._outbox.append((channel, message, sent))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.ensure_future(self._send_outbox())
        await sent

    async def _send_outbox(self) -> None:
        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                self._ensure_redis()
                async with self._redis.pipeline(transaction=False) as pipe:
                    for channel, message, _ in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
            except Exception as exc:  # each sender hears it, as from its own publish
                for *_, sent in batch:
                    if not sent.done():
                        sent.set_exception(exc)
            else:
                for *_, sent in batch:
                    if not sent.done():
                        sent.set_result(None)


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """`RedisPubSubChannelLayer` whose shards are `Shard`s."""

    def _get_layer(self):
        layer = super()._get_layer()
        # Every call of the layer comes here. Its shards are all made by the first call on this
        # event loop, before any has connected, and replaced together: one look tells.
        if type(layer._shards[0]) is not Shard:
            layer._shards = [Shard(shard.host, layer) for shard in layer._shards]
        return layer
