"""Two tabs pressing Start at the same moment get one ranked attempt, not two clocks."""

import threading

import pytest
from django.db import connection

from daily.actions import start_attempt
from daily.models import DailyAttempt

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor == "sqlite",
        reason="the in-memory test SQLite locks tables instead of queueing writers (a file "
        "database queues them); this runs on PostgreSQL, as CI does",
    ),
]


def test_simultaneous_starts_share_one_ranked_attempt(account, challenge):
    """Starts racing each other resolve to the same attempt; the database holds one."""
    barrier = threading.Barrier(4)
    results, errors = [], []

    def press_start():
        try:
            barrier.wait()
            results.append(start_attempt(account, challenge)[0].pk)
        except Exception as exc:  # reported below, with the thread's error
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=press_start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    assert len(set(results)) == 1 and len(results) == 4
    assert DailyAttempt.objects.filter(player=account).count() == 1
    assert DailyAttempt.objects.get(player=account).ranked
