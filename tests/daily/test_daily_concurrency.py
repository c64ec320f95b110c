"""Two tabs pressing Start at the same moment get one ranked attempt, not two clocks."""

import pytest
from django.db import connection

from daily.actions import start_attempt
from daily.models import DailyAttempt
from tests.threads import all_at_once

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
    threads = all_at_once(start_attempt, [(account, challenge)] * 4)
    assert [thread.error for thread in threads] == [None] * 4
    results = [thread.result[0].pk for thread in threads]
    assert len(set(results)) == 1 and len(results) == 4
    assert DailyAttempt.objects.filter(player=account).count() == 1
    assert DailyAttempt.objects.get(player=account).ranked
