"""What players see: their own held result says it is pending review and why; other players'
ranked results carry a report link (results pages and boards)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from fairplay import assess
from races.models import Race
from tests.daily.conftest import board_prefix  # noqa: F401  (each test's own boards)
from tests.fairplay.conftest import play

pytestmark = pytest.mark.django_db

PENDING = "Pending review."
WHY = "The whole game was played faster than 3 moves a second."


@pytest.fixture
def held_daily(ranked_game):
    game = play(ranked_game, [172] * 40)
    assert assess.assess(game.pk).is_held
    return game


@pytest.fixture
def held_race(rated_race_game, make_account):
    game = play(rated_race_game(), [172] * 40)
    race = Race.objects.get(racers__game=game)
    Race.objects.filter(pk=race.pk).update(status=Race.Status.FINISHED, finished_at=timezone.now())
    assert assess.assess(game.pk).is_held
    return game, race


def test_the_player_sees_their_held_daily_result_pending_review(client, held_daily):
    client.force_login(held_daily.player.user)
    page = client.get(reverse("daily:play", args=[held_daily.public_id])).content.decode()
    assert PENDING in page and WHY in page and "not on the leaderboards" in page


def test_the_player_sees_their_held_race_result_pending_review(client, held_race):
    game, race = held_race
    client.force_login(game.player.user)
    page = client.get(reverse("races:results", args=[race.code])).content.decode()
    assert PENDING in page and WHY in page and "rating change is on hold" in page


def test_other_players_see_no_notice_and_a_report_link(client, held_race, make_account):
    game, race = held_race
    client.force_login(make_account().user)
    page = client.get(reverse("races:results", args=[race.code])).content.decode()
    assert PENDING not in page
    assert reverse("fairplay:report", args=[game.public_id]) in page


def test_no_report_link_on_ones_own_row(client, held_race):
    game, race = held_race
    client.force_login(game.player.user)
    page = client.get(reverse("races:results", args=[race.code])).content.decode()
    assert reverse("fairplay:report", args=[game.public_id]) not in page


def test_the_daily_board_has_report_links(client, ranked_game, challenge):
    from daily.models import DailyAttempt
    from records import leaderboard

    leaderboard.record_attempt(DailyAttempt.objects.get(game=ranked_game).pk)
    page = client.get(reverse("records:board", args=["penguin", challenge.day.isoformat()]))
    link = reverse(
        "fairplay:report_daily", args=["penguin", challenge.day.isoformat(), ranked_game.player_id]
    )
    assert link in page.content.decode()
    form = client.get(link)
    assert form.status_code == 200 and ranked_game.player.nickname in form.content.decode()
