"""A fair-play hold decided after an arena race takes that result's points back, and a cleared
hold gives them back (docs/arenas.md, "Points"): the player's record is counted again from the
stored results in order, streaks included, and the arena's board in the rank store follows."""

import pytest

from arenas import board, placement
from arenas.models import ArenaPlayer, ArenaResult
from fairplay import actions, holds
from fairplay.models import Assessment
from tests.arenas.conftest import play_out

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_countdown")]


@pytest.fixture
def three_wins(arena, here, django_capture_on_commit_callbacks):
    """Ann wins three races of two against Bob: 4, 4, then 8 on her streak (16); Bob's
    second places score 3 each (no podium in a race of two). The board is written as each
    race's commit writes it."""
    ann, bob = here("Ann"), here("Bob")
    races = []
    for _ in range(3):
        [race] = placement.place(arena.pk)
        with django_capture_on_commit_callbacks(execute=True):
            play_out(race, movers=[ann, bob], resigners=[bob, ann])
        races.append(race)
    assert [r.points for r in ArenaResult.objects.filter(player=ann).order_by("at")] == [4, 4, 8]
    return ann, bob, races


def hold(race, player) -> Assessment:
    game = race.racers.get(player=player).game
    return Assessment.objects.create(
        game=game, player=player, kind="race", seq=0, verdict="likely_bot", rule="inhuman_pace",
        status=Assessment.Status.PENDING,
    )  # fmt: skip


def on_board(arena) -> dict[int, int]:
    return {row.player_id: row.points for row in board.read_top(arena, 10).rows}


def recounted(arena) -> dict[int, int]:
    """The points counted again from PostgreSQL, as `rebuild_leaderboards` counts them."""
    return {pid: standing.points for pid, standing in board.recount(arena).items()}


def total(arena, player) -> int:
    return ArenaPlayer.objects.get(arena=arena, player=player).points


def test_a_hold_after_the_race_takes_its_points_back_and_a_clear_gives_them_back(
    arena, three_wins, admin_user, django_capture_on_commit_callbacks
):
    ann, bob, races = three_wins
    assert on_board(arena) == {ann.pk: 16, bob.pk: 9}
    held = hold(races[0], ann)
    with django_capture_on_commit_callbacks(execute=True):
        holds.after_assessment(held)  # what the worker's assessment sets off in the web process
    first, second, third = ArenaResult.objects.filter(player=ann).order_by("at")
    assert (first.points, first.withheld) == (0, True)
    # No podium in the first race: the streak starts a race later, so the third is single.
    assert (second.points, third.points, third.doubled) == (4, 4, False)
    assert total(arena, ann) == 8
    assert on_board(arena) == recounted(arena) == {ann.pk: 8, bob.pk: 9}
    assert board.totals(arena) == board.recount(arena)  # what pages read once the board is gone
    assert ArenaResult.objects.get(race=races[0], player=bob).points == 3  # Bob's stays

    with django_capture_on_commit_callbacks(execute=True):
        actions.do_clear(held, admin_user)
    assert [r.points for r in ArenaResult.objects.filter(player=ann).order_by("at")] == [4, 4, 8]
    assert not ArenaResult.objects.filter(player=ann, withheld=True).exists()
    assert total(arena, ann) == 16
    assert on_board(arena) == recounted(arena) == {ann.pk: 16, bob.pk: 9}
    assert board.totals(arena) == board.recount(arena)


def test_a_confirmed_account_loses_every_arena_point(
    arena, three_wins, admin_user, django_capture_on_commit_callbacks
):
    ann, bob, races = three_wins
    with django_capture_on_commit_callbacks(execute=True):
        actions.do_confirm(hold(races[2], ann), admin_user)
    assert set(ArenaResult.objects.filter(player=ann).values_list("points", "withheld")) == {
        (0, True)
    }
    assert total(arena, ann) == 0
    assert on_board(arena) == recounted(arena) == {ann.pk: 0, bob.pk: 9}
