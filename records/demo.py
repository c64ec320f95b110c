"""A realistic data set on demand (``manage.py seed_demo``): players, daily attempts, races, games.

For benchmarks at a million games and for a newcomer who wants full leaderboards. Rows are made
in memory a batch at a time and written with ``bulk_create``, so a million games take minutes
and the memory stays flat. The shape follows a live service: a few players play a great deal
and most a little (weights fall as 1/(rank + 20)); accounts play the daily challenge with a
steady habit of their own, so streaks form; races have two to eight racers.

A handful of long games are played on the engine itself (a mostly greedy random player with a
few undos), so their replays and move logs are real.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max

from daily.dealpick import day_start, utc_day
from daily.models import DailyAttempt, DailyChallenge
from games.engine import VARIANT_INFO, VARIANTS, new_game
from games.models import MAX_SEED, Game, Move, Player
from races.codes import CODE_ALPHABET, CODE_LENGTH
from races.models import Race, Racer

BATCH = 5_000
SYLLABLES = ("ka", "lo", "mi", "ra", "ne", "to", "su", "vi", "da", "pe", "jo", "ri", "an", "el")
Progress = Callable[[str, int], None]  # (what, how many more rows)


@dataclass(frozen=True)
class Sizes:
    """How much to make. ``games`` is the total of every kind (daily, race, practice)."""

    players: int = 5_000
    account_share: float = 0.5
    days: int = 30
    daily_share: float = 0.15  # of accounts, on an average day, per variant
    races: int = 1_000
    games: int = 100_000
    long_games: int = 5
    long_moves: int = 800


def cards_of(variant: str) -> int:
    return VARIANT_INFO[variant]["decks"] * 52


@contextlib.contextmanager
def own_timestamps(*models) -> Iterator[None]:
    """Let rows carry the past times given to them (auto_now_add would stamp them all now)."""
    fields = [
        f for m in models for f in m._meta.concrete_fields if getattr(f, "auto_now_add", False)
    ]
    for field in fields:
        field.auto_now_add = False
    try:
        yield
    finally:
        for field in fields:
            field.auto_now_add = True


def _nickname(rng: random.Random, number: int) -> str:
    name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
    return f"{name}{number}"


class Seeder:
    """Writes one data set; ``run`` does it all, each step reporting rows to ``progress``."""

    def __init__(self, sizes: Sizes, seed: int = 1, progress: Progress | None = None) -> None:
        self.sizes = sizes
        self.rng = random.Random(seed)
        self.progress = progress or (lambda what, n: None)
        self.now = dt.datetime.now(dt.UTC)
        self.made_games = 0
        self.players: list[int] = []
        self.accounts: list[int] = []
        self.weights: list[float] = []

    # ---------------------------------------------------------------- helpers

    def _bulk(self, model, rows: list, what: str) -> list:
        for start in range(0, len(rows), BATCH):
            model.objects.bulk_create(rows[start : start + BATCH], batch_size=BATCH)
            self.progress(what, len(rows[start : start + BATCH]))
        return rows

    def _past(self, days: float) -> dt.datetime:
        return self.now - dt.timedelta(seconds=self.rng.uniform(0, days * 86_400))

    def _finished_game(self, player: int, variant: str, kind: str, started: dt.datetime) -> Game:
        """A game over: won with a time, or resigned part of the way."""
        won = self.rng.random() < 0.4
        seconds = self.rng.lognormvariate(5.6, 0.5)  # ~4.5 minutes, a long tail
        moves = self.rng.randint(60, 260) if won else self.rng.randint(10, 200)
        return Game(
            player_id=player,
            variant=variant,
            seed=self.rng.randrange(MAX_SEED),
            kind=kind,
            status=Game.Status.WON if won else Game.Status.RESIGNED,
            started_at=started,
            finished_at=min(self.now, started + dt.timedelta(seconds=seconds)),
            move_count=moves,
            seq=moves + self.rng.randint(0, 5),
        )

    def _heavy_player(self) -> int:
        return self.rng.choices(self.players, cum_weights=self.weights)[0]

    # ---------------------------------------------------------------- steps

    def make_players(self) -> None:
        sizes = self.sizes
        accounts = round(sizes.players * sizes.account_share)
        first = (get_user_model().objects.aggregate(last=Max("pk"))["last"] or 0) + 1
        users = [
            get_user_model()(username=f"demo{first + i}", password="!", date_joined=self._past(400))
            for i in range(accounts)
        ]
        self._bulk(get_user_model(), users, "accounts")
        # Numbered after the players already there (`--force`): a chosen name is one player's.
        numbered_from = (Player.objects.aggregate(last=Max("pk"))["last"] or 0) + 1
        players = [
            Player(
                nickname=_nickname(self.rng, numbered_from + i),
                user_id=users[i].pk if i < accounts else None,
                created_at=users[i].date_joined if i < accounts else self._past(400),
            )
            for i in range(sizes.players)
        ]
        # Accounts and guests interleaved, so the busiest players are of both kinds.
        self.rng.shuffle(players)
        self._bulk(Player, players, "players")
        self.players = [p.pk for p in players]
        self.accounts = [p.pk for p in players if p.user_id is not None]
        total = 0.0
        for rank in range(len(self.players)):
            total += 1 / (rank + 20)
            self.weights.append(total)

    def make_daily(self) -> None:
        """A challenge per variant and day; accounts play it ranked, with habits of their own."""
        sizes = self.sizes
        today = utc_day(self.now)
        habit = {p: min(1.0, self.rng.expovariate(1 / sizes.daily_share)) for p in self.accounts}
        guests = [p for p in self.players if p not in habit]
        for back in range(sizes.days - 1, -1, -1):
            day = today - dt.timedelta(days=back)
            challenges = [
                DailyChallenge(
                    variant=v,
                    day=day,
                    seed=self.rng.randrange(MAX_SEED),
                    candidate=0,
                    proof=DailyChallenge.Proof.UNKNOWN,
                )
                for v in VARIANTS
            ]
            # The day's deals are kept where they exist already (a second run with --force).
            DailyChallenge.objects.bulk_create(challenges, ignore_conflicts=True)
            challenges = list(DailyChallenge.objects.filter(day=day, variant__in=VARIANTS))
            games, attempts = [], []
            opens = day_start(day)
            for challenge in challenges:
                players = [(p, True) for p, h in habit.items() if self.rng.random() < h]
                players += [(p, False) for p in self.rng.sample(guests, len(guests) // 50)]
                for player, ranked in players:
                    started = opens + dt.timedelta(seconds=self.rng.uniform(0, 86_000))
                    if started >= self.now:
                        continue
                    game = self._finished_game(player, challenge.variant, Game.Kind.DAILY, started)
                    game.seed = challenge.seed
                    cards = cards_of(challenge.variant)
                    elapsed = int((game.finished_at - started).total_seconds() * 1000)
                    won = game.status == Game.Status.WON
                    games.append(game)
                    attempts.append(
                        DailyAttempt(
                            challenge=challenge,
                            player_id=player,
                            game=game,
                            ranked=ranked,
                            foundations=cards if won else self.rng.randint(0, cards - 1),
                            foundations_ms=elapsed if won else self.rng.randint(0, elapsed),
                            elapsed_ms=elapsed,
                            created_at=started,
                        )
                    )
            self._bulk(Game, games, "games")
            for attempt in attempts:
                attempt.game_id = attempt.game.pk
            self._bulk(DailyAttempt, attempts, "daily attempts")
            self.made_games += len(games)

    def make_races(self) -> None:
        """Finished public races (a few link-only), each racer with a race game."""
        codes = set(Race.objects.values_list("code", flat=True))
        remaining = self.sizes.races
        while remaining > 0:
            count = min(BATCH // 4, remaining)
            remaining -= count
            races, entries = [], []
            for _ in range(count):
                code = "".join(self.rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                while code in codes:
                    code = "".join(self.rng.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                codes.add(code)
                racers = {self._heavy_player() for _ in range(self.rng.randint(2, 8))}
                # Started at least a few minutes ago: a race that "started" after now would
                # have finished before it started (negative times, refused by the checks).
                starts = self.now - dt.timedelta(
                    seconds=self.rng.uniform(300, max(300, self.sizes.days * 86_400))
                )
                created = starts - dt.timedelta(seconds=self.rng.randint(20, 300))
                race = Race(
                    code=code,
                    host_id=next(iter(racers)),
                    variant=self.rng.choice(VARIANTS),
                    seed=self.rng.randrange(MAX_SEED),
                    visibility=Race.Visibility.PUBLIC
                    if self.rng.random() < 0.9
                    else Race.Visibility.LINK,
                    status=Race.Status.FINISHED,
                    created_at=created,
                    starts_at=starts,
                    ends_at=starts + dt.timedelta(minutes=30),
                )
                races.append(race)
                entries.append((race, sorted(racers)))
            self._bulk(Race, races, "races")
            games, racer_rows = [], []
            for race, racers in entries:
                results = []
                for player in racers:
                    game = self._finished_game(player, race.variant, Game.Kind.RACE, race.starts_at)
                    game.seed = race.seed
                    won = game.status == Game.Status.WON
                    done = int((game.finished_at - race.starts_at).total_seconds() * 1000)
                    games.append(game)
                    results.append((not won, done, player, game, won))
                results.sort(key=lambda r: (r[0], r[1] if not r[0] else 0))
                for place, (_, done, player, game, won) in enumerate(results, start=1):
                    cards = cards_of(race.variant)
                    racer_rows.append(
                        Racer(
                            race=race,
                            player_id=player,
                            name=f"Racer{player}",
                            game=game,
                            joined_at=race.created_at,
                            ready=True,
                            status=Racer.Status.WON if won else Racer.Status.RESIGNED,
                            cards=cards if won else self.rng.randint(0, cards - 1),
                            cards_at_ms=done,
                            moves=game.move_count,
                            finish_ms=done if won else None,
                            done_ms=done,
                            place=place,
                        )
                    )
                race.finished_at = race.starts_at + dt.timedelta(
                    milliseconds=max(r[1] for r in results)
                )
            self._bulk(Game, games, "games")
            for racer in racer_rows:
                racer.game_id = racer.game.pk
            self._bulk(Racer, racer_rows, "racers")
            Race.objects.bulk_update(races, ["finished_at"], batch_size=BATCH)
            self.made_games += len(games)

    def make_practice(self) -> None:
        """Practice games to bring the total up to ``sizes.games``, most by the busiest."""
        remaining = self.sizes.games - self.made_games - self.sizes.long_games
        while remaining > 0:
            count = min(BATCH * 4, remaining)
            remaining -= count
            players = self.rng.choices(self.players, cum_weights=self.weights, k=count)
            games = [
                self._finished_game(
                    p, self.rng.choice(VARIANTS), Game.Kind.PRACTICE, self._past(self.sizes.days)
                )
                for p in players
            ]
            self._bulk(Game, games, "games")
            self.made_games += count

    def make_long_games(self) -> None:
        """Long games played on the engine by the busiest player, with real move logs."""
        player = self.players[0] if self.players else Player.objects.create().pk
        for number in range(self.sizes.long_games):
            variant = VARIANTS[number % len(VARIANTS)]
            seed = self.rng.randrange(1_000_000)
            log, engine = play_long(variant, seed, self.sizes.long_moves, self.rng)
            started = self._past(self.sizes.days)
            at = [started + dt.timedelta(seconds=1.5 * (i + 1)) for i in range(len(log))]
            game = Game.objects.create(
                player_id=player,
                variant=variant,
                seed=seed,
                kind=Game.Kind.PRACTICE,
                status=Game.Status.WON if engine.is_won() else Game.Status.RESIGNED,
                started_at=started,
                finished_at=at[-1] if at else started,
                move_count=engine.move_count,
                seq=len(log),
                state=engine.to_dict(),
            )
            moves = [Move(game=game, seq=i + 1, move=move, at=at[i]) for i, move in enumerate(log)]
            self._bulk(Move, moves, "moves")
            self.progress("games", 1)
            self.made_games += 1

    def run(self) -> int:
        """Make the whole data set; the number of games made."""
        with own_timestamps(get_user_model(), Player, Game, Move, DailyAttempt, Race, Racer):
            with transaction.atomic():
                self.make_players()
            steps = (self.make_daily, self.make_races, self.make_practice, self.make_long_games)
            for step in steps:
                with transaction.atomic():
                    step()
        return self.made_games


def play_long(variant: str, seed: int, rows: int, rng: random.Random) -> tuple[list[str], object]:
    """Play ``rows`` log rows on the engine: foundation moves first, else a random legal move,
    now and then an undo; stops early if the game is won or stuck."""
    engine = new_game(variant, seed)
    log: list[str] = []
    while len(log) < rows and not engine.is_won():
        if engine.move_count and rng.random() < 0.05:
            engine.undo()
            log.append(Move.UNDO)
            continue
        legal = engine.legal_moves()
        if not legal:
            break
        home = [m for m in legal if m.split("-")[-1].startswith("f")]
        move = rng.choice(home) if home else rng.choice(legal)
        engine.play(move)
        log.append(move)
    return log, engine
