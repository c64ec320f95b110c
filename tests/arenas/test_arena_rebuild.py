"""`manage.py rebuild_leaderboards` and the arenas' boards: one arena's board alone
(`--arena=ID`: a public id may start with "-"), refused with nothing rebuilt for an arena the store keeps no board of, and a
running count over every board of a whole rebuild."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from arenas import board, placement, points
from arenas.models import Arena
from games.models import Variant
from games.rankstore import get_rank_store
from records.boards import ALL_TIME
from tests.arenas.conftest import play_out

pytestmark = pytest.mark.usefixtures("no_countdown")

WRONG = "999999"
"""A member no arena holds, put on a board to spoil it."""


def played(arena: Arena, here, players: int = 4) -> Arena:
    """`arena` with `players` players who each raced twice (points to count)."""
    entrants = [here(f"{arena.name} {i}", on=arena) for i in range(players)]
    for _ in range(2):
        for race in placement.place(arena.pk):
            play_out(race, movers=entrants[:2])
    return arena


def as_recounted(arena: Arena) -> list[tuple[str, int]]:
    """The arena's board as the record counts it: each player and their points, in order."""
    standings = board.recount(arena)
    return [(str(pid), standings[pid].points) for pid in points.board_order(standings)]


def on_board(arena: Arena) -> list[tuple[str, int]]:
    found = get_rank_store().range(board.key(arena), 0, -1)
    return [(member, points.points_of(score)) for member, score in found]


def spoil(arena: Arena) -> None:
    """The arena's board wrong: a stranger on it, and the first player's points gone."""
    store = get_rank_store()
    board.rebuild(arena)
    first, _ = on_board(arena)[0]
    store.set_many(board.key(arena), {first: 0.0, WRONG: 0.0})


@pytest.fixture
def two_arenas(arena, make_arena, here) -> tuple[Arena, Arena]:
    other = make_arena(name="Other arena")
    return played(arena, here), played(other, here)


def test_one_arenas_board_is_rebuilt_alone_and_whole(two_arenas, capsys):
    """`--arena ID` mends that arena's board from the record (every player, their points, the
    record's order) and touches nothing else: the other arena's board stays as it was, and the
    streaks are not counted again."""
    mended, left = two_arenas
    spoil(mended)
    spoil(left)
    spoiled = on_board(left)
    call_command("rebuild_leaderboards", f"--arena={mended.public_id}")
    assert on_board(mended) == as_recounted(mended)
    assert on_board(left) == spoiled != as_recounted(left)
    out = capsys.readouterr().out
    assert f"Rebuilt the board of arena {mended.public_id}, 4 entries." in out
    assert "streaks" not in out


@pytest.mark.parametrize("which", ["unknown", "ended two days ago"])
def test_an_arena_the_store_keeps_no_board_of_is_refused_and_nothing_is_rebuilt(
    two_arenas, make_arena, which
):
    """An id no arena has, or an arena whose board the store no longer keeps (a day after its
    end): a clear error, exit status 1 (`manage.py` exits with a `CommandError`'s), and no
    board rebuilt."""
    mended, left = two_arenas
    spoil(mended)
    spoiled = on_board(mended)
    public_id = "-no-such-arena"  # a public id may start with "-"
    if which != "unknown":
        public_id = make_arena(starts_in_s=-3 * 24 * 3600, minutes=60).public_id
    with pytest.raises(CommandError) as refused:
        call_command("rebuild_leaderboards", f"--arena={public_id}")
    assert str(refused.value) == f"no arena with the id {public_id!r} has a board in the store"
    assert refused.value.returncode == 1
    assert on_board(mended) == spoiled


@pytest.mark.parametrize("other", [["--missing"], ["--days", "2"]])
def test_one_arenas_rebuild_with_another_choice_of_boards_is_refused(two_arenas, other):
    mended, _ = two_arenas
    spoil(mended)
    spoiled = on_board(mended)
    with pytest.raises(CommandError, match="--arena rebuilds one board"):
        call_command("rebuild_leaderboards", f"--arena={mended.public_id}", *other)
    assert on_board(mended) == spoiled


def test_a_whole_rebuild_counts_every_board_as_it_goes_the_arenas_too(two_arenas, capsys):
    """The running count (on stderr) goes over every board rebuilt, the arenas' with the
    all-time ones, and ends at the total the command reports."""
    for arena in two_arenas:
        spoil(arena)
    call_command("rebuild_leaderboards")
    boards = len(Variant.values) * len(ALL_TIME) + len(two_arenas)
    captured = capsys.readouterr()
    assert f"{boards}/{boards}" in captured.err
    assert f"Rebuilt {boards} boards" in captured.out
    for arena in two_arenas:
        assert on_board(arena) == as_recounted(arena)
