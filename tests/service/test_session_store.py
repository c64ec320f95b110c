"""Where sessions live: with a Redis (several server processes), Django's `cached_db`, so a page
or a socket's connect reads the session from Redis and the database keeps the record; on the
embedded defaults (each process its own cache), the database alone, so a logout in one process
is a logout in every other."""

from __future__ import annotations

from importlib import import_module

import pytest

from scripts.servers import server_env, server_setting

CACHED_DB = "django.contrib.sessions.backends.cached_db"
DATABASE = "django.contrib.sessions.backends.db"


def test_a_server_with_redis_reads_sessions_from_it_and_keeps_them_in_the_database():
    env = server_env(redis_url="redis://127.0.0.1:6379/0")
    assert server_setting(env, "SESSION_ENGINE") == CACHED_DB
    assert server_setting(env, "CACHES")["default"]["BACKEND"].endswith(".RedisCache")


def test_a_server_without_redis_keeps_sessions_in_the_database_alone():
    assert server_setting(server_env(), "SESSION_ENGINE") == DATABASE


@pytest.mark.django_db
def test_a_session_logged_out_is_gone_for_every_process():
    """A session flushed (a logout) is gone from the database and from the cache: a second
    store, as another process would open it, finds nothing, whichever engine the tests run."""
    from django.conf import settings

    store = import_module(settings.SESSION_ENGINE).SessionStore
    session = store()
    session["player_id"] = 7
    session.save()
    assert store(session.session_key).get("player_id") == 7
    key = session.session_key
    session.flush()
    assert store(key).get("player_id") is None
    assert not store().exists(key)
