"""Fixtures for the daily challenge: players, challenges, and a private key prefix per test."""

import datetime as dt
import functools
import uuid

import pytest
from django.utils import timezone

from daily import dealpick
from daily.actions import get_challenge
from daily.models import DailyAttempt
from games.models import Game, Player
from games.rankstore import RedisRankStore, get_rank_store
from records import leaderboard


@pytest.fixture(autouse=True)
def board_prefix(monkeypatch):
    """Every test writes its boards under its own prefix, so runs never see each other's."""
    prefix = boards_of_their_own(monkeypatch)
    yield prefix
    delete_boards(prefix)


@pytest.fixture(scope="module")
def module_board_prefix():
    """One prefix for a module's boards, for data built once for the module (a module that uses
    it overrides `board_prefix` with it)."""
    with pytest.MonkeyPatch.context() as patch:
        prefix = boards_of_their_own(patch)
        yield prefix
        delete_boards(prefix)


def boards_of_their_own(patch: pytest.MonkeyPatch) -> str:
    prefix = f"test:daily:{uuid.uuid4().hex}"
    patch.setattr(leaderboard, "KEY_PREFIX", prefix)
    patch.setattr(leaderboard, "database_epoch", lambda: "db")
    return prefix


def delete_boards(prefix: str) -> None:
    store = get_rank_store()
    if isinstance(store, RedisRankStore):
        for key in store.redis.scan_iter(f"{prefix}:*"):
            store.redis.delete(key)


@pytest.fixture
def flush_boards(board_prefix):
    """What Redis coming back empty looks like to one test: every key under its prefix gone."""

    def flush() -> None:
        store = get_rank_store()
        if isinstance(store, RedisRankStore):
            for key in store.redis.scan_iter(f"{board_prefix}:*"):
                store.redis.delete(key)
        else:
            for key in [k for k in store._sets if k.startswith(board_prefix + ":")]:
                store.delete(key)

    return flush


@pytest.fixture
def today():
    return dealpick.utc_day(timezone.now())


@pytest.fixture
def guest(db):
    return Player.objects.create(nickname="Guest-0001")


@pytest.fixture
def make_challenge(db, today):
    """A day's challenge picked without the solver (candidate 0), unless a prover is given."""

    def make(variant: str = "penguin", day: dt.date | None = None, prover=None):
        return get_challenge(variant, day or today, prover or dealpick.unproved_prover)

    return make


@pytest.fixture
def challenge(make_challenge):
    return make_challenge()


@pytest.fixture(scope="session")
def solver_proofs():
    """The real solver as a prover (20,000 nodes a deal), each deal's proof searched once per
    worker: the answer for a deal is the same every time (a count of nodes, not of seconds)."""
    return functools.cache(dealpick.solver_prover(max_nodes=20_000))


@pytest.fixture(scope="session")
def todays_pick():
    """The day's pick of a variant with the server's own prover (`default_prover`), made once
    per worker and variant: a pure function of the variant and the day."""
    picks = functools.cache(dealpick.pick_deal)
    prover = dealpick.default_prover()
    return lambda variant: picks(variant, dealpick.utc_day(timezone.now()), prover)


@pytest.fixture
def solved_challenge(make_challenge, solver_proofs):
    """Today's Penguin challenge, picked by the real solver: it comes with a winning line."""
    made = make_challenge("penguin", prover=solver_proofs)
    assert made.proof == "won" and made.solution
    return made


@pytest.fixture
def set_result():
    """Give a ranked attempt a result directly in the database, then put it on its boards."""

    def set_result(attempt: DailyAttempt, *, won_ms=None, cards: int = 0, ms: int = 0):
        game = attempt.game
        if won_ms is not None:
            Game.objects.filter(pk=game.pk).update(
                status=Game.Status.WON,
                finished_at=game.started_at + dt.timedelta(milliseconds=won_ms),
            )
            DailyAttempt.objects.filter(pk=attempt.pk).update(elapsed_ms=won_ms)
        else:
            DailyAttempt.objects.filter(pk=attempt.pk).update(foundations=cards, foundations_ms=ms)
        leaderboard.record_attempt(attempt.pk)
        attempt.refresh_from_db()
        attempt.game.refresh_from_db()
        return attempt

    return set_result
