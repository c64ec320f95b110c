"""Sessions read from Redis with the database as their record (Django's `cached_db`), that go on
from the database while Redis is away: a Redis restart must not turn a guest's pages into errors.

Django's `cached_db` already takes a failed read of the cache for a miss, and logs a failed write
of a saved session. Two of its cache calls it leaves unguarded, and each answered every page of
a guest with a 500 for as long as Redis was away (the `arena-redis-restart` drill, a clean-clone
CI run of 2026-12-03): writing back to the cache a session just read from the database
(`load`), and asking the cache whether a new session key is taken (`exists`). Here both go on
from the database, which holds every session (a session is then read from it twice: only while
Redis is away). A logout (or a login, which deletes the guest's session) still fails while Redis
is away, and changes nothing: a session deleted from the database but left in a cache that comes
back would be a logout that did not happen, so the cache's copy goes first (Django's order is
the database's first) and a refused cache stops the logout before the database is touched.
"""

from __future__ import annotations

import logging

from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.utils.crypto import get_random_string
from redis.exceptions import RedisError

logger = logging.getLogger("django.contrib.sessions")

CACHE_AWAY = (RedisError, OSError)
"""What a cache call raises while Redis is away (a restart, a dropped connection)."""


class SessionStore(cached_db.SessionStore):
    def load(self) -> dict:
        try:
            return super().load()
        except CACHE_AWAY:  # the write-back after the database read: the database's session
            logger.warning("the session cache is away: session read from the database only")
            return DatabaseStore.load(self)

    def _get_new_session_key(self) -> str:
        """A new session's key, not looked up first. Django asks whether a random key is taken
        (the cache, then the database: two round trips for every new guest, a tenth of an
        arena's start on its HTTP threads), but a new session's first save is an `INSERT` that a
        taken key fails, after which `create` draws another: 32 characters of 36, never taken
        in practice, and never saved over another session if they were."""
        return get_random_string(32, VALID_KEY_CHARS)

    def exists(self, session_key: str | None) -> bool:
        try:
            return super().exists(session_key)
        except CACHE_AWAY:
            logger.warning("the session cache is away: a session key checked in the database")
            return DatabaseStore.exists(self, session_key)

    def delete(self, session_key: str | None = None) -> None:
        key = session_key if session_key is not None else self.session_key
        if key is not None:
            self._cache.delete(self.cache_key_prefix + key)
        DatabaseStore.delete(self, session_key)
