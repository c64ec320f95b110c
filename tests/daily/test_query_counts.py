"""Every page and API runs as many queries for a light world as for a heavy one (issue 18).

The same addresses are asked twice: once with a player of ten games, a board of ten entries, a
race of two racers, a replay of ten moves; then after the world has grown to a player of 800
games and 40 races, boards of 120 entries, 60 races, a race of eight, a replay of 800 moves. A
count that grows with the data is a query per row (an N+1).

On PostgreSQL the heavy world's queries are also explained with sequential scans turned off:
a plan that still scans a big table has no index to use.

The world is built once for the module (`worlds`): every case's light queries are taken, then
it grows and is analysed once, and each test asks its page of the heavy world.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from daily.dealpick import utc_day
from daily.models import DailyAttempt, DailyChallenge
from games.identity import player_for_user
from games.models import Game, Move, Player, Variant
from games.play import forget as forget_games_in_play
from races.models import Race, Racer
from records import analysis, page_cache, tables, views
from records import recent_races as races_list
from records.demo import own_timestamps, play_long

# The module's world is built once per worker that runs its tests: all of them on one worker.
pytestmark = pytest.mark.xdist_group("query_counts")

VARIANT = "penguin"
VARIANTS = [VARIANT, *(v for v in Variant.values if v != VARIANT)]
BIG_TABLES = ("games_game", "games_move", "daily_dailyattempt", "races_race", "races_racer")

PAGES = [
    "/daily/",
    "/daily/penguin/",
    "/daily/penguin/{day}/",
    "/leaderboards/",
    "/leaderboards/races/",
    "/leaderboards/races/?page=2&per_page=10",
    "/leaderboards/fastest/penguin/",
    "/leaderboards/wins/penguin/",
    "/leaderboards/streak/penguin/",
    "/players/{player}/",
    "/replay/{game}/",
    "/races/",
    "/races/{race}/",
    "/races/{race}/results/",
    "/replay/race/{race}/",
    "/api/daily/",
    "/api/leaderboards/races/",
    "/api/leaderboards/races/?variant=penguin",
    "/api/leaderboards/daily/penguin/{day}/",
    "/api/leaderboards/daily/penguin/{day}/?player={player}",
    "/api/leaderboards/fastest/penguin/",
    "/api/leaderboards/wins/penguin/",
    "/api/leaderboards/streak/penguin/",
    "/api/players/{player}/",
    "/api/replays/{game}/",
    "/api/races/{race}/replay/",
]


class World:
    """A player, their games, races and dailies, a board, a race and a replay, that can grow."""

    def __init__(self) -> None:
        self.rng = random.Random(18)
        self.now = timezone.now()
        self.today = utc_day(self.now)
        self.day = self.today - dt.timedelta(days=1)
        self.accounts = 0
        self.player = self.account()
        self.challenges = {
            back: DailyChallenge.objects.create(
                variant=VARIANT,
                day=self.today - dt.timedelta(days=back),
                seed=back,
                candidate=0,
                proof=DailyChallenge.Proof.UNKNOWN,
            )
            for back in range(0, 31)
        }
        for variant in VARIANTS[1:]:  # today's deal of every game, as the warm-up picks them
            DailyChallenge.objects.create(
                variant=variant, day=self.today, seed=1, candidate=0, proof="unknown"
            )
        self.games(self.player, 10)
        self.dailies([self.player], days=range(1, 4))
        self.dailies([self.account() for _ in range(9)], days=[0, 1])
        self.race = self.races([self.player, self.account()])[0]
        self.races([self.account(), self.account()], count=11)  # a second page of ten
        self.replayed = self.finished_game(self.player)
        self.log(self.replayed, 10)
        call_command("rebuild_leaderboards", verbosity=0)

    def grow(self) -> None:
        others = [self.account() for _ in range(110)]
        self.games(self.player, 790)
        self.dailies([self.player], days=range(4, 31))
        self.dailies(others, days=[0, 1, 2])
        for _ in range(38):
            self.races([self.player, *self.rng.sample(others, 5)])
        self.races([self.account(), self.account()], count=20)
        for other in others[:6]:
            self.join(self.race, other)
        self.log(self.replayed, 800)
        call_command("rebuild_leaderboards", verbosity=0)

    # ------------------------------------------------------------ rows

    def account(self) -> Player:
        self.accounts += 1
        user = get_user_model().objects.create_user(f"world{self.accounts}")
        return player_for_user(user)

    def finished_game(self, player: Player, kind=Game.Kind.PRACTICE, seed=None, won=True) -> Game:
        started = self.now - dt.timedelta(hours=self.rng.randint(30, 2000))
        return Game(
            player=player,
            variant=VARIANT,
            seed=self.rng.randrange(10**6) if seed is None else seed,
            kind=kind,
            status=Game.Status.WON if won else Game.Status.RESIGNED,
            started_at=started,
            finished_at=started + dt.timedelta(seconds=self.rng.randint(60, 900)),
            move_count=100,
        )

    def games(self, player: Player, count: int) -> None:
        rows = [self.finished_game(player, won=self.rng.random() < 0.5) for _ in range(count)]
        Game.objects.bulk_create(rows)

    def dailies(self, players: list[Player], days) -> None:
        for back in days:
            challenge = self.challenges[back]
            for player in players:
                game = self.finished_game(player, Game.Kind.DAILY, challenge.seed)
                game.save()
                DailyAttempt.objects.create(
                    challenge=challenge,
                    player=player,
                    game=game,
                    ranked=True,
                    foundations=52,
                    foundations_ms=self.rng.randint(60_000, 900_000),
                    elapsed_ms=self.rng.randint(60_000, 900_000),
                )

    def races(self, players: list[Player], count: int = 1) -> list[Race]:
        made = []
        for _ in range(count):
            number = Race.objects.count()
            race = Race.objects.create(
                code=f"Q{number:05d}".replace("0", "Z").replace("1", "Y")[:6],
                host=players[0],
                variant=VARIANT,
                seed=number,
                visibility=Race.Visibility.PUBLIC,
                status=Race.Status.FINISHED,
                starts_at=self.now - dt.timedelta(hours=2),
                ends_at=self.now - dt.timedelta(hours=1),
                finished_at=self.now - dt.timedelta(minutes=90 + number),
            )
            for player in players:
                self.join(race, player)
            made.append(race)
        return made

    def join(self, race: Race, player: Player) -> None:
        game = self.finished_game(player, Game.Kind.RACE, race.seed)
        game.save()
        place = race.racers.count() + 1
        Racer.objects.create(
            race=race,
            player=player,
            name=player.nickname,
            game=game,
            status=Racer.Status.WON,
            cards=52,
            finish_ms=place * 1000,
            done_ms=place * 1000,
            place=place,
        )

    def log(self, game: Game, rows: int) -> None:
        """Give a finished game a real move log of ``rows`` rows, played on the engine."""
        game.save()
        Move.objects.filter(game=game).delete()
        log, engine = play_long(game.variant, game.seed, rows, random.Random(rows))
        Move.objects.bulk_create(
            Move(game=game, seq=i + 1, move=move, at=game.started_at + dt.timedelta(seconds=i))
            for i, move in enumerate(log)
        )
        game.seq, game.move_count = len(log), engine.move_count
        game.status = Game.Status.RESIGNED
        game.save()

    def url(self, page: str) -> str:
        return page.format(
            day=self.day.isoformat(),
            player=self.player.pk,
            game=self.replayed.public_id,
            race=self.race.code,
        )


# Where who looks changes what is shown (own attempts, own replays, own row), also signed in.
SIGNED_IN = [
    "/daily/",
    "/daily/penguin/",
    "/daily/penguin/{day}/",
    "/players/{player}/",
    "/replay/{game}/",
    "/races/{race}/",
    "/races/{race}/results/",
    "/api/leaderboards/daily/penguin/{day}/",
    "/api/players/{player}/",
]
CASES = [(page, "anonymous") for page in PAGES] + [(page, "the player") for page in SIGNED_IN]


def client_of(client, world: World, who: str):
    if who == "the player":
        client.force_login(world.player.user)
    return client


def queries_of(client, url: str) -> list[str]:
    """The queries of a warm request (sessions, boards and caches made by a first one)."""
    first = client.get(url)
    assert first.status_code in (200, 302), (url, first.status_code)
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    return [q["sql"] for q in captured.captured_queries]


@dataclass
class Worlds:
    """The world grown heavy, and each case's queries (or what went wrong) while it was light."""

    world: World
    light: dict[tuple[str, str], list[str] | Exception]


@pytest.fixture(scope="module")
def worlds(django_db_setup, django_db_blocker, module_board_prefix) -> Iterator[Worlds]:
    """One world for the module's cases, as Django's setUpTestData makes it: built in a
    transaction the module's tests run inside (each test's own is a savepoint of it) and rolled
    back after the last. Every case's light queries are taken first, each with a client of its
    own; then the world grows, and on PostgreSQL is analysed, once."""
    # What the root conftest's autouse fixtures set for each test, set before the module's
    # first: no background daily picks, pool refills or replay searches, every race move
    # announced, no newest race or game in play remembered from an earlier test.
    quiet = override_settings(
        DAILY_WARMUP=False,
        WINNABLE_POOL_REFILL=False,
        REPLAY_ANALYSIS=False,
        BACKGROUND_WORKER="thread",
        RACE_PROGRESS_TICK_MS=0,
    )
    races_list.forget_newest()
    forget_games_in_play()
    with quiet, contextlib.ExitStack() as stack, pytest.MonkeyPatch.context() as patch:
        # The losing-move search is not what is counted here (and takes seconds): none at all.
        patch.setattr(analysis, "first_losing_move_from", lambda *a, **k: None)
        # The races list's cache (records/recent_races.py) would answer the counted request with one
        # query: counted and explained here are the queries that build a page.
        patch.setattr(races_list, "CACHE_SECONDS", 0)
        patch.setattr(tables, "ROWS_CACHE_SECONDS", 0)  # and the boards' rows (records/tables.py)
        patch.setattr(views, "ROWS_HTML_SECONDS", 0)  # their tables
        patch.setattr(page_cache, "PAGE_SECONDS", 0)  # and whole pages for anonymous visitors
        with django_db_blocker.unblock():
            outer = transaction.atomic()
            outer.__enter__()
            stack.callback(roll_back, outer, django_db_blocker)
            with own_timestamps(Game):  # games played in the past, not all this instant
                made = World()
            light: dict[tuple[str, str], list[str] | Exception] = {}
            for page, who in CASES:
                races_list.forget_newest()
                try:
                    light[page, who] = queries_of(client_of(Client(), made, who), made.url(page))
                except Exception as error:  # the case's test raises it
                    light[page, who] = error
            with own_timestamps(Game):
                made.grow()
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
        yield Worlds(made, light)


def roll_back(outer, django_db_blocker) -> None:
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)


@pytest.fixture
def board_prefix(module_board_prefix):
    """The boards are the module world's (tests/daily/conftest.py gives each test its own)."""
    return module_board_prefix


@pytest.fixture
def world(db, worlds: Worlds) -> World:
    """The heavy world; the test runs in a savepoint of the module's transaction."""
    return worlds.world


@pytest.mark.slow
@pytest.mark.parametrize(("page", "who"), CASES)
def test_query_count_is_the_same_for_a_heavy_world(client, worlds, world, page, who):
    light = worlds.light[page, who]
    if isinstance(light, Exception):
        raise light
    heavy = queries_of(client_of(client, world, who), world.url(page))
    assert len(heavy) == len(light), "\n".join(heavy)


@pytest.mark.slow
@pytest.mark.skipif(connection.vendor != "postgresql", reason="EXPLAIN plans are PostgreSQL's")
@pytest.mark.parametrize(("page", "who"), CASES)
def test_every_query_of_a_page_can_use_an_index(client, world, page, who):
    viewer = client_of(client, world, who)
    scans = []
    for sql in queries_of(viewer, world.url(page)):
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute(f"EXPLAIN {sql}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
        scans += [(table, sql) for table in BIG_TABLES if f"Seq Scan on {table}" in plan]
    assert scans == []
