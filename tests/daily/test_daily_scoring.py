"""Daily board order: winners by time, then the rest by cards on foundations, then by speed."""

from hypothesis import given
from hypothesis import strategies as st

from records.scoring import (
    MS_LIMIT,
    DailyResult,
    count_score,
    daily_score,
    decode_count_score,
    decode_daily_score,
    shared_ranks,
)

results = st.builds(
    DailyResult,
    won=st.booleans(),
    ms=st.integers(min_value=0, max_value=MS_LIMIT - 1),
    foundations=st.integers(min_value=0, max_value=104),
).map(lambda r: DailyResult(r.won, r.ms, 0) if r.won else r)


def better(a: DailyResult, b: DailyResult) -> bool:
    """The board's rule, written out: does a rank strictly above b?"""
    if a.won != b.won:
        return a.won
    if a.won:
        return a.ms < b.ms
    if a.foundations != b.foundations:
        return a.foundations > b.foundations
    return a.ms < b.ms


@given(results, results)
def test_score_order_is_the_board_rule(a, b):
    """A lower score means exactly a better result; equal results score the same."""
    assert (daily_score(a) < daily_score(b)) == better(a, b)
    assert (daily_score(a) == daily_score(b)) == (not better(a, b) and not better(b, a))


@given(results)
def test_score_round_trips(result):
    """The score decodes to the result it came from, and fits a float exactly."""
    score = daily_score(result)
    assert score < 2**53 and score == int(score)
    assert decode_daily_score(score) == result


def test_any_win_beats_a_full_tableau_of_foundations():
    """The slowest winner still ranks above a player one card short."""
    slow_win = DailyResult(won=True, ms=MS_LIMIT - 1, foundations=0)
    almost = DailyResult(won=False, ms=1, foundations=103)
    assert daily_score(slow_win) < daily_score(almost)


def test_times_past_the_limit_are_clamped():
    """Absurd times clamp to the limit rather than spilling into the next band."""
    assert daily_score(DailyResult(True, MS_LIMIT * 5, 0)) == MS_LIMIT - 1
    stuck_long = DailyResult(False, MS_LIMIT * 5, 10)
    assert decode_daily_score(daily_score(stuck_long)) == DailyResult(False, MS_LIMIT - 1, 10)


def test_counts_rank_most_first():
    """Wins and streaks: more ranks first, and the count decodes back."""
    assert count_score(10) < count_score(3)
    assert decode_count_score(count_score(7)) == 7


def test_ties_share_a_rank_and_the_next_skips():
    """Equal scores share a rank; the next score takes its position (1, 2, 2, 4)."""
    assert shared_ranks([1.0, 2.0, 2.0, 3.0], start=0, first_rank=1) == [1, 2, 2, 4]


def test_slice_starting_inside_a_tie_keeps_the_tie_rank():
    """A page that begins in the middle of a tie shows the tie's rank, not its position."""
    assert shared_ranks([5.0, 5.0, 6.0], start=10, first_rank=9) == [9, 9, 13]
