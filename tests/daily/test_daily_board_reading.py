"""Reading a board page by page: every entry once, in order, with competition ranks."""

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rankstore import MemoryRankStore
from records import leaderboard
from records.boards import WINS, Board

BOARD = Board(WINS, "penguin")


def built_store(scores: dict[str, float]) -> MemoryRankStore:
    """A store holding the board, marked built (so reading it needs no database)."""
    store = MemoryRankStore()
    store.set_many(leaderboard.key(BOARD), scores)
    store.set(leaderboard.marker_key(BOARD), leaderboard.BUILT, time.time())
    return store


@settings(max_examples=60, deadline=None)
@given(
    scores=st.dictionaries(
        st.integers(min_value=1, max_value=10_000).map(str),
        st.integers(min_value=-5, max_value=5).map(float),
        max_size=40,
    ),
    per_page=st.integers(min_value=1, max_value=12),
)
def test_pages_partition_the_board_with_shared_ranks(scores, per_page):
    """Pages together list every member once in board order; a rank is one more than the
    number of entries with a strictly better score; each member's own row agrees."""
    store = built_store(scores)
    first = leaderboard.read_page(BOARD, 1, per_page, store=store)
    rows = []
    for page in range(1, first.pages + 1):
        rows += leaderboard.read_page(BOARD, page, per_page, store=store).rows
    assert [row.member for row in rows] == sorted(scores, key=lambda m: (scores[m], m))
    for row in rows:
        assert row.rank == 1 + sum(1 for s in scores.values() if s < row.score)
        mine = leaderboard.read_page(BOARD, 1, per_page, int(row.member), store=store)
        assert mine.player_row == row
        assert mine.player_page == row.position // per_page + 1
