"""The leaderboard order packed into one sorted-set score."""

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from races.standings import CARDS_FACTOR, Progress, decode_score, encode_score, ranked

cards = st.integers(min_value=0, max_value=208)
times = st.integers(min_value=0, max_value=CARDS_FACTOR - 1)
progress = st.builds(
    Progress, member=st.just(""), cards=cards, reached_ms=times, won_ms=st.none() | times
)


def natural_key(p: Progress):
    """The order the rules state, written the obvious way."""
    if p.won_ms is not None:
        return (0, p.won_ms, 0, p.member)
    return (1, -p.cards, p.reached_ms, p.member)


def test_a_winner_ranks_above_every_unfinished_racer():
    """Winning beats any number of cards, however early they were reached."""
    winner = Progress("w", cards=52, reached_ms=900_000, won_ms=900_000)
    leader = Progress("u", cards=51, reached_ms=1)
    assert [p.member for p in ranked([leader, winner])] == ["w", "u"]


def test_winners_rank_by_time():
    """The faster winning time ranks first."""
    slow = Progress("a", cards=52, reached_ms=0, won_ms=60_001)
    fast = Progress("b", cards=52, reached_ms=0, won_ms=60_000)
    assert [p.member for p in ranked([slow, fast])] == ["b", "a"]


def test_unfinished_racers_rank_by_cards_then_by_when_reached():
    """More cards first; on equal cards, whoever got there first."""
    few = Progress("few", cards=10, reached_ms=1_000)
    many_late = Progress("late", cards=20, reached_ms=9_000)
    many_early = Progress("early", cards=20, reached_ms=8_000)
    assert [p.member for p in ranked([few, many_late, many_early])] == ["early", "late", "few"]


@given(st.lists(progress, max_size=8))
def test_score_order_is_the_stated_order(racers):
    """Sorting by the packed score equals sorting by the rules' keys."""
    racers = [replace(p, member=f"racer{i}") for i, p in enumerate(racers)]
    assert ranked(racers) == sorted(racers, key=natural_key)


@given(cards, times, st.booleans())
def test_scores_decode_and_are_exact_doubles(count, ms, won):
    """The score survives a trip through a double (Redis's score type) and decodes back."""
    score = encode_score(cards=count, reached_ms=ms, won_ms=ms if won else None)
    assert int(float(score)) == score
    assert decode_score(float(score)) == (won, None if won else count, ms)
