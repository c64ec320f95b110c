"""A held result is withheld from the boards, the streaks and the ratings until a person
decides; a confirmed account's results leave them all (fairplay/holds.py)."""

import datetime as dt

import pytest
from django.utils import timezone

from daily.models import DailyAttempt, DailyStreak
from fairplay import actions, assess, holds
from fairplay.models import Assessment
from games import actions as game_actions
from games.models import Game
from races import ratings
from races.codes import new_code
from races.models import Race, Racer, Rating, RatingChange
from races.ratings.updates import apply_ratings, recompute
from records import leaderboard
from records.boards import DAILY, FASTEST, STREAK, WINS, Board
from tests.daily.conftest import board_prefix  # noqa: F401  (each test's own boards)
from tests.fairplay.conftest import PERSON, play

pytestmark = pytest.mark.django_db


def on_boards(attempt: DailyAttempt) -> dict[str, bool]:
    """Whether the attempt's player is on each of its boards."""
    variant, day = attempt.challenge.variant, attempt.challenge.day
    boards = {
        "daily": Board(DAILY, variant, day),
        "fastest": Board(FASTEST, variant),
        "wins": Board(WINS, variant),
        "streak": Board(STREAK, variant),
    }
    return {
        name: leaderboard.read_page(board, player_id=attempt.player_id).player_row is not None
        for name, board in boards.items()
    }


@pytest.fixture
def won_by_a_bot(ranked_game, challenge):
    """The day's deal won at the solver's pace, recorded on the boards as the batch does."""
    game = play(ranked_game, [172] * (len(challenge.solution) - 1), moves=challenge.solution)
    assert game.status == Game.Status.WON
    attempt = DailyAttempt.objects.select_related("challenge").get(game=game)
    DailyAttempt.objects.filter(pk=attempt.pk).update(
        elapsed_ms=int((game.finished_at - game.started_at).total_seconds() * 1000)
    )
    leaderboard.record_attempt(attempt.pk)
    assert all(on_boards(attempt).values())
    return attempt


def assessed(game: Game) -> Assessment:
    made = assess.assess(game.pk)
    assess.after_assessment(made.pk)
    return made


def test_a_held_daily_result_leaves_every_board_and_the_streak(won_by_a_bot):
    made = assessed(won_by_a_bot.game)
    assert made.is_held
    assert on_boards(won_by_a_bot) == dict.fromkeys(["daily", "fastest", "wins", "streak"], False)
    assert not DailyStreak.objects.filter(player_id=won_by_a_bot.player_id).exists()


def test_a_cleared_result_is_published_again(
    won_by_a_bot, admin_user, django_capture_on_commit_callbacks
):
    made = assessed(won_by_a_bot.game)
    with django_capture_on_commit_callbacks(execute=True):
        actions.do_clear(made, admin_user)
    assert all(on_boards(won_by_a_bot).values())
    assert DailyStreak.objects.get(player_id=won_by_a_bot.player_id).longest == 1


def test_a_clear_result_stays_on_the_boards(ranked_game, challenge):
    game = play(ranked_game, PERSON)
    attempt = DailyAttempt.objects.select_related("challenge").get(game=game)
    leaderboard.record_attempt(attempt.pk)
    assert not assessed(game).is_held
    assert on_boards(attempt)["daily"]


def test_confirm_takes_all_the_accounts_results_off(
    won_by_a_bot, admin_user, make_account, django_capture_on_commit_callbacks
):
    """Confirmed: the account is flagged, its results leave the boards, and a later ranked
    win of it goes on none."""
    made = assessed(won_by_a_bot.game)
    with django_capture_on_commit_callbacks(execute=True):
        actions.do_clear(made, admin_user)
    assert all(on_boards(won_by_a_bot).values())
    with django_capture_on_commit_callbacks(execute=True):
        actions.do_confirm(made, admin_user)
    assert not any(on_boards(won_by_a_bot).values())
    # Another day's win of the flagged account: on no board, in no streak.
    other = DailyAttempt.objects.get(pk=won_by_a_bot.pk)
    other.pk = None
    other.challenge = type(other.challenge).objects.create(
        variant="penguin",
        day=other.challenge.day - dt.timedelta(days=1),
        seed=7,
        candidate=0,
        proof="won",
    )
    other.game = game_actions.do_create_game(other.player, "penguin", 7, kind=Game.Kind.DAILY)
    Game.objects.filter(pk=other.game.pk).update(status=Game.Status.WON)
    other.save()
    leaderboard.record_attempt(other.pk)
    assert not any(on_boards(other).values())
    assert not DailyStreak.objects.filter(player_id=other.player_id).exists()


# ------------------------------------------------------------------ ratings


def finished_race(players, finish_ms, minutes_ago: int) -> Race:
    """A rated race the players finished in these times, closed and rated as the close does."""
    finished = timezone.now() - dt.timedelta(minutes=minutes_ago)
    race = Race.objects.create(
        code=new_code(),
        host=players[0],
        variant="penguin",
        seed=42,
        rated=True,
        status=Race.Status.FINISHED,
        starts_at=finished - dt.timedelta(minutes=5),
        ends_at=finished,
        finished_at=finished,
    )
    won = {"status": Racer.Status.WON, "cards": 52}
    for player, ms in zip(players, finish_ms, strict=True):
        game = game_actions.do_create_game(player, "penguin", 42, kind=Game.Kind.RACE)
        Racer.objects.create(
            race=race, player=player, name=player.nickname, game=game, finish_ms=ms, **won
        )
    apply_ratings(race, finished)
    return race


def ratings_now() -> dict[int, tuple[float, float, int]]:
    return {r.player_id: (r.mu, r.sigma, r.races) for r in Rating.objects.all()}


@pytest.fixture
def three_races(make_account):
    ann, bob, bot = (make_account(name) for name in ("ann", "bob", "bot"))
    races = [
        finished_race([ann, bob, bot], [90_000, 80_000, 17_000], minutes_ago=30),
        finished_race([ann, bob], [70_000, 75_000], minutes_ago=20),
        finished_race([bob, bot, ann], [60_000, 16_000, 65_000], minutes_ago=10),
    ]
    return ann, bob, bot, races


def test_recomputing_an_unchanged_history_changes_nothing(three_races):
    before = ratings_now()
    changes = list(RatingChange.objects.values_list("race_id", "player_id", "mu_after", "at"))
    assert recompute("penguin") == 3
    assert ratings_now() == before
    assert sorted(RatingChange.objects.values_list("race_id", "player_id", "mu_after", "at")) == (
        sorted(changes)
    )


def test_a_held_race_result_is_undone_exactly(
    three_races, admin_user, django_capture_on_commit_callbacks
):
    """Held: every rating is what it would be had the bot's result in that race never been;
    cleared: what it was."""
    ann, bob, bot, races = three_races
    before = ratings_now()
    game = races[0].racers.get(player=bot).game
    held = Assessment.objects.create(
        game=game, player=bot, kind="race", seq=0, verdict="likely_bot", rule="inhuman_pace",
        status=Assessment.Status.PENDING,
    )  # fmt: skip
    holds.after_assessment(held)
    start = ratings.Skill(ratings.START_MU, ratings.START_SIGMA)
    # Without the bot in race 1: ann and bob alone (places 2, 1), then race 2 (1, 2), then
    # race 3 with the bot, who won it.
    a1, b1 = ratings.rate([start, start], [2, 1])
    a2, b2 = ratings.rate([a1, b1], [1, 2])
    a3, b3, t3 = ratings.rate([a2, b2, start], [3, 2, 1])  # in player order
    expected = {ann.pk: (a3, 3), bob.pk: (b3, 3), bot.pk: (t3, 1)}
    got = ratings_now()
    for player_id, (skill, count) in expected.items():
        assert got[player_id] == pytest.approx((skill.mu, skill.sigma, count))
    assert not RatingChange.objects.filter(race=races[0], player=bot).exists()
    with django_capture_on_commit_callbacks(execute=True):
        actions.do_clear(held, admin_user)
    assert ratings_now() == before


def test_a_confirmed_bot_leaves_every_race_it_rated(
    three_races, admin_user, django_capture_on_commit_callbacks
):
    ann, bob, bot, races = three_races
    game = races[2].racers.get(player=bot).game
    made = Assessment.objects.create(
        game=game, player=bot, kind="race", seq=0, verdict="review", rule="steady_pace",
        status=Assessment.Status.PENDING,
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        actions.do_confirm(made, admin_user)
    assert bot.pk not in ratings_now()
    assert not RatingChange.objects.filter(player=bot).exists()
    assert RatingChange.objects.filter(player=ann).count() == 3


def test_a_flagged_account_is_not_rated_at_the_close(three_races, make_account, admin_user):
    ann, bob, bot, races = three_races
    from fairplay.models import FlaggedPlayer

    FlaggedPlayer.objects.create(player=bot, flagged_by=admin_user)
    race = finished_race([ann, bot], [60_000, 15_000], minutes_ago=1)
    assert not RatingChange.objects.filter(race=race).exists()  # one rated racer left: none
