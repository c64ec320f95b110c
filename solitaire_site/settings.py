"""Settings for the solitaire race service, all read from the environment here and nowhere else.

| variable | default | meaning |
|---|---|---|
| DEBUG | 1 | 0 in production |
| SECRET_KEY | a development key, only while DEBUG is on | required when DEBUG=0 |
| DATABASE_URL | sqlite:///<project>/db.sqlite3 | any URL dj-database-url reads |
| REDIS_URL | unset: Channels' in-memory layer | Redis for the channel layer and leaderboards |
| ALLOWED_HOSTS | localhost,127.0.0.1,[::1] | comma-separated |
| CSRF_TRUSTED_ORIGINS | none | comma-separated origins with scheme |
| DAILY_WARMUP | 1 | 0: the daily page never picks missing deals in the background |
| WINNABLE_POOL_REFILL | 1 | 0: no background searches fill the winnable-deal pools (only the command) |
| REPLAY_ANALYSIS | 1 | 0: a game's losing move is searched only by `analyse_replays`, not by the background worker |
| FAIRPLAY_ASSESSMENT | 1 | 0: ranked games are assessed only by `assess_games`, not by the background worker when they end |
| BACKGROUND_WORKER | process | process or thread: where the solver's background searches run |
| BACKGROUND_YIELD_PRESSURE | 10 | losing-move searches and fair-play assessments wait while a runnable task waited for a core this % of the last 10 s (0: never wait) |
| HTTPS | 0 | 1 behind a proxy that terminates TLS: secure cookies, SSL redirect, HSTS |
| HSTS_SECONDS | 31536000 | with HTTPS=1, how long browsers keep to https (start small) |
| LOGIN_FAILURE_LIMIT | 10 | failed log-ins per account, and per address, before a lock |
| LOGIN_COOLOFF_MINUTES | 15 | how long such a lock lasts |
| HTTP_THREADS | 2 | threads a process answers HTTP requests on, one request at a time each |
| ORM_THREADS | 2 | threads a process runs its sockets' database work on (connects, race actions) |
| PLAYER_WRITE_LIMIT | 40 | moves and race actions one player may make in any 5 s |
| RACE_PROGRESS_TICK_MS | 1000 | a race's live progress reaches each socket at most this often |
| MOVE_BATCH_WINDOW_MS | 2 | how long the move writer gathers a batch after its first move |
| MOVE_WRITE_RETRY_S | 10 | how long a move waits for the database before `unavailable` |
| MOVE_STORE | auto | auto, orm or postgres: which store writes the move batches |
| QUICK_RACE_LOBBY_S | 15 | a quick race starts this long after its second player arrives |
| QUICK_RACE_TIME_LIMIT_S | 600 | a quick race's time limit |
| ARENA_GATHER_S | 1 | an arena's free players wait this long for others before being placed (not when eight are free) |
| ARENA_RACE_TIME_LIMIT_S | 300 | the time limit of an arena's races, unless its organiser sets another |
| RACER_GONE_AFTER_S | 30 | a racer none of whose race pages a server has seen this long has left the race (they are resigned once nobody else in it still plays); servers say who they see every third of it |
| RACE_IDLE_AFTER_S | 60 | the racers still racing in a race where someone else is done, none of whom makes a move this long (from the last move of any of them or the last of the others' ends), are resigned |
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "games",
    "races",
    "daily",
    "records",
    "fairplay",
    "arenas",
]

MIDDLEWARE = [
    # Under DEBUG only: the site's own 400/404/500 pages instead of Django's debug pages.
    "solitaire_site.notfound.SiteErrorPages",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "solitaire_site.urls"
ASGI_APPLICATION = "solitaire_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "frontend/templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.player",
            ],
        },
    },
]

# Under ASGI every request runs in its own thread-pool call: persistent connections would leak,
# so CONN_MAX_AGE stays 0 (Django's ASGI deployment docs).
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=0,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes SQLite's write lock when a transaction begins, so two tabs playing into one
    # game queue up instead of failing with "database is locked" when both try to write. WAL
    # lets pages read while a move is written, and synchronous=NORMAL syncs the WAL at
    # checkpoints instead of at every commit (a commit survives a crash of the process; only
    # the last moments may be lost if the machine itself loses power): a move commits in about a
    # millisecond instead of tens.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # A covering index's `include` columns are PostgreSQL's; SQLite builds the same index on its
    # keys alone, as intended, so every command need not say so.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Under ASGI a connection is closed after every request and every websocket frame's database
    # call; psycopg's pool hands the closed ones back instead of opening a new one each time.
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": 20}
    # The pool checks a connection before handing it out (an empty query): after PostgreSQL
    # restarts, every idle connection in it is broken, and without the check each would fail one
    # request or race action (`unavailable`) before being thrown away.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # A connect gives up after 5 s (psycopg's own default is 130): a database host that drops what
    # it is sent, rather than refusing it, would hold a connect that long, and the move writer
    # opens its own connections inside `retrying`, whose bound (`MOVE_WRITE_RETRY_S`) is checked
    # only between tries. A `connect_timeout` in DATABASE_URL's query wins.
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", 5)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")

# The channel layer delivers at most once and may drop group messages (a full channel, a
# subscriber that reconnects): it carries notifications only, never the record, which is the
# database. Every game frame carries `seq` so a client can notice a gap and resync with `open`.
#
# channels-redis's pub/sub layer hashes channels and groups over its hosts, each with a pub/sub
# connection behind a lock (subscribes, unsubscribes) and a pool (publishes): the same Redis named
# CHANNEL_LAYER_SHARDS times gives that many. channels-redis's own class also puts every publish
# behind the lock, so a socket's join of a group waited behind every publish of its event loop:
# 5 s on average at 1,000 racers in an arena. games.channel_layer.PubSubChannelLayer publishes
# without it (docs/performance-log.md, "Arenas, ninth day"). Each connection retries a command once
# on a fresh connection when the one it had was closed (a Redis restart leaves every shard's
# connection stale; redis-py does not retry a pooled connection unless told to).
CHANNEL_LAYER_SHARDS = int(os.environ.get("CHANNEL_LAYER_SHARDS", "32"))
if REDIS_URL:
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    LAYER_HOST = {
        "address": REDIS_URL,
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=2),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError],
    }
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "games.channel_layer.PubSubChannelLayer",
            "CONFIG": {"hosts": [LAYER_HOST] * CHANNEL_LAYER_SHARDS, "prefix": "solitaire"},
        }
    }
else:
    # One channel an event loop hears every group of its sockets on (games/groups.py): a burst
    # of announcements handed to the loop before its reader runs must fit (Channels' default
    # capacity, 100 a channel, dropped the rest).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": 10_000},
        }
    }

# Django's cache (replays' losing-move answers, seconds of solver time each) is shared by every
# process through Redis when there is one; otherwise each process keeps its own. Sessions are
# read from that shared cache, the database kept as their record (Django's `cached_db`): a page or
# a socket's connect asks Redis for the guest's session instead of the database (an arena's
# racers open a race's page and its socket every race). Without Redis each process would keep
# its own copy, and a logout in one would not reach the others: sessions stay in the database.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "solitaire",
            # One pool a process, not one a request (solitaire_site/cache_pool.py).
            "OPTIONS": {"pool_class": "solitaire_site.cache_pool.SharedConnectionPool"},
        }
    }
    # Django's `cached_db`, going on from the database while Redis is away (a restart).
    SESSION_ENGINE = "solitaire_site.sessions"

# The leaderboard store (games/rankstore.py) shares the Redis of the channel layer.
LEADERBOARD_REDIS_URL = REDIS_URL

# The daily page picks today's and tomorrow's missing deals in a background thread (daily/warmup.py),
# so the first player of a day does not wait for the solver (a Penelope's Web pick can take 10 s).
# `manage.py precompute_daily` run each day does the same ahead of time; the tests turn it off.
DAILY_WARMUP = env_bool("DAILY_WARMUP", default=True)

# The winnable-deal pools (games/winnable.py) are filled by background searches: a deal taken is
# replaced, and an empty pool someone waits on is searched (never in the request). Off, only
# `manage.py stock_winnable_deals` fills them (the tests turn them on where they need them).
WINNABLE_POOL_REFILL = env_bool("WINNABLE_POOL_REFILL", default=True)

# A game that ends is handed to the background worker, which searches for the move that lost it
# (records/analysis.py), for its replay; `manage.py analyse_replays` (the scheduler, every minute)
# catches what it missed. The tests turn it off.
REPLAY_ANALYSIS = env_bool("REPLAY_ANALYSIS", default=True)

# A ranked game that ends is handed to the background worker, which assesses it for fair play
# (fairplay/assess.py); `manage.py assess_games` (the scheduler, every minute) catches what it
# missed. The tests turn it off.
FAIRPLAY_ASSESSMENT = env_bool("FAIRPLAY_ASSESSMENT", default=True)

# Where the solver's background searches run (games/worker.py): `process`, one worker
# process of the web process's own at a lower priority; `thread`, a thread of the web process
# (the tests, whose monkeypatched solvers must reach the job), which stalls its sockets meanwhile.
BACKGROUND_WORKER = os.environ.get("BACKGROUND_WORKER", "process")
if BACKGROUND_WORKER not in ("process", "thread"):
    raise ImproperlyConfigured("BACKGROUND_WORKER is process or thread")

# Work that can wait (the losing-move searches and fair play's assessments: the worker's queues,
# `analyse_replays`, `assess_games`) starts only while the machine's cores are not contended:
# Linux's CPU pressure (`/proc/pressure/cpu`, `some avg10`: the share of the last 10 s in which
# a runnable task waited for a core) under this percentage (games/worker.py `contended`). The
# worker's nice 10 alone left it 0.4 of a core in an arena of 1,000 on two cores, and the moves'
# p99 a quarter higher (docs/performance-log.md, "Arenas, thirty-sixth day"). 0: never wait (the
# tests, whose machine is busy with themselves).
BACKGROUND_YIELD_PRESSURE = float(os.environ.get("BACKGROUND_YIELD_PRESSURE", "10"))

# HTTP requests run on this many threads a process, each request whole on one thread
# (solitaire_site/http_handler.py), and the sockets' database work on this many more
# (games/storage.py `ORM_THREADS`): a slow request or read holds one of them, not the others.
# Few, because Python runs one thread of a process at a time: more threads add no throughput to
# work that is nearly all Python on a local database, only more of them runnable at once beside
# the event loop, which then waits behind them for a core and the interpreter lock, and a
# crowd's moves with it (docs/performance-log.md, "Arenas, thirty-fourth day": at 10 and 8 an
# arena's first wave of 1,000 had its moves' p99 at 1.0-1.2 s, at 2 and 2 at 0.4-0.6 s, and was
# placed three times sooner). Raise them for a database far enough away that its round trips,
# not Python, take a request's time. With the arena rooms' threads (2) they stay well inside
# the database pool (20; the move writer's two connections are its own): raised, their sum and
# the rooms' two must still fit in it, or a thread waits for a connection instead of a core.
HTTP_THREADS = int(os.environ.get("HTTP_THREADS", "2"))
ORM_THREADS = int(os.environ.get("ORM_THREADS", "2"))
if HTTP_THREADS < 1 or ORM_THREADS < 1:
    raise ImproperlyConfigured("HTTP_THREADS and ORM_THREADS are at least 1")

# Writes (moves, undos, autoplays; race actions) one player may make in any 5 s over all their
# sockets on one process (games/throttles.py): a brisk human makes well under 5 a second.
PLAYER_WRITE_LIMIT = int(os.environ.get("PLAYER_WRITE_LIMIT", "40"))

# A race's progress goes to its sockets live, at most once a tick per socket, one `progress`
# frame for every racer who moved since on any process (races/relay.py); 0: each move at once.
RACE_PROGRESS_TICK_MS = int(os.environ.get("RACE_PROGRESS_TICK_MS", "1000"))

# Quick races (races/quick.py): the lobby's countdown from the second player's arrival (cut
# short when the race is full), and the race's time limit.
QUICK_RACE_LOBBY_S = float(os.environ.get("QUICK_RACE_LOBBY_S", "15"))
QUICK_RACE_TIME_LIMIT_S = int(os.environ.get("QUICK_RACE_TIME_LIMIT_S", "600"))
ARENA_GATHER_S = float(os.environ.get("ARENA_GATHER_S", "1"))
ARENA_RACE_TIME_LIMIT_S = int(os.environ.get("ARENA_RACE_TIME_LIMIT_S", "300"))
# A racer none of whose race pages a server has seen this long has left (races/presence.py).
RACER_GONE_AFTER_S = float(os.environ.get("RACER_GONE_AFTER_S", "30"))
# The racers still racing in a race where someone else is done and waits for its end are
# resigned once none of them has made a move this long (races/holdups.py).
RACE_IDLE_AFTER_S = float(os.environ.get("RACE_IDLE_AFTER_S", "60"))

# The move path's writer (games/writer.py): how long a batch gathers moves after its first one,
# how long a database that cannot be reached is retried before a move is refused `unavailable`,
# and which store writes the batch (auto: hand-written batch SQL on PostgreSQL, the ORM else).
MOVE_BATCH_WINDOW_MS = float(os.environ.get("MOVE_BATCH_WINDOW_MS", "2"))
MOVE_WRITE_RETRY_S = float(os.environ.get("MOVE_WRITE_RETRY_S", "10"))
MOVE_STORE = os.environ.get("MOVE_STORE", "auto")
if MOVE_STORE not in ("auto", "orm", "postgres"):
    raise ImproperlyConfigured("MOVE_STORE is auto, orm or postgres")

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The site is in English only and ships no translations: without the translation machinery a
# page's every rendered value skips the active-language look-ups (docs/performance.md).
USE_I18N = False
USE_TZ = True

# Served by the ASGI application itself (solitaire_site/asgi.py) in development and in a single
# process; compose's nginx may serve STATIC_ROOT (filled by collectstatic) in front of it.
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "frontend/static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# ------------------------------------------------------------------ security (deployment)
# Everything an exposed deployment switches on lives in this block (docs/scaling.md, README).

# TLS ends at the proxy (deploy/nginx/), which overwrites X-Forwarded-Proto/-For with what it saw;
# the web processes are reachable only through it. HTTPS=1 is a production deployment's one
# switch: trust the proxy's scheme header, redirect plain http, secure cookies only, HSTS. Off,
# `make run` and a local `docker compose up` keep working on plain http.
HTTPS = env_bool("HTTPS", default=False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # health checks talk to a web process directly
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Password guessing (django-axes): after LOGIN_FAILURE_LIMIT failures for one username, or from
# one address, that username or address is refused for LOGIN_COOLOFF_MINUTES (429, with the
# login form and a message). The count is in the database, so every web process shares it;
# `manage.py axes_reset_username NAME` / `axes_reset_ip ADDRESS` unlock at once. The address is
# the peer's, or the proxy's X-Forwarded-For when Daphne runs with --proxy-headers (Dockerfile).
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_LOCKOUT_CALLABLE = "solitaire_site.lockout.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # failures are kept; a row for every good log-in is not
# ------------------------------------------------------------------ end of security

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "games": {"handlers": ["console"], "level": "INFO"},
    },
}
