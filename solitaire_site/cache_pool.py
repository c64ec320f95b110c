"""One Redis connection pool a process for Django's cache, whatever context asks for it.

Django keeps its cache objects per asyncio context (`caches` is an asgiref `Local`), and every
HTTP request runs in a context of its own (solitaire_site/http_handler.py): without a shared
pool each request would make a new `RedisCache`, a new pool, and so a new TCP connection to
Redis with its handshake, only to drop it at the end (docs/performance.md has what that
costs). `SharedConnectionPool.from_url` hands every
cache object the process's one pool for that address; redis-py's pools are thread-safe.
"""

from __future__ import annotations

import os
import threading

import redis

_pools: dict[tuple, redis.ConnectionPool] = {}
_lock = threading.Lock()


class SharedConnectionPool(redis.ConnectionPool):
    """`CACHES[...]["OPTIONS"]["pool_class"]`: the same pool for the same address and options."""

    @classmethod
    def from_url(cls, url: str, **options) -> redis.ConnectionPool:
        key = (os.getpid(), url, tuple(sorted(options.items())))  # a forked child makes its own
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = super().from_url(url, **options)
            return pool
