"""The streak board's record: kept a win at a time, equal to counting every won day afresh."""

import datetime as dt

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from daily.actions import start_attempt
from daily.models import DailyAttempt, DailyStreak
from records import leaderboard
from records.boards import STREAK, Board
from records.streakbook import Run, advance, run_of
from records.streaks import current_streak, longest_streak

D = dt.date(2026, 11, 22)


def day(offset: int) -> dt.date:
    return D + dt.timedelta(days=offset)


@given(st.lists(st.integers(0, 40), max_size=40))
def test_wins_kept_one_at_a_time_equal_the_history_counted_afresh(offsets):
    """Whatever order the wins arrive in (mostly forwards, sometimes late, sometimes twice),
    advancing the run, or recounting when a win is late, ends where counting all days does."""
    run, seen = None, []
    for offset in offsets:
        seen.append(day(offset))
        run = advance(run, day(offset)) or run_of(seen)
    assert run == run_of(seen)
    if seen:
        assert run.longest == longest_streak(seen)
        assert run.current == current_streak(seen, max(seen))


@pytest.mark.parametrize(
    ("run", "offset", "expected"),
    [
        (None, 0, Run(1, 1, day(0))),
        (Run(3, 2, day(5)), 6, Run(3, 3, day(6))),  # the next day: the run grows
        (Run(3, 3, day(5)), 6, Run(4, 4, day(6))),  # past the longest
        (Run(3, 2, day(5)), 5, Run(3, 2, day(5))),  # the same day again: nothing changes
        (Run(3, 2, day(5)), 8, Run(3, 1, day(8))),  # a gap: a new run
        (Run(3, 2, day(5)), 4, None),  # a late win: recount
    ],
)
def test_advance(run, offset, expected):
    assert advance(run, day(offset)) == expected


@pytest.fixture
def win(make_challenge, set_result, today):
    """win(player, days_ago): a ranked win on that day's challenge, recorded as the writer does."""

    def win(player, days_ago: int):
        challenge = make_challenge("penguin", day=today - dt.timedelta(days=days_ago))
        noon = dt.datetime.combine(challenge.day, dt.time(12), tzinfo=dt.UTC)
        attempt, _ = start_attempt(player, challenge, now=noon)
        return set_result(attempt, won_ms=60_000)

    return win


@pytest.mark.django_db
def test_recorded_wins_keep_the_streak_row_and_the_board(make_account, win, monkeypatch):
    """Each recorded win advances one row; the streak board is written from it without reading
    any attempt, and a late win recounts only that player."""
    alice = make_account("alice")
    board = Board(STREAK, "penguin")
    leaderboard.rebuild(board)
    for days_ago in (5, 4, 3):
        win(alice, days_ago)
    row = DailyStreak.objects.get(player=alice, variant="penguin")
    assert (row.longest, row.current) == (3, 3)
    assert [(r.player_id, -r.score) for r in leaderboard.read_page(board).rows] == [(alice.pk, 3)]
    win(alice, 7)  # late: recounted, a run of its own
    win(alice, 6)  # joins 7 and 5..3: seven days from 7 to 3 ago, one run of five
    row.refresh_from_db()
    assert (row.longest, row.current) == (5, 5)

    def no_history(*args, **kwargs):
        raise AssertionError("the board read the attempts' history")

    monkeypatch.setattr(DailyAttempt.objects, "filter", no_history)
    assert leaderboard.rebuild(board) == 1
    assert [(r.player_id, -r.score) for r in leaderboard.read_page(board).rows] == [(alice.pk, 5)]


@pytest.mark.django_db
def test_a_full_rebuild_recounts_the_streaks_from_history(make_account, win, today):
    """Rows lost or never kept (bulk-loaded attempts) come back from `rebuild_leaderboards`."""
    bob = make_account("bob")
    for days_ago in (2, 1, 0):
        win(bob, days_ago)
    DailyStreak.objects.all().delete()
    call_command("rebuild_leaderboards", verbosity=0)
    row = DailyStreak.objects.get(player=bob, variant="penguin")
    assert (row.longest, row.current, row.last_day) == (3, 3, today)
