"""The review queue in the admin, and players' reports (fairplay/admin.py, fairplay/actions.py)."""

import re

import pytest
from django.urls import reverse

from fairplay import actions, assess
from fairplay.chart import think_time_svg
from fairplay.models import Assessment, FlaggedPlayer, Report
from tests.fairplay.conftest import PERSON, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def held(ranked_game) -> Assessment:
    return assess.assess(play(ranked_game, [172] * 40).pk)


@pytest.fixture
def cleared(rated_race_game) -> Assessment:
    return assess.assess(play(rated_race_game(), PERSON).pk)


def test_the_queue_lists_pending_assessments_first(admin_client, held, cleared):
    page = admin_client.get(reverse("admin:fairplay_assessment_changelist"))
    assert page.status_code == 200
    listed = list(page.context["cl"].result_list)
    assert [a.pk for a in listed] == [held.pk, cleared.pk]


def test_an_assessment_shows_its_evidence(admin_client, held):
    page = admin_client.get(reverse("admin:fairplay_assessment_change", args=[held.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "<svg" in text and text.count("<rect") == 40
    assert "The whole game was played faster than 3 moves a second." in text
    assert reverse("records:replay", args=[held.game.public_id]) in text
    assert "share of think times under 250 ms" in text


def test_the_think_time_chart_is_named_by_its_count_of_moves():
    """A screen reader hears what the chart is: one bar a move, '1 move' for a single one."""
    label = 'aria-label="Think time of {}, one bar each, log scale"'
    assert label.format("1 move") in think_time_svg([1500])
    assert label.format("3 moves") in think_time_svg([1500, 900, 2400])


def test_clear_publishes_the_result(admin_client, admin_user, held):
    admin_client.post(
        reverse("admin:fairplay_assessment_changelist"),
        {"action": "clear", "_selected_action": [held.pk]},
    )
    held.refresh_from_db()
    assert held.status == Assessment.Status.CLEARED and not held.is_held
    assert held.reviewer == admin_user and held.reviewed_at is not None
    assert not FlaggedPlayer.objects.exists()


def test_confirm_flags_the_account(admin_client, admin_user, held):
    admin_client.post(
        reverse("admin:fairplay_assessment_changelist"),
        {"action": "confirm", "_selected_action": [held.pk]},
    )
    held.refresh_from_db()
    assert held.status == Assessment.Status.CONFIRMED
    flag = FlaggedPlayer.objects.get()
    assert (flag.player_id, flag.flagged_by, flag.assessment) == (
        held.player_id,
        admin_user,
        held,
    )


# ------------------------------------------------------------------ reports


def test_a_report_puts_a_cleared_result_in_the_queue(make_account, cleared):
    actions.do_report(make_account(), cleared.game, "bot", "too quick")
    cleared.refresh_from_db()
    assert cleared.status == Assessment.Status.PENDING and cleared.reports == 1
    # A report holds nothing by itself: the verdict was clear.
    assert not cleared.is_held


def test_a_report_of_a_result_not_yet_assessed_is_counted_when_it_is(make_account, ranked_game):
    game = play(ranked_game, PERSON)
    actions.do_report(make_account(), game, "bot")
    made = assess.assess(game.pk)
    assert (made.verdict, made.status, made.reports) == ("clear", "pending", 1)


def test_a_report_after_a_persons_decision_changes_no_status(make_account, cleared, admin_user):
    actions.do_clear(cleared, admin_user)
    actions.do_report(make_account(), cleared.game, "bot")
    cleared.refresh_from_db()
    assert cleared.status == Assessment.Status.CLEARED and cleared.reports == 1


@pytest.mark.parametrize(
    ("who", "says"),
    [
        ("guest", "Log in (or sign up) to report a result."),
        ("self", "You cannot report your own result."),
    ],
)
def test_reports_that_are_refused(who, says, cleared):
    from games.models import Player

    reporter = Player.objects.create() if who == "guest" else cleared.player
    with pytest.raises(actions.ReportRefused, match=re.escape(says)):
        actions.do_report(reporter, cleared.game, "bot")


def test_practice_games_cannot_be_reported(make_account, make_game, account):
    game = make_game(account, "penguin", 42)
    with pytest.raises(actions.ReportRefused, match="Only ranked results"):
        actions.do_report(make_account(), game, "bot")


def test_one_report_a_result(make_account, cleared):
    reporter = make_account()
    actions.do_report(reporter, cleared.game, "bot")
    with pytest.raises(actions.ReportRefused, match="already"):
        actions.do_report(reporter, cleared.game, "other")


def test_a_report_flood_is_refused(make_account, rated_race_game):
    """Past REPORTS_PER_HOUR in an hour a report is refused, with the reason, and not kept."""
    reporter = make_account()
    games = [play(rated_race_game(), PERSON[:3]) for _ in range(actions.REPORTS_PER_HOUR + 1)]
    for game in games[:-1]:
        actions.do_report(reporter, game, "bot")
    with pytest.raises(actions.TooManyReports, match="please wait"):
        actions.do_report(reporter, games[-1], "bot")
    assert Report.objects.filter(reporter=reporter).count() == actions.REPORTS_PER_HOUR


def test_the_report_page(client, make_account, cleared):
    reporter = make_account()
    client.force_login(reporter.user)
    url = reverse("fairplay:report", args=[cleared.game.public_id])
    assert "Send the report" in client.get(url).content.decode()
    answer = client.post(url, {"reason": "bot", "note": "", "next": "/races/"})
    assert answer.status_code == 302 and answer["Location"] == "/races/"
    assert Report.objects.filter(reporter=reporter, game=cleared.game).exists()


def test_the_report_page_says_why_a_flood_is_refused(client, make_account, cleared, monkeypatch):
    monkeypatch.setattr(actions, "REPORTS_PER_HOUR", 0)
    client.force_login(make_account().user)
    answer = client.post(
        reverse("fairplay:report", args=[cleared.game.public_id]), {"reason": "bot"}
    )
    assert answer.status_code == 429
    assert "please wait before reporting another result" in answer.content.decode()


@pytest.mark.parametrize(
    ("who", "says", "link"),
    [
        ("visitor", "Log in (or sign up) to report a result.", "Log in"),
        ("own", "You cannot report your own result.", "Go back"),
    ],
)
def test_the_report_page_says_at_once_who_cannot_report(client, cleared, who, says, link):
    """A visitor, or the result's own player, reads why with no form to fill in vain (its
    post is refused the same way)."""
    if who == "own":
        client.force_login(cleared.player.user)
    url = reverse("fairplay:report", args=[cleared.game.public_id])
    for answer, status in ((client.get(url), 200), (client.post(url, {"reason": "bot"}), 403)):
        page = answer.content.decode()
        assert answer.status_code == status
        assert says in page and re.search(rf'<a class="button" href="[^"]*">{link}</a>', page)
        assert "<textarea" not in page and "Send the report" not in page
    assert not Report.objects.exists()


def test_a_refused_report_keeps_what_was_written(client, make_account, cleared):
    client.force_login(make_account().user)
    url = reverse("fairplay:report", args=[cleared.game.public_id])
    answer = client.post(url, {"reason": "nonsense", "note": "Moves every 0.2 s all game."})
    page = answer.content.decode()
    assert answer.status_code == 400 and "Choose a reason for the report." in page
    # (Django writes a newline after <textarea>, which the browser drops)
    assert ">\nMoves every 0.2 s all game.</textarea>" in page
