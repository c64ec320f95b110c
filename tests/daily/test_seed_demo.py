"""`manage.py seed_demo`: the demo data set is what its sizes say, real where it is replayed,
and never written into a database that already has players unless told to."""

import pytest
from django.core.management import CommandError, call_command

from daily.models import DailyAttempt, DailyChallenge
from games.engine import VARIANTS, new_game
from games.models import Game, Move, Player
from races.models import Race

SIZES = ["--players", "40", "--days", "3", "--races", "6", "--games", "400", "--long-games", "2"]
SIZES += ["--long-moves", "60", "--daily-share", "0.5", "-v", "0"]


@pytest.fixture
def seeded(db):
    call_command("seed_demo", *SIZES)


def test_the_sizes_asked_for_are_made(seeded):
    assert Player.objects.count() == 40
    assert Player.objects.filter(user__isnull=False).count() == 20
    assert Game.objects.count() == 400
    assert DailyChallenge.objects.count() == 3 * len(VARIANTS)
    assert Race.objects.filter(status=Race.Status.FINISHED).count() == 6


def test_ranked_daily_attempts_are_accounts_and_on_their_day(seeded):
    ranked = DailyAttempt.objects.filter(ranked=True).select_related("player", "game", "challenge")
    assert ranked.exists()
    for attempt in ranked:
        assert attempt.player.user_id is not None
        assert attempt.game.seed == attempt.challenge.seed
        assert attempt.game.started_at.date() == attempt.challenge.day


def test_every_race_has_its_racers_placed_in_order(seeded):
    for race in Race.objects.prefetch_related("racers"):
        places = sorted(r.place for r in race.racers.all())
        assert places == list(range(1, len(places) + 1))
        assert len(places) >= 1


def test_long_games_replay_on_the_engine_to_their_stored_position(seeded):
    long_games = Game.objects.filter(moves__isnull=False).distinct()
    assert long_games.count() == 2
    for game in long_games:
        engine = new_game(game.variant, game.seed)
        log = list(game.moves.order_by("seq").values_list("move", flat=True))
        for move in log:
            engine.undo() if move == Move.UNDO else engine.play(move)
        assert len(log) == game.seq
        assert engine.to_dict() == game.state


def test_a_database_with_players_is_refused(seeded):
    with pytest.raises(CommandError, match="already holds 40 players"):
        call_command("seed_demo", *SIZES)
    call_command("seed_demo", *SIZES, "--force")
    assert Player.objects.count() == 80


def test_races_start_and_finish_before_now_however_short_the_window(db):
    """A race that "started" after the seed's now finished before it started (negative times,
    refused by the racer's checks): at a million games a few of 5,000 races did."""
    from django.utils import timezone

    sizes = ["--players", "40", "--days", "0", "--races", "30", "--games", "200"]
    call_command("seed_demo", *sizes, "--long-games", "0", "-v", "0")
    races = Race.objects.prefetch_related("racers")
    assert races.count() == 30
    for race in races:
        assert race.created_at < race.starts_at <= race.finished_at <= timezone.now()
        assert all(r.done_ms >= 0 and r.cards_at_ms >= 0 for r in race.racers.all())
