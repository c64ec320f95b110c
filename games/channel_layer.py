"""The channel layer with Redis: channels-redis's pub/sub layer, whose publishes do not queue.

channels-redis puts every publish, subscribe and unsubscribe of an event loop behind one lock a
shard (`RedisSingleShardConnection`), so a busy loop's publishes go one round trip at a time, and
a socket's join of a group (a subscribe) waits behind all of them: at 1,000 racers in an arena a
join waited seconds (docs/performance.md, "Arenas, ninth day"). The lock guards the shard's one
pub/sub connection, which the subscribes and unsubscribes share; a publish does not use it. It
takes a connection of the shard's pool (redis-py gives each concurrent command its own), so here
publishes go at once, side by side, and only subscribes and unsubscribes take the lock. The order
a sender sees is kept: a coroutine's second send starts after its first is published.
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisSingleShardConnection


class Shard(RedisSingleShardConnection):
    """One host of the layer: its pub/sub connection behind the lock, its publishes not."""

    async def publish(self, channel, message):
        self._ensure_redis()
        await self._redis.publish(channel, message)


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """`RedisPubSubChannelLayer` whose shards are `Shard`s."""

    def _get_layer(self):
        layer = super()._get_layer()
        # Every call of the layer comes here. Its shards are all made by the first call on this
        # event loop, before any has connected, and replaced together: one look tells.
        if type(layer._shards[0]) is not Shard:
            layer._shards = [Shard(shard.host, layer) for shard in layer._shards]
        return layer
