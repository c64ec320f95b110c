"""Django's cache objects are made per context (one a request): they share the process's one
Redis pool (solitaire_site/cache_pool.py), not a new connection each."""

from __future__ import annotations

import contextvars
import os

import pytest
from django.core.cache import caches

from solitaire_site.cache_pool import SharedConnectionPool

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="REDIS_URL is not set")


def pool_of_a_new_request():
    """What a request, in a context of its own, gets from `caches` to talk to Redis."""
    cache = contextvars.Context().run(lambda: caches["default"])
    return cache, cache._cache._get_connection_pool(write=True)


def test_requests_make_cache_objects_of_their_own_that_share_one_pool():
    first_cache, first_pool = pool_of_a_new_request()
    second_cache, second_pool = pool_of_a_new_request()
    assert first_cache is not second_cache
    assert first_pool is second_pool and isinstance(first_pool, SharedConnectionPool)


def test_the_shared_pool_talks_to_redis():
    cache, _ = pool_of_a_new_request()
    cache.set("cache-pool-test", 42, 5)
    assert pool_of_a_new_request()[0].get("cache-pool-test") == 42


def test_other_addresses_get_other_pools():
    url = os.environ["REDIS_URL"]
    assert SharedConnectionPool.from_url(url) is SharedConnectionPool.from_url(url)
    assert SharedConnectionPool.from_url(url) is not SharedConnectionPool.from_url(url, db=3)
