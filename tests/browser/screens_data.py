"""What the screens tests (tests/browser/test_screens.py) look at, written into the database of
their own live server: `python manage.py shell -c "from tests.browser.screens_data import seed;
seed()"` with that server's DATABASE_URL. Long names everywhere (24 characters, the most a
nickname may have), so that a table that does not fit a phone shows it.

- a rated quick race of eight signed-in racers, finished: two won, the rest resigned, the first
  two of the losers with the same curve of cards home (one line hides the other unless drawn
  apart), each racer's rating change;
- an unrated race on a chosen deal, finished, between a guest and a signed-in player;
- a public race waiting in the lobby, and one running;
- every racer's race games (replays), a practice game each, and their ratings;
- yesterday's daily board of Penguin (its replays open): a win, and the one-word racer's ranked
  game given up with one card home;
- an account that has played nothing yet (its page's tables empty).
"""

from __future__ import annotations

import datetime as dt
import json

from django.contrib.auth import get_user_model
from django.utils import timezone

from daily.dealpick import utc_day
from daily.models import DailyAttempt, DailyChallenge
from games.models import Game, Player
from races.models import Race, Racer, Rating, RatingChange

NAMES = [
    "Bartholomew Longfellow",
    "Maximiliana Wintergreen",
    "Theodora Featherstonehaug",
    "Corneliusapplethwaiteson",  # one word of 24 characters, the longest a nickname may be
    "Persephone Quillfeather",
    "Archibald Fotheringham",
    "Wilhelmina Thistlewood",
    "Montgomery Ravenscroft",
]
SAME_CURVE = [[20_000, 4], [55_000, 9], [90_000, 14]]


def game_for(player: Player, race: Race, won: bool, ms: int) -> Game:
    game = Game.objects.create(
        player=player,
        variant=race.variant,
        seed=race.seed,
        kind=Game.Kind.RACE,
        status=Game.Status.WON if won else Game.Status.RESIGNED,
        finished_at=race.starts_at + dt.timedelta(milliseconds=ms),
        move_count=120,
        seq=120,
    )
    Game.objects.filter(pk=game.pk).update(started_at=race.starts_at)  # not "now" (auto_now_add)
    game.started_at = race.starts_at
    return game


def finished(code: str, host: Player, **fields) -> Race:
    now = timezone.now()
    starts = now - dt.timedelta(minutes=10)
    return Race.objects.create(
        code=code,
        host=host,
        seed=1234567890123,
        status=Race.Status.FINISHED,
        visibility=Race.Visibility.PUBLIC,
        starts_at=starts,
        ends_at=starts + dt.timedelta(minutes=10),
        finished_at=starts + dt.timedelta(minutes=3),
        time_limit_s=600,
        **fields,
    )


def daily_board(winner: Player, loser: Player) -> dt.date:
    """Yesterday's Penguin challenge: `winner` won it in 3:10, `loser` gave up with 1 card home."""
    day = utc_day(timezone.now()) - dt.timedelta(days=1)
    challenge = DailyChallenge.objects.create(
        variant="penguin", day=day, seed=77, candidate=0, proof=DailyChallenge.Proof.UNKNOWN
    )
    started = timezone.now() - dt.timedelta(days=1)
    for player, won in [(winner, True), (loser, False)]:
        game = Game.objects.create(
            player=player,
            variant="penguin",
            seed=challenge.seed,
            kind=Game.Kind.DAILY,
            status=Game.Status.WON if won else Game.Status.RESIGNED,
            finished_at=started + dt.timedelta(minutes=4),
            move_count=90,
            seq=90,
        )
        Game.objects.filter(pk=game.pk).update(started_at=started)
        DailyAttempt.objects.create(
            challenge=challenge,
            player=player,
            game=game,
            ranked=True,
            foundations=52 if won else 1,
            foundations_ms=190_000 if won else 30_000,
            elapsed_ms=190_000 if won else 240_000,
        )
    return day


def seed() -> dict:
    users = get_user_model()
    players = []
    for i, name in enumerate(NAMES):
        user = users.objects.create_user(username=f"racer{i}", password="a-long-test-pass-42")
        players.append(Player.objects.create(nickname=name[:24], user=user))
    guest = Player.objects.create(nickname="Guestina Longnameworth")
    user = users.objects.create_user(username="idle", password="a-long-test-pass-42")
    idle = Player.objects.create(nickname="Idle Ida", user=user)

    rated = finished("RATED2", players[0], variant="penguin", quick=True, rated=True)
    for place, player in enumerate(players, start=1):
        won = place <= 2
        ms = 60_000 + place * 7_300
        racer = Racer.objects.create(
            race=rated,
            player=player,
            name=player.nickname,
            game=game_for(player, rated, won, ms),
            ready=True,
            status=Racer.Status.WON if won else Racer.Status.RESIGNED,
            cards=52 if won else 14,
            cards_at_ms=ms,
            moves=120,
            finish_ms=ms if won else None,
            done_ms=ms,
            place=place,
            curve=[[10_000 * place, 8], [ms, 52]] if won else SAME_CURVE,
        )
        mu = 1500.0 + (4 - place) * 12.5  # ratings start at 1500 (races/ratings)
        RatingChange.objects.create(
            race=rated,
            player=player,
            variant=rated.variant,
            mu_before=1500.0,
            mu_after=mu,
            sigma_after=300.0,
            races=1,
            at=rated.finished_at,
        )
        Rating.objects.create(player=player, variant=rated.variant, mu=mu, sigma=300.0, races=1)
        Game.objects.create(player=player, variant="queenie", seed=place, status="stuck")
        assert racer.pk

    unrated = finished("CHSE34", guest, variant="spiderweb", seed_chosen=True)
    for place, player in enumerate([guest, players[1]], start=1):
        Racer.objects.create(
            race=unrated,
            player=player,
            name=player.nickname,
            game=game_for(player, unrated, place == 1, 70_000 * place),
            ready=True,
            status=Racer.Status.WON if place == 1 else Racer.Status.RESIGNED,
            cards=104 if place == 1 else 30,
            cards_at_ms=70_000 * place,
            moves=150,
            finish_ms=70_000 if place == 1 else None,
            done_ms=70_000 * place,
            place=place,
        )

    waiting = Race.objects.create(
        code="WAT452",
        host=players[2],
        variant="eighty-thieves",
        seed=5,
        time_limit_s=900,
        visibility=Race.Visibility.PUBLIC,
        winnable=True,
    )
    running = Race.objects.create(
        code="RNG678",
        host=players[3],
        variant="penelopes-web",
        seed=6,
        seed_chosen=True,
        visibility=Race.Visibility.PUBLIC,
        status=Race.Status.STARTED,
        starts_at=timezone.now(),
        ends_at=timezone.now() + dt.timedelta(minutes=30),
    )
    for race in (waiting, running):
        for player in players[2:8]:
            Racer.objects.create(race=race, player=player, name=player.nickname)
    yesterday = daily_board(players[0], players[3])
    made = {
        "rated": rated.code,
        "unrated": unrated.code,
        "player": players[0].pk,
        "idle": idle.pk,
        "replay": rated.racers.get(place=1).game.public_id,
        "daily_day": yesterday.isoformat(),
    }
    print(json.dumps(made))
    return made
