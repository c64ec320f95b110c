"""One ranked attempt per account, variant and day, timed by the server; the rest is practice."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction

from daily.actions import AttemptRefused, do_resign, start_attempt
from daily.models import DailyAttempt
from games import actions
from games.engine import new_game
from games.models import Game
from records import leaderboard
from records.boards import DAILY, Board

pytestmark = pytest.mark.django_db


def win(attempt: DailyAttempt, solution: list[str]) -> Game:
    """Play a winning line through the games app, as a socket would."""
    game = attempt.game
    for move in solution:
        game = actions.do_play_move(game, move, game.seq).game
    return game


def test_an_accounts_first_start_is_ranked(account, challenge):
    """The first start of the day by an account is the ranked attempt, dealt the day's deal."""
    attempt, created = start_attempt(account, challenge)
    assert created and attempt.ranked
    assert attempt.game.kind == Game.Kind.DAILY
    assert (attempt.game.variant, attempt.game.seed) == (challenge.variant, challenge.seed)
    assert attempt.game.status == Game.Status.PLAYING


def test_starting_again_resumes_the_unfinished_attempt(account, challenge):
    """A reload or a second tab resumes the same game: the clock does not start again."""
    first, _ = start_attempt(account, challenge)
    again, created = start_attempt(account, challenge)
    assert not created
    assert again.pk == first.pk and again.game.started_at == first.game.started_at


def test_after_resigning_further_attempts_are_practice(account, challenge):
    """Once the ranked game is over, a new start is a practice attempt on the same deal."""
    ranked, _ = start_attempt(account, challenge)
    do_resign(ranked.game)
    practice, created = start_attempt(account, challenge)
    assert created and not practice.ranked
    assert practice.game.seed == challenge.seed
    assert (
        DailyAttempt.objects.filter(challenge=challenge, player=account, ranked=True).count() == 1
    )


def test_after_winning_further_attempts_are_practice(account, solved_challenge):
    """A won ranked attempt is the day's result; the next start is practice."""
    ranked, _ = start_attempt(account, solved_challenge)
    assert win(ranked, solved_challenge.solution).status == Game.Status.WON
    practice, created = start_attempt(account, solved_challenge)
    assert created and not practice.ranked


def test_guests_play_but_never_rank(guest, challenge):
    """A guest may play the daily deal, but the attempt is practice."""
    attempt, created = start_attempt(guest, challenge)
    assert created and not attempt.ranked
    assert attempt.game.seed == challenge.seed


def test_a_past_days_deal_is_practice(account, make_challenge, today):
    """Only the day's own challenge ranks: yesterday's deal is practice."""
    old = make_challenge("queenie", day=today - dt.timedelta(days=1))
    attempt, _ = start_attempt(account, old)
    assert not attempt.ranked


def test_the_database_refuses_a_second_ranked_attempt(account, challenge):
    """Even past the actions, the database keeps one ranked attempt per player and day."""
    start_attempt(account, challenge)
    other = actions.do_create_game(account, challenge.variant, challenge.seed, Game.Kind.DAILY)
    with pytest.raises(IntegrityError), transaction.atomic():
        DailyAttempt.objects.create(challenge=challenge, player=account, game=other, ranked=True)


def test_resigning_twice_is_refused(account, challenge):
    """A finished attempt cannot be resigned again."""
    attempt, _ = start_attempt(account, challenge)
    do_resign(attempt.game)
    with pytest.raises(AttemptRefused):
        do_resign(attempt.game)


def test_the_server_times_the_win(account, solved_challenge):
    """The time is the server's, from the start to the winning move."""
    attempt, _ = start_attempt(account, solved_challenge)
    game = win(attempt, solved_challenge.solution)
    attempt.refresh_from_db()
    expected = int((game.finished_at - game.started_at).total_seconds() * 1000)
    assert attempt.elapsed_ms == expected
    assert attempt.foundations == 52


def test_moves_keep_the_cards_home_count(account, solved_challenge):
    """Every move played through the games app updates the attempt's cards on foundations."""
    attempt, _ = start_attempt(account, solved_challenge)
    engine = new_game(solved_challenge.variant, solved_challenge.seed)
    game = attempt.game
    for move in solved_challenge.solution[:40]:
        engine.play(move)
        game = actions.do_play_move(game, move, game.seq).game
        attempt.refresh_from_db()
        assert attempt.foundations == engine.foundation_count()


def test_a_ranked_start_goes_on_the_board(account, challenge, django_capture_on_commit_callbacks):
    """The live board shows a ranked player from the moment they start."""
    with django_capture_on_commit_callbacks(execute=True):
        start_attempt(account, challenge)
    page = leaderboard.read_page(
        Board(DAILY, challenge.variant, challenge.day), player_id=account.pk
    )
    assert [row.player_id for row in page.rows] == [account.pk]
    assert page.player_row.rank == 1


def test_a_practice_attempt_stays_off_the_board(
    guest, challenge, django_capture_on_commit_callbacks
):
    """Practice attempts are never ranked."""
    with django_capture_on_commit_callbacks(execute=True):
        start_attempt(guest, challenge)
    page = leaderboard.read_page(Board(DAILY, challenge.variant, challenge.day), player_id=guest.pk)
    assert page.total == 0 and page.player_row is None


def test_a_guest_who_signs_up_after_playing_does_not_rank_that_day(guest, challenge):
    """The guest's game becomes the account's; having seen the deal, the account plays today's
    deal as practice."""
    from django.contrib.auth import get_user_model

    from games.identity import attach_user

    start_attempt(guest, challenge)
    account = attach_user(guest, get_user_model().objects.create_user("late"))
    do_resign(DailyAttempt.objects.get(player=account).game)
    attempt, created = start_attempt(account, challenge)
    assert created and not attempt.ranked
