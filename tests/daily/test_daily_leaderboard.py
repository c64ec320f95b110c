"""The live boards: order, ties, own rank, and rebuilding from the database."""

import datetime as dt

import pytest
from django.core.management import call_command

from daily.actions import start_attempt
from games.rankstore import RedisRankStore, get_rank_store
from records import leaderboard
from records.boards import DAILY, FASTEST, STREAK, WINS, Board

pytestmark = pytest.mark.django_db


@pytest.fixture
def enter(make_account, challenge, set_result):
    """A ranked player on today's challenge with a given result."""

    def enter(name, chal=None, player=None, **result):
        chal = chal or challenge
        player = player or make_account(name)
        attempt, _ = start_attempt(player, chal, now=on_the_day(chal))
        assert attempt.ranked
        return set_result(attempt, **result).player

    return enter


def on_the_day(challenge):
    """A moment during the challenge's own day, when starting it ranks."""
    return dt.datetime.combine(challenge.day, dt.time(12), tzinfo=dt.UTC)


@pytest.fixture
def daily_board(challenge):
    return Board(DAILY, challenge.variant, challenge.day)


def names(page):
    from games.models import Player

    by_id = dict(Player.objects.values_list("pk", "nickname"))
    return [(row.rank, by_id[row.player_id]) for row in page.rows]


def test_winners_by_time_then_the_rest_by_cards(enter, daily_board):
    """Winners rank first, fastest first; then the others, most cards home first."""
    enter("slow", won_ms=90_000)
    enter("stuck40", cards=40, ms=50_000)
    enter("fast", won_ms=60_000)
    enter("stuck45", cards=45, ms=80_000)
    page = leaderboard.read_page(daily_board)
    assert names(page) == [(1, "fast"), (2, "slow"), (3, "stuck45"), (4, "stuck40")]


def test_equal_cards_rank_by_who_got_there_first(enter, daily_board):
    """Among players with as many cards home, the one who got there sooner ranks higher."""
    enter("later", cards=30, ms=70_000)
    enter("sooner", cards=30, ms=20_000)
    assert names(leaderboard.read_page(daily_board)) == [(1, "sooner"), (2, "later")]


def test_equal_results_share_a_rank(enter, daily_board):
    """Exactly equal results share a rank, and the next result skips (1, 2, 2, 4)."""
    enter("a", won_ms=1000)
    enter("b", won_ms=2000)
    enter("c", won_ms=2000)
    enter("d", won_ms=3000)
    assert [rank for rank, _ in names(leaderboard.read_page(daily_board))] == [1, 2, 2, 4]


def test_a_page_starting_inside_a_tie_shows_the_tie_rank(enter, daily_board):
    """Page 2 starting in the middle of a tie shows the shared rank, not the position."""
    enter("first", won_ms=1000)
    for name in "xyz":
        enter(name, won_ms=5000)
    page = leaderboard.read_page(daily_board, page=2, per_page=2)
    assert [row.rank for row in page.rows] == [2, 2]


def test_own_rank_is_found_off_the_first_page(enter, daily_board):
    """A player far down the board gets their rank and the page it is on."""
    for i in range(7):
        enter(f"p{i}", won_ms=1000 * (i + 1))
    me = enter("me", cards=10, ms=1)
    page = leaderboard.read_page(daily_board, page=1, per_page=3, player_id=me.pk)
    assert me.pk not in [row.player_id for row in page.rows]
    assert (page.player_row.rank, page.player_page, page.total, page.pages) == (8, 3, 8, 3)


def test_a_player_off_the_board_has_no_row(enter, daily_board, guest):
    """Asking for a player who has no ranked attempt gives no row, not an error."""
    enter("someone", won_ms=1000)
    assert leaderboard.read_page(daily_board, player_id=guest.pk).player_row is None


def test_a_flushed_store_is_read_from_the_database_and_never_rebuilt_by_a_read(
    enter, daily_board, flush_boards
):
    """When the store comes back empty, reads answer from the database and build nothing; the
    scheduler's `rebuild_leaderboards --missing` builds the board again."""
    enter("a", won_ms=3000)
    enter("b", cards=20, ms=10)
    enter("c", won_ms=2000)
    leaderboard.rebuild(daily_board)
    before = names(leaderboard.read_page(daily_board))
    flush_boards()
    assert names(leaderboard.read_page(daily_board)) == before == [(1, "c"), (2, "a"), (3, "b")]
    store = get_rank_store()
    assert not store.exists(leaderboard.key(daily_board))
    assert not leaderboard.is_built(daily_board)
    call_command("rebuild_leaderboards", "--missing", verbosity=0)
    assert leaderboard.is_built(daily_board) and store.count(leaderboard.key(daily_board)) == 3
    assert names(leaderboard.read_page(daily_board)) == before


def test_a_built_board_is_read_from_the_store_alone(enter, daily_board, monkeypatch):
    """Reading a built board asks the database nothing about the board: no standings scan."""
    enter("a", won_ms=3000)
    leaderboard.rebuild(daily_board)

    def no_scan(*args, **kwargs):
        raise AssertionError("a read computed the board from the database")

    monkeypatch.setattr(leaderboard.board_scores, "scores", no_scan)
    assert names(leaderboard.read_page(daily_board)) == [(1, "a")]


def test_missing_rebuilds_only_the_boards_the_store_lost(enter, daily_board, monkeypatch):
    """`--missing` leaves a built board alone and builds the ones without a marker."""
    enter("a", won_ms=3000)
    leaderboard.rebuild(daily_board)
    rebuilt = []
    real = leaderboard.rebuild
    monkeypatch.setattr(
        leaderboard, "rebuild", lambda board, *a: rebuilt.append(board) or real(board, *a)
    )
    call_command("rebuild_leaderboards", "--missing", verbosity=0)
    assert daily_board not in rebuilt
    assert Board(WINS, daily_board.variant) in rebuilt
    rebuilt.clear()
    call_command("rebuild_leaderboards", "--missing", verbosity=0)
    assert rebuilt == []


def test_writes_keep_a_built_board_current(enter, daily_board):
    """After the build, each recorded attempt puts its player on the board: no rebuild needed."""
    enter("a", won_ms=3000)
    leaderboard.rebuild(daily_board)
    enter("b", won_ms=1000)
    assert leaderboard.is_built(daily_board)
    assert names(leaderboard.read_page(daily_board)) == [(1, "b"), (2, "a")]


def test_the_rebuild_removes_members_the_database_does_not_have(enter, daily_board):
    """A rebuild makes the board equal to the database, stray members included."""
    enter("real", won_ms=3000)
    get_rank_store().set(leaderboard.key(daily_board), "999999", 1.0)
    leaderboard.rebuild(daily_board)
    assert [row.member for row in leaderboard.read_page(daily_board).rows] != ["999999"]
    assert leaderboard.read_page(daily_board).total == 1


def test_a_result_written_while_the_rebuild_reads_the_database_stays_on_the_board(
    enter, daily_board, monkeypatch
):
    """The hourly rebuild reads the database, then writes the board: a player who finishes in
    between (their result committed, and written to the board, after the read) keeps their
    place, and is not put back as the older read had them."""
    enter("early", won_ms=3000)
    late = enter("late", cards=20, ms=9_000)
    leaderboard.rebuild(daily_board)
    read = leaderboard.board_scores.scores
    finished_meanwhile = []

    def read_then_late_finishes(board, *args, **kwargs):
        scores = read(board, *args, **kwargs)
        if not args and not kwargs and not finished_meanwhile:
            finished_meanwhile.append(enter("", player=late, won_ms=1_000))
        return scores

    monkeypatch.setattr(leaderboard.board_scores, "scores", read_then_late_finishes)
    leaderboard.rebuild(daily_board)
    assert finished_meanwhile
    assert names(leaderboard.read_page(daily_board)) == [(1, "late"), (2, "early")]


def test_rebuild_command_restores_every_board(enter, make_challenge, flush_boards, today):
    """`manage.py rebuild_leaderboards` rebuilds daily boards of every day and all-time boards."""
    yesterday = make_challenge("penguin", day=today - dt.timedelta(days=1))
    enter("old", chal=yesterday, won_ms=4000)
    enter("new", won_ms=5000)
    flush_boards()
    call_command("rebuild_leaderboards", verbosity=0)
    store = get_rank_store()
    for board in [
        Board(DAILY, "penguin", today),
        Board(DAILY, "penguin", yesterday.day),
        Board(WINS, "penguin"),
    ]:
        assert store.exists(leaderboard.marker_key(board))
    assert store.count(leaderboard.key(Board(WINS, "penguin"))) == 2


def test_past_days_stay_browsable(enter, make_challenge, today):
    """A past day's board reads the same as ever, from Redis or rebuilt."""
    old = make_challenge("penguin", day=today - dt.timedelta(days=30))
    enter("old", chal=old, won_ms=4000)
    page = leaderboard.read_page(Board(DAILY, "penguin", old.day))
    assert page.total == 1


def test_an_unreachable_store_falls_back_to_the_database(enter, daily_board):
    """With Redis down, boards are read from the database instead of failing."""
    enter("a", won_ms=3000)
    dead = RedisRankStore("redis://127.0.0.1:1/0")
    page = leaderboard.read_page(daily_board, store=dead)
    assert [row.rank for row in page.rows] == [1]


def test_all_time_boards(enter, make_challenge, today):
    """Fastest win, most wins and longest streak of winning days, per variant."""
    days = [make_challenge("penguin", day=today - dt.timedelta(days=i)) for i in range(4)]
    alice = enter("alice", chal=days[3], won_ms=9000)  # three days in a row: 3, 2, 1 days ago
    enter("", chal=days[2], player=alice, won_ms=8000)
    enter("", chal=days[1], player=alice, won_ms=7000)
    bob = enter("bob", chal=days[0], won_ms=5000)
    enter("", chal=days[2], player=bob, won_ms=6000)
    fastest = leaderboard.read_page(Board(FASTEST, "penguin"))
    assert [(r.player_id, r.score) for r in fastest.rows] == [(bob.pk, 5000.0), (alice.pk, 7000.0)]
    wins = leaderboard.read_page(Board(WINS, "penguin"))
    assert [r.player_id for r in wins.rows] == [alice.pk, bob.pk]
    streak = leaderboard.read_page(Board(STREAK, "penguin"))
    assert [(r.player_id, -r.score) for r in streak.rows] == [(alice.pk, 3.0), (bob.pk, 1.0)]


def test_keys_belong_to_one_database(monkeypatch):
    """Board keys carry the database's creation time, so a fresh database never reads the
    boards an earlier one left in a shared Redis."""
    monkeypatch.undo()  # the real epoch, not the fixture's stand-in
    leaderboard.database_epoch.cache_clear()
    epoch = leaderboard.database_epoch()
    assert epoch != "0" and int(epoch, 16) > 0
    assert f":{epoch}:daily:penguin:" in leaderboard.key(
        Board(DAILY, "penguin", dt.date(2026, 1, 1))
    )
