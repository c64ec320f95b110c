"""A live server of its own on a database that seed_demo filled, for the accessibility tests
(tests/accessibility/): every table, board and chart of the site has rows.

`seeded_site` (one per test session) is its base URL and `samples`, path parameter values from
its data: the longest finished game anyone may watch now (its variant, deal and replay), the
busiest account, the newest daily board with results, the finished race with the most racers,
an ended arena (two of one name, as a schedule makes them); and three games of the busiest
account started within one minute (two in one second), an arena running and the next of one
name.
`own_daily(page, site)` and `own_lobby(page, site)` make the pages only their visitor sees;
`site_paths(page, site)` lists every route's address on it (those two pages included);
`wait_for_boards` waits until a page's card tables are drawn.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from scripts.servers import ROOT, server_env
from tests.axe_support import route_path, site_routes
from tests.browser_support import live_server_env
from tests.live import live_server_process

# A small demo data set: every table, board and chart has rows.
SEED_ARGS = ["--players", "30", "--days", "3", "--races", "12", "--games", "200"]
SEED_ARGS += ["--long-games", "2", "--long-moves", "120"]


@dataclass
class Site:
    url: str
    samples: dict[str, str]


@pytest.fixture(scope="session")
def seeded_site():
    """A live server of its own on a database seeded by seed_demo, and path parameter values
    from that data. No Redis: one process needs none, and the seeded leaderboards and caches
    stay out of the Redis the other tests' servers share (CI)."""
    env = live_server_env(database="a11y")
    env.pop("REDIS_URL", None)
    with tempfile.TemporaryDirectory(prefix="a11y-") as tmp:
        database_url = env.pop("DATABASE_URL", "") or f"sqlite:///{Path(tmp) / 'db.sqlite3'}"
        with live_server_process(env={**env, "DATABASE_URL": database_url}) as url:
            seed_env = server_env(database_url=database_url, **env)
            subprocess.run(
                [sys.executable, "manage.py", "seed_demo", "-v", "0", *SEED_ARGS],
                cwd=ROOT,
                env=seed_env,
                check=True,
                capture_output=True,
            )
            yield Site(url, seeded_samples(seed_env))


def wait_for_boards(page) -> None:
    """The page's card tables are drawn, if it shows any (the pages draw them from a socket or a
    script after the load; a race's spectator has an empty host for a racer's own board)."""
    page.wait_for_function(
        """() => {
            const race = document.querySelector('#race');  // its snapshot, then its boards
            if (race && (race.dataset.socket !== "open" || (
                !["lobby", "cancelled"].includes(race.dataset.phase)
                && !race.querySelector('[data-pile]')))) return false;
            const shown = [...document.querySelectorAll('.board-host')]
                .filter((host) => host.offsetParent !== null);
            return !shown.length || shown.some((host) => host.querySelector('[data-pile]'));
        }""",
        timeout=15_000,
    )


def own_daily(page, site: Site) -> str:
    """Start the visitor's own daily game (a page only its player sees); its public id."""
    page.goto(f"{site.url}/daily/{site.samples['variant']}/")
    page.locator("form[action$='/start/'] button[type=submit]").first.click()
    page.wait_for_url("**/daily/play/*/")
    return page.url.rstrip("/").rsplit("/", 1)[1]


def own_lobby(page, site: Site) -> str:
    """Open a race of the visitor's own: its lobby, where the host waits for racers."""
    page.goto(f"{site.url}/races/new/")
    page.locator("form.race-form button[type=submit]").click()
    page.wait_for_function("() => document.querySelector('#race[data-phase]')")
    return page.url.rstrip("/").rsplit("/", 1)[1]


def site_paths(page, site: Site) -> list[tuple[str, str]]:
    """(route name, address) of every route, its parameters filled from the seeded data; the
    visitor's own daily game and race lobby where a route shows them."""
    own = {
        "daily:play": [{"public_id": own_daily(page, site)}],
        "races:race": [{"code": site.samples["code"]}, {"code": own_lobby(page, site)}],
    }
    paths = []
    for route in site_routes():
        for values in own.get(route.name, [{}]):
            paths.append((route.name, route_path(route, {**site.samples, **values})))
    # Not a route: what any other address answers.
    paths.append(("not found", "/no-such-page/"))
    return paths


SAMPLES_SCRIPT = """
import json, django
django.setup()
from django.apps import apps
from django.db.models import Count, Max
import datetime as dt
from django.utils import timezone

Game = apps.get_model("games", "Game")
Race = apps.get_model("races", "Race")
Challenge = apps.get_model("daily", "DailyChallenge")
finished = Game.objects.exclude(status="playing")
# the player with the most games: a page with every table (games, races, ratings, streaks)
busiest = (
    Game.objects.filter(player__user__isnull=False).values("player")
    .annotate(n=Count("id")).order_by("-n", "player")[0]["player"]
)
# the longest game anyone may watch now (a daily game of today keeps its replay shut till midnight)
from records.public_replays import ReplayRefused, check_replay
def open_to_all(game):
    try:
        check_replay(game, None, timezone.now())
    except ReplayRefused:
        return False
    return True
longest = next(g for g in finished.order_by("-seq", "pk").iterator() if open_to_all(g))
challenge = Challenge.objects.filter(variant=longest.variant).annotate(n=Count("attempts")).filter(n__gt=0).order_by("-day")[0]
# a player ranked on that day (their board row's report link), else the busiest account
ranked = challenge.attempts.filter(ranked=True).order_by("pk").values_list("player", flat=True)
race = Race.objects.filter(status="finished").annotate(n=Count("racers")).order_by("-n", "pk")[0]
# an ended arena with the busiest player in it (its podium page, and their page in it, with
# two of their races), and an hour before it one of the same name, as a schedule's arenas are
Arena = apps.get_model("arenas", "Arena")
ended = timezone.now() - dt.timedelta(days=1)
for starts in (ended - dt.timedelta(hours=1), ended):
    arena, _ = Arena.objects.get_or_create(
        name="Sample arena", starts_at=starts,
        defaults={"variant": longest.variant, "ends_at": starts + dt.timedelta(minutes=30)},
    )
    apps.get_model("arenas", "ArenaPlayer").objects.get_or_create(arena=arena, player_id=busiest)
for i, raced in enumerate(Race.objects.filter(status="finished", racers__player=busiest).order_by("pk")[:2]):
    apps.get_model("arenas", "ArenaResult").objects.get_or_create(
        arena=arena, player_id=busiest, race=raced,
        defaults={"place": 1, "racers": 2, "moved": True, "won": True, "points": 4, "at_s": 60 * (i + 1),
                  "at": arena.starts_at + dt.timedelta(minutes=i + 1)},
    )
# three games of the busiest account's, of one game, started within one minute, two of them in
# one second: their latest
now = timezone.now()
minute = now.replace(second=0, microsecond=0) - dt.timedelta(minutes=1)
for second in (10, 40, 40):
    game = Game.objects.create(player_id=busiest, variant=longest.variant, seed=second, status="resigned")
    started = minute + dt.timedelta(seconds=second)
    Game.objects.filter(pk=game.pk).update(started_at=started, finished_at=started + dt.timedelta(seconds=5))
# a schedule's series: the arena running now and the next, of one name (the home page names both)
hours = dt.timedelta(hours=6)
for starts in (now - hours / 2, now + hours / 2):
    Arena.objects.create(name="Sample series", variant=longest.variant, starts_at=starts, ends_at=starts + hours)
print(json.dumps({
    "variant": longest.variant,
    "seed": str(longest.seed),
    "kind": "wins",
    "day": challenge.day.isoformat(),
    "player_id": str(busiest),
    "ranked_player_id": str(ranked.first() or busiest),
    "code": race.code,
    "public_id": longest.public_id,
    "arena_id": arena.public_id,
}))
"""


def seeded_samples(env: dict[str, str]) -> dict[str, str]:
    """Path parameter values from the seeded database the server of `env` reads: the longest
    finished game whose replay is open to anyone now (its variant, deal and replay), the busiest
    account, the newest daily board with results and a player ranked on it, the finished race
    with the most racers, an ended arena (made here: two of one name, the busiest account in
    both, with two of its races in this one). Made here too: the busiest account's latest three
    games, of one game and started within one minute (two in one second), and an arena running
    and the next, of one name."""
    out = subprocess.run(
        [sys.executable, "-c", SAMPLES_SCRIPT],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
