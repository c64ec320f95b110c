"""A board page's rows are cached under the board's stamp (records/tables.py): read again, a page
runs no query; anything its rows show that changes (a result, a game's status, a nickname, the
clock passing midnight) shows at the next read."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from daily.actions import start_attempt
from daily.models import DailyAttempt
from games.models import Game
from records import leaderboard, page_cache, tables
from records.boards import DAILY, FASTEST, Board

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_factory():
    from django.test import Client

    return lambda **options: Client(**options)


@pytest.fixture
def board(challenge):
    board = Board(DAILY, challenge.variant, challenge.day)
    leaderboard.rebuild(board)
    return board


@pytest.fixture
def enter(make_account, challenge, set_result):
    """A ranked player on the challenge with a result; their attempt."""

    def enter(name, **result):
        at = dt.datetime.combine(challenge.day, dt.time(12), tzinfo=dt.UTC)
        attempt, _ = start_attempt(make_account(name), challenge, now=at)
        return set_result(attempt, **result)

    return enter


def read(board: Board, viewer=None) -> tuple[dict, int]:
    """The page as the API gives it, and the queries that took."""
    with CaptureQueriesContext(connection) as captured:
        page = tables.board_dict(leaderboard.read_page(board), viewer)
    return page, len(captured.captured_queries)


def test_a_page_read_again_runs_no_query(board, enter):
    enter("ann", won_ms=60_000)
    enter("bob", cards=30, ms=40_000)
    first, queries = read(board)
    assert queries == 2, "the names and the attempts' games"
    again, queries = read(board)
    assert again == first and queries == 0


def test_a_new_result_shows_at_once(board, enter, set_result):
    enter("ann", won_ms=60_000)
    bob = enter("bob", cards=30, ms=40_000)
    read(board)
    set_result(bob, won_ms=50_000)
    rows = read(board)[0]["rows"]
    assert [(row["player"]["nickname"], row["time_ms"]) for row in rows] == [
        ("bob", 50_000),
        ("ann", 60_000),
    ]


def test_cached_facts_that_miss_a_pages_rows_are_written_again(board, enter):
    """The cache can outlive the rows it was filled from (a restored backup, a test's rolled-back
    rows): a page whose cached facts lack its rows reads them once and writes them again."""
    enter("ann", won_ms=60_000)
    cache.set(tables._cache_key(leaderboard.read_page(board)), {}, 60)
    assert read(board)[1] == 2
    assert read(board)[1] == 0


def test_a_status_that_changes_without_the_score_shows_at_once(board, enter):
    attempt = enter("ann", cards=30, ms=40_000)
    assert read(board)[0]["rows"][0]["status"] == Game.Status.PLAYING
    Game.objects.filter(pk=attempt.game_id).update(status=Game.Status.RESIGNED)
    leaderboard.record_attempt(attempt.pk)  # what a resignation's save leads to
    assert read(board)[0]["rows"][0]["status"] == Game.Status.RESIGNED


def test_a_new_nickname_shows_at_once(board, enter, django_capture_on_commit_callbacks):
    attempt = enter("ann", won_ms=60_000)
    fastest = Board(FASTEST, board.variant)
    leaderboard.rebuild(fastest)
    read(board), read(fastest)
    player = attempt.player
    player.nickname = "Annie"
    with django_capture_on_commit_callbacks(execute=True):
        player.save(update_fields=["nickname"])
    for each in (board, fastest):
        assert read(each)[0]["rows"][0]["player"]["nickname"] == "Annie"


def test_own_replay_before_midnight_and_everyones_after(board, enter, monkeypatch):
    """On its own day a daily game's replay is its player's only; from midnight everyone's.
    The cached facts are the same for every viewer: who may watch is decided on each read."""
    attempt = enter("ann", won_ms=60_000)
    during = dt.datetime.combine(board.day, dt.time(18), tzinfo=dt.UTC)
    monkeypatch.setattr(tables.timezone, "now", lambda: during)
    assert read(board)[0]["rows"][0]["replay"] is None
    own, queries = read(board, attempt.player)
    assert own["rows"][0]["game"] == attempt.game.public_id and queries == 0
    monkeypatch.setattr(tables.timezone, "now", lambda: during + dt.timedelta(hours=6))
    after, queries = read(board)
    assert after["rows"][0]["game"] == attempt.game.public_id and queries == 0


def test_a_board_read_from_the_database_is_not_cached(challenge, enter):
    """Without its marker a board is read from the database each time (no stamp to key on)."""
    enter("ann", won_ms=60_000)
    unbuilt = Board(DAILY, challenge.variant, challenge.day)
    leaderboard.get_rank_store().delete(leaderboard.marker_key(unbuilt))
    assert leaderboard.read_page(unbuilt).stamp is None
    assert read(unbuilt)[1] > 0 and read(unbuilt)[1] > 0


@pytest.fixture
def frozen_board(make_account, make_challenge, set_result, today):
    """A day 20 days ago, past PAST_DAY_TTL: two ranked wins; its board has left Redis."""
    old = make_challenge("penguin", day=today - dt.timedelta(days=20))
    for i, name in enumerate(["ann", "bob"]):
        run, _ = start_attempt(make_account(name), old)
        DailyAttempt.objects.filter(pk=run.pk).update(ranked=True)  # played on its day
        set_result(run, won_ms=1000 * (i + 1))
    board = Board(DAILY, "penguin", old.day)
    # The caches outlive a test's rolled-back rows: an earlier test's scores of the same day go.
    cache.delete(leaderboard.frozen_key(board))
    return board


def test_a_board_that_can_no_longer_change_is_read_from_the_database_once(frozen_board):
    assert leaderboard.is_frozen(frozen_board) and not leaderboard.is_built(frozen_board)
    first, queries = read(frozen_board)
    assert [row["player"]["nickname"] for row in first["rows"]] == ["ann", "bob"] and queries > 0
    again, queries = read(frozen_board)
    assert again == first and queries == 0, "its rows and their facts come from the caches"
    assert leaderboard.read_page(frozen_board).stamp.startswith("frozen:")


def test_a_frozen_board_shows_a_new_nickname_and_a_rebuild(
    frozen_board, django_capture_on_commit_callbacks
):
    read(frozen_board)
    ann = Game.objects.filter(player__nickname="ann").first().player
    with django_capture_on_commit_callbacks(execute=True):
        ann.nickname = "anna"
        ann.save(update_fields=["nickname"])  # the names' version moves on: the stamp changes
    renamed, _ = read(frozen_board)
    assert renamed["rows"][0]["player"]["nickname"] == "anna"
    DailyAttempt.objects.filter(player=ann).delete()  # a result taken off (an admin's act)
    assert read(frozen_board)[0]["rows"][0]["player"]["nickname"] == "anna", "kept as it was"
    leaderboard.rebuild(frozen_board)
    leaderboard.get_rank_store().delete(leaderboard.marker_key(frozen_board))
    rebuilt, _ = read(frozen_board)
    assert [row["player"]["nickname"] for row in rebuilt["rows"]] == ["bob"]


def test_a_board_whose_day_is_recent_is_not_frozen(challenge):
    assert not leaderboard.is_frozen(Board(DAILY, challenge.variant, challenge.day))
    assert not leaderboard.is_frozen(Board(FASTEST, challenge.variant))


# ------------------------------------------------------------------ the page's rows table


@pytest.fixture
def past_board(make_account, make_challenge, set_result, today):
    """Two days ago: three finished runs, each with its replay and ghost form; built."""
    old = make_challenge("penguin", day=today - dt.timedelta(days=2))
    runs = []
    for i in range(3):
        run, _ = start_attempt(make_account(f"p{i}"), old)
        DailyAttempt.objects.filter(pk=run.pk).update(ranked=True)  # played on its day
        runs.append(set_result(run, won_ms=1000 * (i + 1)))
    board = Board(DAILY, "penguin", old.day)
    leaderboard.rebuild(board)
    return f"/daily/penguin/{old.day.isoformat()}/", runs


def tokens(html: str) -> set[str]:
    return set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html))


def test_the_table_read_again_is_the_same_with_each_visitors_own_csrf_token(
    past_board, client_factory
):
    url, runs = past_board
    first = client_factory().get(url).content.decode()
    with CaptureQueriesContext(connection) as captured:
        again = client_factory().get(url).content.decode()
    assert len(captured.captured_queries) == 0, "nothing from the database for a board read again"
    for run in runs:
        assert f'<form method="post" action="/ghost/{run.game.public_id}/">' in again
    first_tokens, again_tokens = tokens(first), tokens(again)
    assert len(first_tokens) == len(again_tokens) == 1 and first_tokens != again_tokens
    assert "csrf-token-of-this-request" not in again


def test_a_ghost_form_from_the_cached_table_is_accepted(past_board, client_factory, make_account):
    url, runs = past_board
    client_factory().get(url)  # the table is cached now
    racer = client_factory(enforce_csrf_checks=True)
    racer.force_login(make_account("racer").user)
    html = racer.get(url).content.decode()
    form = html[html.index(f'action="/ghost/{runs[0].game.public_id}/"') :]
    (token,) = tokens(form[: form.index("</form>")])
    response = racer.post(f"/ghost/{runs[0].game.public_id}/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and "/daily/play/" in response["Location"]


def test_your_own_row_is_marked_and_nobody_elses_table_is(past_board, client_factory):
    url, runs = past_board
    client_factory().get(url)  # the shared table is cached
    own = client_factory()
    own.force_login(runs[1].player.user)
    html = own.get(url).content.decode()
    assert f'<tr class="me" data-player="{runs[1].player_id}"' in html
    assert 'class="me"' not in client_factory().get(url).content.decode()


# ------------------------------------------------------------------ whole pages


def test_a_visitor_who_brings_nothing_gets_the_page_whole_from_the_cache(
    past_board, client_factory, monkeypatch
):
    url, runs = past_board
    first = client_factory().get(url).content.decode()
    monkeypatch.setattr(page_cache, "render_to_string", lambda *a, **k: pytest.fail("rendered"))
    again = client_factory().get(url).content.decode()
    assert tokens(first) != tokens(again)
    (old,), (new,) = tokens(first), tokens(again)
    assert again == first.replace(old, new)


def test_a_signed_in_visitor_gets_their_own_page_and_leaves_none_behind(
    past_board, client_factory, make_account
):
    url, runs = past_board
    client_factory().get(url)  # kept for visitors who bring nothing
    member = client_factory()
    member.force_login(make_account("zed").user)
    html = member.get(url).content.decode()
    assert ">zed</a>" in html and "Log out" in html
    # Not a bare "zed": the page's random game ids and CSRF tokens may hold those letters.
    other = client_factory().get(url).content.decode()
    assert ">zed</a>" not in other and "Log out" not in other


def test_a_visitor_with_a_message_waiting_gets_the_page_built(past_board, client_factory):
    url, _ = past_board
    client_factory().get(url)
    visitor = client_factory()
    storage_cookie = CookieStorage(None)
    visitor.cookies[CookieStorage.cookie_name] = storage_cookie._encode(
        [Message(constants.ERROR, "You cannot race this run yet.")]
    )
    assert "You cannot race this run yet." in visitor.get(url).content.decode()
