"""The daily pages: start, play (never the seed), resign, boards, player pages, ghosts."""

import datetime as dt
import json
import re

import pytest
from django.utils import timezone

from daily import dealpick
from daily.actions import do_resign, start_attempt
from daily.models import DailyAttempt
from games.actions import do_create_game
from games.models import Game
from games.solver.variants.eighty_thieves import TYPICAL_BEST_HOME
from races.models import Race, Racer

pytestmark = pytest.mark.django_db


@pytest.fixture
def account_client(client, account):
    client.force_login(account.user)
    return client


def page_config(response, element="daily-config"):
    html = response.content.decode()
    match = re.search(rf'<script id="{element}" type="application/json">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


def test_home_lists_every_variant_with_a_countdown(client):
    """The daily home shows the five challenges and the countdown to the next day."""
    html = client.get("/daily/").content.decode()
    assert html.count('class="daily-card"') == 5
    assert 'data-countdown="' in html


def test_home_says_which_deals_are_proved_winnable(client, solved_challenge, make_challenge):
    """A deal the solver won is marked proved; a deal picked without a proof says so."""
    make_challenge("eighty-thieves")
    html = client.get("/daily/").content.decode()
    cards = dict(
        re.findall(
            r'data-variant="([a-z-]+)">(.*?)</li>\s*(?=<li class="daily-card"|</ul>)', html, re.S
        )
    )
    assert "Proved winnable" in cards["penguin"]
    assert "Not proved winnable" in cards["eighty-thieves"]
    assert "proved" not in cards["queenie"].lower(), "a day not picked yet claims nothing"


@pytest.mark.parametrize(("variant", "shown"), [("eighty-thieves", True), ("penguin", False)])
def test_the_eighty_thieves_page_says_what_a_good_result_is(client, make_challenge, variant, shown):
    """A typical best line's cards home on the Eighty Thieves daily page (and its card on the
    daily home), not on the others."""
    make_challenge(variant)
    line = f"a typical best line the solver finds sends {TYPICAL_BEST_HOME} of 208 cards home"
    assert (line in client.get(f"/daily/{variant}/").content.decode()) == shown
    assert client.get("/daily/").content.decode().count(line) == 1


@pytest.mark.parametrize(("proved", "text"), [(True, "Proved winnable"), (False, "Not proved")])
def test_the_variant_page_says_whether_the_deal_is_proved(client, make_challenge, proved, text):
    prover = dealpick.solver_prover(max_nodes=20_000) if proved else dealpick.unproved_prover
    make_challenge("penguin", prover=prover)
    assert text in client.get("/daily/penguin/").content.decode()


def test_starting_redirects_to_the_game_and_the_page_never_has_the_seed(
    account_client, account, challenge
):
    """Start deals the game and opens its page; neither the page nor its config has the seed."""
    response = account_client.post("/daily/penguin/start/")
    attempt = DailyAttempt.objects.get(player=account)
    assert attempt.ranked
    assert response.status_code == 302
    assert response["Location"] == f"/daily/play/{attempt.game.public_id}/"
    page = account_client.get(response["Location"])
    assert page.status_code == 200
    config = page_config(page)
    assert "seed" not in config and config["ws_path"] == "/ws/daily/" and config["ranked"]
    assert str(challenge.seed) not in page.content.decode()


def test_the_variant_page_resumes_an_unfinished_attempt(account_client, account, challenge):
    """Coming back to the day's variant page resumes the running game."""
    attempt, _ = start_attempt(account, challenge)
    response = account_client.get("/daily/penguin/")
    assert response["Location"] == f"/daily/play/{attempt.game.public_id}/"


def test_the_start_page_offers_the_ranked_game_or_practice(
    client, account_client, account, challenge
):
    """An account is offered its ranked game; after it, practice; a guest, practice only."""
    assert b'data-start="ranked"' in account_client.get("/daily/penguin/").content
    do_resign(start_attempt(account, challenge)[0].game)
    assert b"Play it again (practice)" in account_client.get("/daily/penguin/").content
    client.logout()
    assert b'data-start="practice"' in client.get("/daily/penguin/").content


def test_someone_elses_attempt_is_not_found(client, account, challenge, make_account):
    """Only the player sees their attempt's page."""
    attempt, _ = start_attempt(account, challenge)
    client.force_login(make_account("mallory").user)
    assert client.get(f"/daily/play/{attempt.game.public_id}/").status_code == 404
    assert client.post(f"/daily/play/{attempt.game.public_id}/resign/").status_code == 404


def test_resigning_ends_the_attempt(account_client, account, challenge):
    """Give up ends the ranked game where it stands."""
    attempt, _ = start_attempt(account, challenge)
    account_client.post(f"/daily/play/{attempt.game.public_id}/resign/")
    attempt.refresh_from_db()
    assert attempt.game.status == Game.Status.RESIGNED and attempt.elapsed_ms is not None


def test_unknown_variant_is_404(client, db):
    assert client.get("/daily/klondike/").status_code == 404
    assert client.post("/daily/klondike/start/").status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/leaderboards/",
        "/leaderboards/races/",
        "/leaderboards/fastest/penguin/",
        "/leaderboards/wins/queenie/",
        "/leaderboards/streak/spiderweb/",
    ],
)
def test_board_pages_render(client, db, path):
    assert client.get(path).status_code == 200


def test_the_daily_board_page_shows_your_rank_off_the_first_page(
    client, make_account, challenge, set_result
):
    """Far down the board, your row and rank are shown under the first page."""
    players = [make_account(f"p{i}") for i in range(4)]
    for i, player in enumerate(players):
        set_result(start_attempt(player, challenge)[0], won_ms=1000 * (i + 1))
    client.force_login(players[-1].user)
    html = client.get(f"/daily/penguin/{challenge.day.isoformat()}/?per_page=2").content.decode()
    assert 'data-my-rank="4"' in html
    assert f'<tr class="me" data-player="{players[-1].pk}" data-rank="4">' in html


def test_a_past_days_board_offers_each_run_as_a_ghost(
    client, make_account, make_challenge, set_result, today
):
    """Every run on a past day's board has its replay and a form racing its ghost."""
    old = make_challenge("penguin", day=today - dt.timedelta(days=2))
    runs = [start_attempt(make_account(f"p{i}"), old)[0] for i in range(3)]
    for i, run in enumerate(runs):
        DailyAttempt.objects.filter(pk=run.pk).update(ranked=True)  # played on its day
        set_result(run, won_ms=1000 * (i + 1))
    html = client.get(f"/daily/penguin/{old.day.isoformat()}/").content.decode()
    for run in runs:
        assert f'<a href="/replay/{run.game.public_id}/">Replay<span' in html
        assert f'<form method="post" action="/ghost/{run.game.public_id}/">' in html


def test_one_card_home_is_one_card(client, account, challenge, set_result):
    """A ranked game given up with one card home reads "1 card", on the board, today's page
    and the start page."""
    attempt, _ = start_attempt(account, challenge)
    do_resign(attempt.game)
    set_result(attempt, cards=1, ms=4_000)
    day = challenge.day.isoformat()
    board = client.get(f"/daily/penguin/{day}/").content.decode()
    assert re.search(r"<td>1 card <span", board), "the board row"
    client.force_login(account.user)
    today = client.get("/daily/").content.decode()
    assert '<span class="result">1 card</span>' in today
    assert "gave up, 1 card home" in today
    start = client.get("/daily/penguin/").content.decode()
    assert "gave up with 1 card home" in start
    assert "1 cards" not in board + today + start


def test_an_empty_board_says_whether_anyone_may_still_play(client, make_challenge, today):
    """Today's empty board waits for its first player; a past day's will stay empty."""
    make_challenge("penguin")
    make_challenge("penguin", day=today - dt.timedelta(days=3))
    now = client.get(f"/daily/penguin/{today.isoformat()}/").content.decode()
    assert "Nobody on this board yet." in now
    past = today - dt.timedelta(days=3)
    then = client.get(f"/daily/penguin/{past.isoformat()}/").content.decode()
    assert "Nobody played this day's challenge ranked." in then and "yet" not in then


@pytest.mark.parametrize("board", ["daily", "fastest", "rating"])
def test_a_boards_tabs_say_which_game_is_shown(client, db, today, board):
    """The current game's tab is marked for a screen reader too, not by its colour alone."""
    path = {
        "daily": f"/daily/queenie/{today.isoformat()}/",
        "fastest": "/leaderboards/fastest/queenie/",
        "rating": "/leaderboards/rating/queenie/",
    }[board]
    html = client.get(path).content.decode()
    tabs = re.search(r'<nav class="variant-tabs".*?</nav>', html, re.S).group(0)
    current = re.findall(r"<a [^>]*aria-current=\"page\"[^>]*>([^<]*)</a>", tabs)
    assert current == ["Queenie"]


def test_board_page_bad_parameters_get_400(client, db, today):
    assert client.get(f"/daily/penguin/{today.isoformat()}/?page=zero").status_code == 400
    assert client.get("/daily/penguin/2026-02-30/").status_code == 400


def test_player_page(client, account, challenge, set_result):
    """A player's page shows their games and links to the replays the visitor may watch:
    today's daily run only to its player until the day ends."""
    attempt, _ = start_attempt(account, challenge)
    set_result(attempt, won_ms=61_234)
    html = client.get(f"/players/{account.pk}/").content.decode()
    assert "alice" in html and "1:01.234" in html
    assert f"/replay/{attempt.game.public_id}/" not in html
    client.force_login(account.user)
    html = client.get(f"/players/{account.pk}/").content.decode()
    assert f"/replay/{attempt.game.public_id}/" in html
    assert client.get("/players/999999/").status_code == 404


def test_one_daily_challenge_won_is_one_challenge(client, account, challenge, set_result):
    """A player whose one ranked daily was won reads '1 daily challenge won' on their page, and
    '1 day in a row now'."""
    attempt, _ = start_attempt(account, challenge)
    set_result(attempt, won_ms=61_234)
    html = client.get(f"/players/{account.pk}/").content.decode()
    assert '<span class="value">1</span><span class="label">daily challenge won</span>' in html
    assert '">1</span><span class="label">day in a row now</span>' in html


@pytest.mark.parametrize(
    ("status", "says"),
    [("lobby", "in the lobby"), ("started", "racing now"), ("cancelled", "cancelled")],
)
def test_a_player_pages_race_with_no_place_says_where_it_stands(client, make_account, status, says):
    """A race with no place yet (or none ever) says so in words, not its status's code."""
    racer = make_account("racer")
    race = Race.objects.create(
        code="PLACE1",
        host=racer,
        variant="penguin",
        seed=77,
        status=status,
        visibility=Race.Visibility.PUBLIC,
    )
    Racer.objects.create(race=race, player=racer, name="racer")
    html = client.get(f"/players/{racer.pk}/").content.decode()
    assert f'<td data-label="Place">{says}</td>' in html


def test_a_ghost_race_on_a_past_day(client, account, make_account, make_challenge, today):
    """Anyone may race a past day's finished run: a practice attempt with the ghost beside it."""
    old = make_challenge("penguin", day=today - dt.timedelta(days=2))
    run, _ = start_attempt(account, old)
    do_resign(run.game)
    racer = make_account("bob")
    client.force_login(racer.user)
    response = client.post(f"/ghost/{run.game.public_id}/")
    attempt = DailyAttempt.objects.get(player=racer)
    assert not attempt.ranked and attempt.game.ghost_race.ghost_id == run.game_id
    page = client.get(response["Location"])
    config = page_config(page)
    assert config["ghost"]["game"] == run.game.public_id
    assert config["ghost"]["progress"][0][0] == 0
    assert config["ws_path"] == "/ws/daily/" and "seed" not in config
    again = client.post(f"/ghost/{run.game.public_id}/")  # resumes, does not deal again
    assert again["Location"] == response["Location"]


def test_a_ghost_race_does_not_spend_the_ranked_game(
    client, account, make_account, make_challenge, today
):
    """Racing a ghost of today's deal (your own finished run) is practice; the day's ranked
    game, once spent, stays spent, and a fresh account's stays available."""
    challenge = make_challenge("queenie")
    run, _ = start_attempt(account, challenge)
    do_resign(run.game)
    client.force_login(account.user)
    client.post(f"/ghost/{run.game.public_id}/")
    assert DailyAttempt.objects.filter(player=account, ranked=True).count() == 1
    assert DailyAttempt.objects.filter(player=account, ranked=False).count() == 1


def test_a_ghost_race_on_a_finished_races_run(client, make_account):
    """A finished race's run can be raced: a practice game on the race's deal with the ghost."""
    host = make_account("host")
    race = Race.objects.create(
        code="GHOST1",
        host=host,
        variant="penguin",
        seed=77,
        status=Race.Status.FINISHED,
        visibility=Race.Visibility.PUBLIC,
        finished_at=timezone.now(),
    )
    run = do_create_game(host, "penguin", 77, kind=Game.Kind.RACE)
    Racer.objects.create(race=race, player=host, name="host", game=run, status="won", place=1)
    racer = make_account("bob")
    client.force_login(racer.user)
    response = client.post(f"/ghost/{run.public_id}/")
    game = Game.objects.get(player=racer)
    assert (game.kind, game.variant, game.seed) == (Game.Kind.PRACTICE, "penguin", 77)
    assert game.ghost_race.ghost == run
    config = page_config(client.get(response["Location"]))
    assert config["ghost"]["nickname"] == "host" and config["ws_path"] == "/ws/game/"
    assert b"Race against this run" in client.get(f"/replay/{run.public_id}/").content


def test_a_running_races_run_cannot_be_raced(client, make_account):
    """A race still running is no ghost: its replay (and deal) are not out yet."""
    host = make_account("host")
    race = Race.objects.create(
        code="GHOST2", host=host, variant="penguin", seed=78, status=Race.Status.STARTED
    )
    run = do_create_game(host, "penguin", 78, kind=Game.Kind.RACE)
    Racer.objects.create(race=race, player=host, name="host", game=run, status="playing")
    client.force_login(make_account("bob").user)
    client.post(f"/ghost/{run.public_id}/")
    assert not Game.objects.filter(ghost_race__ghost=run).exists()


def test_a_racer_who_resigned_sees_no_replay_while_others_race(client, make_account):
    """A resigned racer's replay stays shut until the race ends: it would show the deal to
    someone who could pass it on to the racers still playing."""
    host = make_account("host")
    race = Race.objects.create(
        code="GHOST3", host=host, variant="penguin", seed=79, status=Race.Status.STARTED
    )
    run = do_create_game(host, "penguin", 79, kind=Game.Kind.RACE)
    Racer.objects.create(race=race, player=host, name="host", game=run, status="resigned")
    do_resign(run)
    client.force_login(host.user)
    assert client.get(f"/replay/{run.public_id}/").status_code == 403
    race.status = Race.Status.FINISHED
    race.finished_at = timezone.now()
    race.save()
    assert client.get(f"/replay/{run.public_id}/").status_code == 200


def test_no_ghost_of_todays_run_by_someone_else(client, account, make_account, challenge):
    """Today's runs are nobody else's to race until the day ends (that would show the deal)."""
    run, _ = start_attempt(account, challenge)
    do_resign(run.game)
    client.force_login(make_account("bob").user)
    client.post(f"/ghost/{run.game.public_id}/")
    assert not Game.objects.filter(ghost_race__ghost=run.game).exists()


def test_login_page_exists_for_guests(client, db):
    """The start page links guests to log in or sign up."""
    html = client.get("/daily/queenie/").content.decode()
    assert "/accounts/login/" in html and "/accounts/signup/" in html


def test_the_start_page_says_why_a_late_sign_up_plays_practice(client, guest, challenge):
    """An account that played today's deal as a guest is told its game today is practice."""
    from django.contrib.auth import get_user_model

    from games.identity import attach_user

    do_resign(start_attempt(guest, challenge)[0].game)
    account = attach_user(guest, get_user_model().objects.create_user("late"))
    client.force_login(account.user)
    html = client.get("/daily/penguin/").content.decode()
    assert "before you signed in" in html and 'data-start="ranked"' not in html
