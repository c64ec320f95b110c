"""Where sessions live: with a Redis (several server processes), Django's `cached_db` (going on
from the database while Redis is away: solitaire_site/sessions.py), so a page or a socket's
connect reads the session from Redis and the database keeps the record; on the embedded defaults
(each process its own cache), the database alone, so a logout in one process is a logout in
every other."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from redis.exceptions import ConnectionError

from scripts.servers import server_env, server_setting
from solitaire_site import sessions

CACHED_DB = "solitaire_site.sessions"
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


@pytest.mark.django_db
def test_a_new_session_is_saved_without_its_key_looked_up_first(monkeypatch):
    """Its first save is an INSERT, which a taken key fails: another key is drawn then, and the
    session that held the key keeps it (Django would ask the cache and the database first)."""
    store = import_module(CACHED_DB).SessionStore
    first = store()
    first["player_id"] = 7
    first.save()
    keys = iter([first.session_key, "a" * 32])
    monkeypatch.setattr(sessions, "get_random_string", lambda *args: next(keys))
    second = store()
    second["player_id"] = 8
    with CaptureQueriesContext(connection) as queries:
        second.save()
    assert second.session_key == "a" * 32
    assert not any(query["sql"].startswith("SELECT") for query in queries.captured_queries)
    assert store(first.session_key).get("player_id") == 7
    assert store("a" * 32).get("player_id") == 8


REDIS_AWAY = {  # nothing listens on port 1: every call is refused, as while Redis restarts
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
    }
}


def saved_while_redis_is_away() -> str:
    """A guest's session saved while the cache is refused (Django's `cached_db` logs the cache's
    failure and goes on): its key."""
    session = import_module(CACHED_DB).SessionStore()
    session["player_id"] = 7
    session.save()
    return session.session_key


@pytest.mark.django_db
def test_sessions_go_on_from_the_database_while_redis_is_away(settings):
    """A guest's session saved, read back by another process and a new one made, all while the
    cache is refused: from the database, without an error."""
    settings.CACHES = REDIS_AWAY
    store = import_module(CACHED_DB).SessionStore
    key = saved_while_redis_is_away()
    assert store(key).get("player_id") == 7
    new = store()
    new["player_id"] = 8
    new.save()
    assert store(new.session_key).get("player_id") == 8
    assert new.session_key != key


@pytest.mark.django_db
def test_djangos_own_cached_db_fails_while_redis_is_away(settings):
    """Why the project has its own: Django's `cached_db` raises on reading a session back and on
    choosing a new key (the drill `arena-redis-restart` saw its pages answer 500)."""
    settings.CACHES = REDIS_AWAY
    store = import_module("django.contrib.sessions.backends.cached_db").SessionStore
    key = saved_while_redis_is_away()
    with pytest.raises(ConnectionError):
        store(key).load()
    with pytest.raises(ConnectionError):
        store().save()


@pytest.mark.django_db
def test_a_logout_while_redis_is_away_fails_and_changes_nothing(settings):
    """A logout is refused while the cache is (a server error, try again): the session is still
    in the database, so it is not gone from one store and left in the other that comes back."""
    settings.CACHES = REDIS_AWAY
    key = saved_while_redis_is_away()
    session = import_module(CACHED_DB).SessionStore(key)
    with pytest.raises(ConnectionError):
        session.flush()
    assert Session.objects.filter(session_key=key).exists()
    assert import_module(CACHED_DB).SessionStore(key).get("player_id") == 7
