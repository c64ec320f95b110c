"""Shared fixtures: players, a browser-like client that is a guest, websocket communicators;
and how the test run is laid out: the order of the tests, the markers that fixtures imply, and
what each pytest-xdist worker has of its own (docs/testing.md)."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model

from games.actions import do_create_game
from games.identity import player_for_user
from games.models import Game, Player
from tests.browser_support import (  # noqa: F401  (fixtures)
    browser,
    close_browser,
    live_url,
    make_page,
    page,
)
from tests.live import postgres_pair, server_pair  # noqa: F401  (fixtures)
from tests.race_support import (  # noqa: F401  (fixtures)
    fast_countdown,
    finished_race,
    generous_budget,
    make_client,
    make_race,
    near_win_for,
    no_countdown,
    open_duo,
    race_socket,
    run,
    running_race,
    statements,
)
from tests.support import (
    ORIGIN,
    RecordingCommunicator,
    assert_no_hidden_cards,
    check_frame_hides_cards,
    log_in_as_guest,
)
from tests.winnable_support import (  # noqa: F401  (fixtures)
    background_searches,
    held_worker,
    solver_off_the_request,
    solver_proves_nothing,
)

# Race tests follow every move's `progress` frame; the tick has tests of its own
# (tests/races/test_race_announce.py). Servers the tests start inherit the environment.
os.environ["RACE_PROGRESS_TICK_MS"] = "0"
# No background daily picks (solver runs and writes beside the test's own) unless a test asks for
# them (tests/daily/test_daily_warmup.py): in this process below, in the servers tests start here.
os.environ["DAILY_WARMUP"] = "0"
os.environ["WINNABLE_POOL_REFILL"] = "0"
os.environ["REPLAY_ANALYSIS"] = "0"  # losing-move searches: tests/daily/test_replay_losing_move.py
os.environ["BACKGROUND_WORKER"] = "thread"  # so that a test's monkeypatched solver reaches it
os.environ["BACKGROUND_YIELD_PRESSURE"] = "0"  # a test's searches run however busy the machine

PASSWORD = "correct-horse-battery-9"

BROWSER_FIXTURES = {"browser"}
LIVE_FIXTURES = {"live_url", "server_pair", "postgres_pair"}
# Servers of their own, seeded, that a module (`screens`, tests/browser/test_screens.py) or a
# worker's session (`seeded_site`, tests/seeded_site.py) starts: their tests go to one worker
# (pytest-xdist's loadgroup), which starts the server once instead of each worker its own.
ONE_WORKER_FIXTURES = {"screens", "seeded_site"}
# Tests that spend most of their wall clock waiting, on the clock of what they test: the fault
# drills (a fault mid-load, then ping timeouts and restarts), the bots (at their own pace), kills
# mid-race and load runs of a fixed length. Each lane is one xdist group, its tests one after
# another on one worker, so that two workers wait while the other two keep the two cores busy.
# Spread over every worker as single tests (long ones first), they had all four waiting at once
# early in the run: the cores 40-75% idle for a minute. The lanes are about even (150-165 s of
# the tests' durations in a whole run at load 10, the figures after each name) and well under
# the run's length; a module named here without a test is all in that lane. A module whose
# tests must share a worker for its own fixture (the bots' server) names its lane in its own
# `xdist_group` mark, since pytest-xdist joins every group name an item has into one.
WAITING_LANES = {
    "tests/faults/test_fault_drills.py::test_a_postgres_restart_mid_race_costs_no_move": (
        "waiting_a"  # 35-38 s
    ),
    "tests/faults/test_fault_drills.py::"
    "test_an_arena_goes_on_and_keeps_every_point_when_redis_restarts_empty": "waiting_a",  # 28-30
    "tests/faults/test_fault_drills.py::test_a_vanished_client_is_dropped_and_its_seat_kept": (
        "waiting_a"  # 21
    ),
    "tests/faults/test_fault_drills.py::"
    "test_a_killed_server_s_racers_resume_on_the_other_with_nothing_lost": "waiting_a",  # 18-20
    "tests/faults/test_quick_race_kill.py": "waiting_a",  # 21-31
    "tests/faults/test_loadtest_smoke.py": "waiting_a",  # 17 (two tests)
    "tests/faults/test_rating_close_kill.py": "waiting_a",  # 6
    "tests/faults/test_practice_load_smoke.py": "waiting_a",  # 5
    "tests/fairplay/test_bots_live.py": "waiting_b",  # 77-82 (six tests)
    "tests/faults/test_fault_drills.py::"
    "test_a_killed_server_behind_the_proxy_hands_its_racers_to_the_other": "waiting_b",  # 22-27
    "tests/faults/test_fault_drills.py::test_a_reader_that_never_reads_does_not_grow_the_server": (
        "waiting_b"  # 21-24
    ),
    "tests/faults/test_fault_drills.py::test_races_go_on_when_redis_restarts_empty": (
        "waiting_b"  # 18-19
    ),
}
REDIS_DATABASES = 16


def pytest_configure(config):
    """On PostgreSQL each test process's pool lets go of connections idle for 5 s (psycopg's
    default is 10 minutes, for a server): four workers keeping every connection their threads
    ever took, beside their servers' and the drills', ran a shared PostgreSQL out of its 100."""
    from django.conf import settings

    pool = settings.DATABASES["default"].get("OPTIONS", {}).get("pool")
    if isinstance(pool, dict):
        pool["max_idle"] = 5
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        from django.db.backends.postgresql.operations import DatabaseOperations

        DatabaseOperations.sql_flush = flush_by_delete(DatabaseOperations.sql_flush)


def flush_by_delete(truncate):
    """A `transaction=True` test's flush on PostgreSQL deletes the rows instead of truncating the
    tables: TRUNCATE gives each of the ~30 tables new files, 1.1 s a flush on this machine
    against 13 ms for the DELETEs of a test's few rows (docs/testing.md). The same tables are
    emptied in the flush's transaction; the foreign keys, all deferred, are checked at its
    commit, when every table is empty. Sequences are left as TRUNCATE without RESTART IDENTITY
    leaves them; a flush that resets them or cascades truncates as before."""

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade or not tables:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return [
            "SET CONSTRAINTS ALL DEFERRED;",
            *(f"DELETE FROM {self.quote_name(table)};" for table in tables),
        ]

    return sql_flush


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """Each pytest-xdist worker gets a Redis database of its own: REDIS_URL's number plus the
    worker's (gw0: REDIS_URL's own), in its environment before Django reads its settings, so
    that its servers inherit it too. Its test database (pytest-django adds `_gw0`), the
    databases its tests make (tests/live.py `worker_name`) and its ports (scripts/servers.py)
    follow from PYTEST_XDIST_WORKER."""
    url = os.environ.get("REDIS_URL", "")
    if not url:
        return
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    if base + len(specs) > REDIS_DATABASES:
        raise pytest.UsageError(
            f"REDIS_URL {url}: {len(specs)} workers need databases {base}-{base + len(specs) - 1}"
        )
    for number, spec in enumerate(specs):
        spec.env["REDIS_URL"] = parts._replace(path=f"/{base + number}").geturl()


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Markers that follow from fixtures (`browser`, `live`, `xdist_group`), before any other
    plugin's hook (pytest-xdist reads the groups in its own); and the order, after every other
    plugin's: slow tests first (the long poles, started while the fast ones fill the other
    workers), then the browser tests one after another (so that a worker launches its Chromium
    once), then the rest.

    pytest-django sorts by database use in its own hook (Django's order: tests in a transaction,
    then `transaction=True` ones, then those without a database), which put every slow test
    without a database (the solver, the drills, the browsers) at the end of the run: a tail of
    minutes on a few workers. The sort here keeps that order within each rank (it is stable);
    a `transaction=True` test may now come before one in a transaction, which only matters for
    rows that migrations write, and ours write none that tests read (the content types and
    permissions, which a flush leaves empty: `flush_writes_no_content_types`)."""
    for item in items:
        fixtures = set(item.fixturenames)
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if fixtures & (LIVE_FIXTURES | BROWSER_FIXTURES):
            item.add_marker(pytest.mark.live)
        for name in sorted(fixtures & ONE_WORKER_FIXTURES):
            item.add_marker(pytest.mark.xdist_group(name))
        module, _, name = item.nodeid.partition("::")
        lane = WAITING_LANES.get(f"{module}::{name.split('[')[0]}") or WAITING_LANES.get(module)
        if lane is not None:
            item.add_marker(pytest.mark.xdist_group(lane))
    result = yield

    def rank(item) -> int:
        if item.get_closest_marker("browser"):
            return 1
        return 0 if item.get_closest_marker("slow") else 2

    items.sort(key=rank)
    return result


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last of a run of browser tests, the worker's Chromium is closed: Playwright's
    event loop must not stay marked running for the tests that follow (tests/browser_support).
    After the session's last test this comes too late: the runner's own hook has already torn
    down the session's fixtures (`browser_closed_before_the_test_databases`)."""
    if nextitem is None or not set(nextitem.fixturenames) & BROWSER_FIXTURES:
        close_browser()


@pytest.fixture(scope="session", autouse=True)
def browser_closed_before_the_test_databases(django_db_setup):
    """A worker whose last test is a browser test closes its Chromium before pytest-django
    drops the test databases. The session's fixtures are torn down in the runner's
    `pytest_runtest_teardown` of the last test, before the trylast one above; with Playwright's
    event loop still marked running, Django refused the teardown (SynchronousOnlyOperation) and
    left the databases behind. This fixture needs `django_db_setup`, so it is torn down first."""
    yield
    close_browser()


@pytest.fixture(scope="session", autouse=True)
def flush_writes_no_content_types(django_db_setup):
    """A `transaction=True` test's flush empties the tables and then sends `post_migrate`, whose
    receivers write every content type and permission again: 8 of `make check`'s 105 CPU-seconds,
    for rows the site never reads (no permission is checked: staff are superusers; the admin's
    log asks for a content type with `get_or_create`). The test databases are migrated with
    them first; after that they are left to the tests (docs/testing.md)."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes
    from django.db.models.signals import post_migrate

    uid = "django.contrib.auth.management.create_permissions"
    post_migrate.disconnect(create_permissions, dispatch_uid=uid)
    post_migrate.disconnect(create_contenttypes)
    yield
    post_migrate.connect(create_contenttypes)
    post_migrate.connect(create_permissions, dispatch_uid=uid)


@pytest.fixture(autouse=True)
def content_types_read_afresh():
    """Each test reads the content types from its database: `ContentType.objects` caches them
    by model in the process, and a `transaction=True` test's flush deletes the rows (none are
    written again: `flush_writes_no_content_types`), so an admin's change logged after it
    named a content type id that was gone, and the test's end failed on the foreign key."""
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()


@pytest.fixture(autouse=True)
def announce_every_race_move(settings):
    settings.RACE_PROGRESS_TICK_MS = 0


@pytest.fixture(autouse=True)
def no_newest_race_remembered():
    """The races list remembers its newest race in the cache, which outlives a test's database
    rows: each test starts with it forgotten (records/recent_races.py)."""
    from records.recent_races import forget_newest

    forget_newest()


@pytest.fixture
def make_account(db):
    """make(name=None) -> the Player of a new signed-up account."""
    counter = iter(range(1, 10_000))

    def make(name: str | None = None) -> Player:
        user = get_user_model().objects.create_user(name or f"player{next(counter)}")
        return player_for_user(user)

    return make


@pytest.fixture
def account(make_account) -> Player:
    return make_account("alice")


@pytest.fixture
def player(db) -> Player:
    return Player.objects.create(nickname="Alice")


@pytest.fixture
def other_player(db) -> Player:
    return Player.objects.create(nickname="Mallory")


@pytest.fixture
def password() -> str:
    """The password of `user`."""
    return PASSWORD


@pytest.fixture
def user(db):
    """An account with `password` (hashed with MD5, as every password of the tests:
    solitaire_site/test_settings.py)."""
    return get_user_model().objects.create_user(username="bob", password=PASSWORD)


@pytest.fixture
def guest_client(client, player):
    """A test client whose session belongs to the guest `player`."""
    log_in_as_guest(client, player)
    return client


@pytest.fixture
def user_client(client, user):
    """A test client logged in as `user`."""
    client.force_login(user)
    return client


@pytest.fixture
def held_jobs(monkeypatch):
    """hold(queue): a `JobQueue` that never reaches the worker, emptied now and after the test;
    what it returns lists the keys the queue was handed, in order (the one it would send to the
    worker, then those waiting behind it)."""
    held = []

    def empty(queue) -> None:
        queue.running = None
        queue.queued.clear()
        queue.again.clear()

    def hold(queue):
        empty(queue)
        monkeypatch.setattr(queue, "_submit", lambda key: None)
        held.append(queue)
        return lambda: [k for k in (queue.running, *queue.queued) if k is not None]

    yield hold
    for queue in held:
        empty(queue)


@pytest.fixture
def pressure(monkeypatch, settings):
    """The machine's CPU pressure as the test sets it (`pressure.now`, percent), with queues
    that yield looking again every 0.05 s and work that can wait yielding at 10%
    (games/worker.py: the tests otherwise run with the limit at 0)."""

    from games import worker

    class Pressure:
        now = 0.0

    monkeypatch.setattr(worker, "cpu_pressure", lambda: Pressure.now)
    monkeypatch.setattr(worker, "YIELD_RECHECK_S", 0.05)
    settings.BACKGROUND_YIELD_PRESSURE = 10
    return Pressure


@pytest.fixture
def make_game(db):
    """Create a game: make_game(player, variant="penguin", seed=1, kind=..., start_state=None)."""

    def make(player: Player, variant: str = "penguin", seed: int = 1, **kwargs) -> Game:
        return do_create_game(player, variant, seed, **kwargs)

    return make


@pytest.fixture
def check_hidden_cards():
    """The check every socket test's frames pass: check(frame_text) asserts nothing leaks."""
    return check_frame_hides_cards


@pytest.fixture
def sent_frames() -> list[str]:
    """Every text frame any communicator of this test received, in order."""
    return []


@pytest.fixture
async def connect(sent_frames):
    """connect(client=None, origin=ORIGIN, path="/ws/game/") -> a connected communicator.

    Goes through the real ASGI application (origin check, session and auth middleware). The
    client's session cookie authenticates it. Every communicator is disconnected after the
    test, and every frame they received is checked to hide what the player may not see.
    """
    from solitaire_site.asgi import application

    opened: list[RecordingCommunicator] = []

    async def open_socket(client=None, origin: bytes | None = ORIGIN, path: str = "/ws/game/"):
        headers = []
        if origin is not None:
            headers.append((b"origin", origin))
        if client is not None:
            cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
            if cookie is not None:
                headers.append(
                    (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie.value}".encode())
                )
        communicator = RecordingCommunicator(application, path, headers=headers, log=sent_frames)
        connected, _ = await communicator.connect()
        opened.append(communicator)
        communicator.connected = connected
        return communicator

    yield open_socket
    for communicator in opened:
        await communicator.disconnect()
    await database_sync_to_async(assert_no_hidden_cards)(sent_frames)


@pytest.fixture(autouse=True)
def no_background_solving(settings):
    """No daily deals picked, no winnable deals pooled, no losing moves searched and no games
    assessed for fair play in the background, unless the test turns it on."""
    settings.DAILY_WARMUP = False
    settings.WINNABLE_POOL_REFILL = False
    settings.REPLAY_ANALYSIS = False
    settings.FAIRPLAY_ASSESSMENT = False
    settings.BACKGROUND_WORKER = "thread"
    settings.BACKGROUND_YIELD_PRESSURE = 0


@pytest.fixture
def no_search(monkeypatch):
    """Any winnable-deal solver search fails the test: what is asked must come without one."""
    monkeypatch.setattr("games.winnable.solve", None)


@pytest.fixture(scope="session", autouse=True)
def writer_connection_closed_at_the_end(django_db_setup, django_db_blocker):
    """Threads that ran the tests' ORM calls keep their last connection checked out of the
    pool, where dropping the test database would find it ("being accessed by other users"):
    the move writer's thread, and asgiref's one thread for `database_sync_to_async` (the async
    tests' ORM calls) give theirs back before it is dropped; Django closes the pool then."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    from games.storage import close_writer_connection

    with django_db_blocker.unblock():
        close_writer_connection()
        SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True)
def fresh_games_in_play():
    """Each test starts with no game held in memory by the process."""
    from games.play import forget

    forget()
    yield
    forget()


@pytest.fixture(autouse=True)
def fresh_player_budgets():
    """Each test starts with every player's per-player rate budget unused (ids can repeat)."""
    from games.throttles import GAME_WRITES, RACE_FORMS, RACE_WRITES

    for budget in (GAME_WRITES, RACE_FORMS, RACE_WRITES):
        budget.clear()
    yield
    for budget in (GAME_WRITES, RACE_FORMS, RACE_WRITES):
        budget.clear()


@pytest.fixture
def store_faults(monkeypatch):
    """store_faults(fail): every batch the writer stores calls `fail()` first (which may raise),
    before its statement: on the writer's thread, or on its event loop for a plain batch sent
    from there."""

    from games import storage

    def install(fail) -> None:
        apply, apply_from_loop = storage.apply, storage.LoopConnection.apply

        def failing_apply(writes):
            fail()
            return apply(writes)

        async def failing_apply_from_loop(own, writes):
            fail()
            return await apply_from_loop(own, writes)

        monkeypatch.setattr(storage, "apply", failing_apply)
        monkeypatch.setattr(storage.LoopConnection, "apply", failing_apply_from_loop)

    return install
