"""Operations: the admin pages, the management commands, recent races from the races app."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.utils import timezone

from daily import dealpick
from daily.actions import do_resign, start_attempt
from daily.models import DailyChallenge
from games.actions import do_create_game
from races.models import Race, Racer

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    return client


def test_admin_lists_challenges_and_attempts(admin_client, account, challenge):
    """Daily challenges and their results are in the admin, with counts and links."""
    attempt, _ = start_attempt(account, challenge)
    do_resign(attempt.game)
    listing = admin_client.get("/admin/daily/dailychallenge/")
    assert listing.status_code == 200 and b"Penguin" in listing.content
    detail = admin_client.get(f"/admin/daily/dailychallenge/{challenge.pk}/change/")
    assert detail.status_code == 200 and b"alice" in detail.content
    attempts = admin_client.get("/admin/daily/dailyattempt/")
    assert attempts.status_code == 200
    assert f"/replay/{attempt.game.public_id}/".encode() in attempts.content


def rebuild_boards_of(admin_client, *challenges) -> str:
    response = admin_client.post(
        "/admin/daily/dailychallenge/",
        {"action": "rebuild_boards", "_selected_action": [c.pk for c in challenges]},
        follow=True,
    )
    return response.content.decode()


def test_admin_action_rebuilds_boards(admin_client, challenge, account, make_account):
    """The action says what it rebuilt, one board and one entry in the singular."""
    assert "Rebuilt 1 board (0 entries)." in rebuild_boards_of(admin_client, challenge)
    do_resign(start_attempt(account, challenge)[0].game)
    assert "Rebuilt 1 board (1 entry)." in rebuild_boards_of(admin_client, challenge)
    do_resign(start_attempt(make_account(), challenge)[0].game)
    assert "Rebuilt 1 board (2 entries)." in rebuild_boards_of(admin_client, challenge)


def test_precompute_picks_today_and_the_coming_days(monkeypatch, capsys):
    """`precompute_daily --days N` stores a deal for every variant, today and N days on."""
    monkeypatch.setattr(dealpick, "default_prover", lambda: dealpick.unproved_prover)
    call_command("precompute_daily", days=2, verbosity=0)
    today = dealpick.utc_day(timezone.now())
    days = set(DailyChallenge.objects.values_list("day", flat=True))
    assert days == {today + dt.timedelta(days=i) for i in range(3)}
    assert DailyChallenge.objects.count() == 15
    assert "Not proved winnable" in capsys.readouterr().out
    call_command("precompute_daily", days=2, verbosity=0)  # a second run changes nothing
    assert DailyChallenge.objects.count() == 15


def test_rebuild_command_reports_what_it_did(capsys, challenge):
    call_command("rebuild_leaderboards", verbosity=0)
    assert "Rebuilt 16 boards" in capsys.readouterr().out  # 15 all-time + 1 daily


def test_recent_races_lists_finished_public_races(client, make_account):
    """Finished public races appear newest first with their racers; others do not."""
    host = make_account("host")
    now = timezone.now()

    def race(code, status, visibility, minutes_ago):
        made = Race.objects.create(
            code=code,
            host=host,
            variant="queenie",
            seed=5,
            status=status,
            visibility=visibility,
            finished_at=now - dt.timedelta(minutes=minutes_ago),
        )
        game = do_create_game(host, "queenie", 5, kind="race")
        Racer.objects.create(
            race=made, player=host, name="host", game=game, status="won", place=1, finish_ms=9000
        )
        return made

    race("AAAAAA", Race.Status.FINISHED, Race.Visibility.PUBLIC, 10)
    race("BBBBBB", Race.Status.FINISHED, Race.Visibility.PUBLIC, 5)
    race("CCCCCC", Race.Status.FINISHED, Race.Visibility.LINK, 1)
    race("DDDDDD", Race.Status.STARTED, Race.Visibility.PUBLIC, 1)
    data = client.get("/api/leaderboards/races/").json()
    assert [r["code"] for r in data["rows"]] == ["BBBBBB", "AAAAAA"]
    racer = data["rows"][0]["racers"][0]
    assert (racer["place"], racer["finish_ms"], racer["player"]["nickname"]) == (1, 9000, "host")
    assert client.get("/leaderboards/races/").status_code == 200
    assert b"BBBBBB" in client.get("/leaderboards/").content
