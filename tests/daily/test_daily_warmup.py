"""Background picking: the daily page can pick today's and tomorrow's missing deals."""

import datetime as dt

import pytest
from django.db import connection

from daily import dealpick, warmup
from daily.models import DailyChallenge

pytestmark = pytest.mark.django_db(transaction=True)

in_memory_sqlite = pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="the in-memory test SQLite locks tables instead of queueing a second thread's "
    "writes (a file database queues them); this runs on PostgreSQL, as CI does",
)


@pytest.fixture
def no_solver(monkeypatch):
    monkeypatch.setattr(dealpick, "default_prover", lambda: dealpick.unproved_prover)


def wait_for_warmup() -> None:
    assert warmup._running.acquire(timeout=60), "the background pick did not finish"
    warmup._running.release()


@in_memory_sqlite
def test_the_daily_page_starts_picking_missing_days(client, settings, today, no_solver):
    """With DAILY_WARMUP on, the first visit picks every variant's deal for today and tomorrow."""
    settings.DAILY_WARMUP = True
    assert client.get("/daily/").status_code == 200
    wait_for_warmup()
    days = set(DailyChallenge.objects.values_list("day", flat=True))
    assert days == {today, today + dt.timedelta(days=1)}
    assert DailyChallenge.objects.count() == 10
    assert not warmup.ensure_picked(today)  # nothing left to pick


def test_warmup_is_off_unless_asked(client, settings, no_solver):
    settings.DAILY_WARMUP = False
    client.get("/daily/")
    assert DailyChallenge.objects.count() == 0
