"""An assessment of each ranked result, from the record, made once (fairplay/assess.py)."""

import time

import pytest
from django.db import transaction

from fairplay import assess
from fairplay.models import Assessment
from games import worker
from games.models import Game, Player
from races import actions as races
from races.models import Race
from tests.fairplay.conftest import PERSON, play, winning_line
from tests.race_support import out_of_time

pytestmark = pytest.mark.django_db


def test_a_bots_ranked_daily_is_held(ranked_game):
    """The solver's line at 6 moves a second: likely a bot, pending review."""
    game = play(ranked_game, [172] * 40)
    made = assess.assess(game.pk)
    assert (made.kind, made.verdict, made.rule) == ("daily", "likely_bot", "inhuman_pace")
    assert made.status == Assessment.Status.PENDING and made.is_held
    assert made.seq == game.seq and made.player_id == game.player_id
    assert made.figures["fast_share"] == 1.0
    assert made.think_ms == [172] * 40


def test_a_persons_ranked_daily_is_clear(ranked_game):
    made = assess.assess(play(ranked_game, PERSON).pk)
    assert (made.verdict, made.status) == ("clear", Assessment.Status.CLEARED)
    assert not made.is_held


def test_the_solver_is_asked_in_each_position(ranked_game, monkeypatch):
    """Playing the solver's own line: its choice in (nearly) every position it answered."""
    monkeypatch.setattr(assess, "SOLVER_NODES_PER_POSITION", 3000)
    made = assess.assess(play(ranked_game, PERSON).pk)
    assert made.figures["solver_judged"] >= 20
    assert made.figures["solver_agreement"] >= 0.8


def test_a_busy_machine_judges_as_many_positions(ranked_game, monkeypatch):
    """The solver's budget for a game is the assessing thread's CPU time: a wall clock that runs
    on (other work on the machine) cuts no position short, so the verdict does not depend on
    the load."""
    monkeypatch.setattr(assess, "SOLVER_NODES_PER_POSITION", 3000)
    game = play(ranked_game, PERSON)
    start = game.moves.order_by("seq").first().at
    quiet = assess.record_of(game, start).solver_choice
    ticks = iter(range(0, 10**6, 60))  # a minute of the wall clock at each look
    monkeypatch.setattr(assess.time, "perf_counter", lambda: next(ticks))
    monkeypatch.setattr(assess.time, "monotonic", lambda: next(ticks))
    busy = assess.record_of(game, start).solver_choice
    assert busy == quiet and sum(choice is not None for choice in busy) >= 20


def test_too_few_moves_are_clear(ranked_game):
    made = assess.assess(play(ranked_game, [100] * 5).pk)
    assert (made.verdict, made.rule) == ("clear", "too_few_moves")


def test_assessing_twice_assesses_once(ranked_game):
    """A retried finish finds the record assessed: nothing new is made."""
    game = play(ranked_game, [172] * 40)
    first = assess.assess(game.pk)
    assert assess.assess(game.pk) is None
    assert Assessment.objects.filter(game=game).count() == 1
    assert Assessment.objects.get(game=game).created_at == first.created_at


def test_a_longer_record_is_assessed_again_until_a_person_decides(ranked_game, admin_user):
    """A stuck attempt that was undone and played on: the new record is assessed, unless a
    reviewer has decided on the old one."""
    game = play(ranked_game, PERSON)
    assess.assess(game.pk)
    Game.objects.filter(pk=game.pk).update(seq=game.seq + 1)
    assert assess.assess(game.pk).seq == game.seq + 1
    Assessment.objects.filter(game=game).update(reviewer=admin_user)
    Game.objects.filter(pk=game.pk).update(seq=game.seq + 2)
    assert assess.assess(game.pk) is None


def test_games_that_are_not_ranked_are_not_assessed(account, make_game):
    game = play(make_game(account, "penguin", 42), [172] * 40)
    assert assess.assess(game.pk) is None
    assert not Assessment.objects.exists()


def test_a_game_in_play_is_not_assessed(ranked_game):
    assert assess.assess(ranked_game.pk) is None


def test_a_rated_races_game_is_assessed(rated_race_game):
    made = assess.assess(play(rated_race_game(), [172] * 40).pk)
    assert (made.kind, made.verdict) == ("race", "likely_bot")


def test_a_stuck_racer_is_assessed_when_the_race_finishes_not_before(rated_race_game):
    """Stuck in a race still running, a racer may undo and play on: not over yet."""
    game = play(rated_race_game(), [172] * 40)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.STUCK)
    assert assess.assess(game.pk) is None
    Race.objects.filter(racers__game=game).update(status=Race.Status.FINISHED)
    made = assess.assess(game.pk)
    assert (made.kind, made.verdict) == ("race", "likely_bot")


def test_a_guests_game_in_a_rated_race_is_not(rated_race_game):
    """Guests race unrated: nothing of theirs to hold."""
    from games.models import Player

    game = play(rated_race_game(Player.objects.create()), [172] * 40)
    assert assess.assess(game.pk) is None


def test_an_unrated_races_game_is_not(rated_race_game):
    assert assess.assess(play(rated_race_game(rated=False), [172] * 40).pk) is None


def closed_race(make_account, rated: bool) -> Race:
    """A race of an account and a guest, closed at its time limit."""
    host, guest = make_account(), Player.objects.create(nickname="Guest")
    race = races.do_create_race(host, variant="penguin", rated=rated, time_limit_s=300)
    races.do_join_race(race, guest)
    races.do_start_race(race, host)
    out_of_time(race)
    assert races.do_close_if_due(race)
    return race


@pytest.mark.parametrize("rated", [True, False])
def test_a_rated_races_close_hands_its_accounts_games_to_the_worker(
    rated, make_account, settings, held_jobs, django_capture_on_commit_callbacks
):
    """The close of a rated race (the games it ends with an update included) hands each
    signed-in racer's game over after the commit, and a guest's not; an unrated race's none."""
    settings.FAIRPLAY_ASSESSMENT = True
    handed = held_jobs(assess._queue)
    with django_capture_on_commit_callbacks(execute=True):
        race = closed_race(make_account, rated)
    accounts = race.racers.filter(player__user__isnull=False).values_list("game_id", flat=True)
    assert handed() == (list(accounts) if rated else [])


def test_a_game_is_handed_over_once_after_the_commit(
    ranked_game, settings, held_jobs, django_capture_on_commit_callbacks
):
    """A game named twice in one hand-over: one job, once the transaction commits (a hand-over
    while its job is in the worker runs it again after: tests/service/test_background_worker.py)."""
    settings.FAIRPLAY_ASSESSMENT = True
    handed = held_jobs(assess._queue)
    with django_capture_on_commit_callbacks(execute=True):
        assess.request([ranked_game.pk, ranked_game.pk])
        assert handed() == []
    assert handed() == [ranked_game.pk]


@pytest.mark.django_db(transaction=True)
def test_the_winning_batch_hands_the_game_to_the_worker(account, challenge, settings):
    """A ranked daily won through the move path is assessed off the request, after the commit."""
    settings.FAIRPLAY_ASSESSMENT = True
    from daily.actions import start_attempt
    from games import actions

    attempt, _ = start_attempt(account, challenge)
    live = attempt.game
    for move in winning_line():
        with transaction.atomic():
            live = actions.do_play_move(live, move, live.seq).game
    game = Game.objects.get(pk=attempt.game_id)
    assert game.status == Game.Status.WON
    worker.drain()
    made = Assessment.objects.get(game=game)
    # Played by a test as fast as the machine goes: a bot's pace.
    assert made.verdict == "likely_bot" and made.status == Assessment.Status.PENDING


@pytest.mark.django_db(transaction=True)
def test_the_assessment_waits_while_the_cores_are_contended(account, challenge, settings, pressure):
    """Live play comes first: a game that ends while the machine's cores are busy is assessed
    once they are not (a hold decided then rescores what it withholds: fairplay/holds.py)."""
    settings.FAIRPLAY_ASSESSMENT = True
    pressure.now = 80.0
    from daily.actions import start_attempt
    from games import actions

    attempt, _ = start_attempt(account, challenge)
    live = attempt.game
    for move in winning_line():
        with transaction.atomic():
            live = actions.do_play_move(live, move, live.seq).game
    time.sleep(0.3)  # six looks again, each finding the cores contended
    assert list(assess._queue.queued) == [attempt.game_id]
    assert not Assessment.objects.filter(game_id=attempt.game_id).exists()
    pressure.now = 2.0
    worker.drain()
    assert Assessment.objects.get(game_id=attempt.game_id).verdict == "likely_bot"


def test_nothing_is_queued_with_the_assessment_off(
    ranked_game, settings, django_capture_on_commit_callbacks
):
    settings.FAIRPLAY_ASSESSMENT = False
    with django_capture_on_commit_callbacks() as callbacks:
        assess.request([ranked_game.pk])
    assert callbacks == []


def test_the_catch_up_command_assesses_what_the_worker_missed(ranked_game, rated_race_game):
    """assess_games: the ended ranked games without an assessment of their record."""
    from io import StringIO

    from django.core.management import call_command

    from races.models import Race

    daily = play(ranked_game, [172] * 20)
    race_game = play(rated_race_game(), [172] * 20)
    Race.objects.filter(racers__game=race_game).update(status=Race.Status.FINISHED)
    assert sorted(assess.waiting(1000, 10)) == sorted([daily.pk, race_game.pk])
    out = StringIO()
    call_command("assess_games", stdout=out)
    assert "assessed 2 games" in out.getvalue()
    assert assess.waiting(1000, 10) == []


def test_the_catch_up_command_assesses_nothing_while_the_cores_are_contended(ranked_game, pressure):
    """Its next run, once they are not, takes up the games this one left."""
    from io import StringIO

    from django.core.management import call_command

    daily = play(ranked_game, [172] * 20)
    pressure.now = 45.0
    out = StringIO()
    call_command("assess_games", stdout=out)
    assert "stopped: the cores are contended (CPU pressure 45%)" in out.getvalue()
    assert "assessed 0 games" in out.getvalue()
    assert assess.waiting(1000, 10) == [daily.pk]
    pressure.now = 4.0
    call_command("assess_games", stdout=out)
    assert "assessed 1 games" in out.getvalue()
    assert assess.waiting(1000, 10) == []
