"""An arena's points, as docs/arenas.md states them (arenas/points.py, no Django)."""

import pytest

from arenas.points import Outcome, Standing, add, board_score, points_of, score, total


def race(place: int, racers: int = 8, moved: bool = True, won: bool = False) -> Outcome:
    return Outcome(place=place, racers=racers, moved=moved, won=won)


@pytest.mark.parametrize(
    ("outcome", "points"),
    [
        (race(1), 4),
        (race(2), 3),
        (race(3), 2),
        (race(4), 1),
        (race(8), 1),
        (race(1, won=True), 5),
        (race(5, won=True), 2),
        (race(2, racers=2), 3),
        (race(1, moved=False), 0),
        (race(6, moved=False), 0),
    ],
)
def test_a_race_gives_points_by_place_and_one_more_for_a_win(outcome, points):
    assert score(outcome, on_streak=False).points == points


def test_a_podium_is_a_top_three_place_that_is_not_last():
    assert [score(race(p, racers=2), False).podium for p in (1, 2)] == [True, False]
    assert [score(race(p, racers=3), False).podium for p in (1, 2, 3)] == [True, True, False]
    assert [score(race(p), False).podium for p in (1, 2, 3, 4)] == [True, True, True, False]


def test_two_podiums_in_a_row_double_the_points_until_a_race_off_the_podium():
    standing = Standing()
    found = []
    for outcome in [race(1), race(3), race(2), race(1, won=True), race(5), race(1)]:
        standing, scored = add(standing, outcome, at_s=0)
        found.append((scored.points, scored.doubled))
    # 4, 2; on a streak: 3x2, 5x2, and the race off the podium (1x2) ends it; then 4 again.
    assert found == [(4, False), (2, False), (6, True), (10, True), (2, True), (4, False)]
    assert standing.points == 28 and standing.podiums_in_a_row == 1


def test_a_withheld_result_scores_nothing_and_ends_the_streak():
    standing = Standing(points=8, races=2, place_sum=2, podiums_in_a_row=2)
    held = Outcome(place=1, racers=8, moved=True, won=True, counted=False)
    after, scored = add(standing, held, at_s=0)
    assert (scored.points, scored.podium, after.points, after.podiums_in_a_row) == (0, False, 8, 0)


def test_the_totals_count_races_places_and_the_last_race_that_scored():
    standing = total([(race(2), 60), (race(4, moved=False), 130)])
    assert standing.points == 3 and standing.races == 2 and standing.place_sum == 6
    assert standing.average_place == 3 and standing.last_scored_s == 60


def test_a_place_outside_the_race_is_refused():
    with pytest.raises(ValueError, match="place 9"):
        score(race(9), False)


def test_the_board_orders_by_points_then_average_place_then_who_scored_first():
    more_points = Standing(points=10, races=5, place_sum=25, last_scored_s=900)
    better_places = Standing(points=9, races=3, place_sum=3, last_scored_s=10)
    worse_places = Standing(points=9, races=3, place_sum=6, last_scored_s=5)
    later = Standing(points=9, races=3, place_sum=6, last_scored_s=50)
    not_raced = Standing()
    order = [more_points, better_places, worse_places, later, not_raced]
    assert sorted(reversed(order), key=board_score) == order


def test_the_board_score_gives_the_points_back():
    for points in (0, 1, 4, 999, 12345):
        assert points_of(board_score(Standing(points=points, races=9, place_sum=70))) == points
