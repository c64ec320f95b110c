"""`manage.py rebuild_leaderboards` and the arenas' boards: one arena's board alone
(`--arena=ID`: a public id may start with "-"), refused with nothing rebuilt for an arena the store keeps no board of, and a
running count over every board of a whole rebuild."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from arenas import actions, board, placement, points, standings
from arenas.models import Arena
from games.models import Player, Variant
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


def test_a_race_closing_while_the_rebuild_reads_the_record_keeps_its_points_on_the_board(
    arena, here, monkeypatch, django_capture_on_commit_callbacks
):
    """The hourly rebuild of a running arena reads the record, then writes the board: a race
    that closes in between (its points committed, and written to the board, after the read)
    keeps its racers' new points, and they are not put back as the older read had them."""
    entrants = [here(f"Racer {i}", on=arena) for i in range(4)]
    for race in placement.place(arena.pk):
        play_out(race, movers=entrants[:2])
    board.rebuild(arena)
    read = board.recount
    closed_meanwhile = []

    def read_then_a_race_closes(of):
        standings = read(of)
        if not closed_meanwhile:
            with django_capture_on_commit_callbacks(execute=True):  # the close's board write
                for race in placement.place(arena.pk):
                    play_out(race, movers=entrants[2:])
                    closed_meanwhile.append(race)
        return standings

    monkeypatch.setattr(board, "recount", read_then_a_race_closes)
    board.rebuild(arena)
    assert closed_meanwhile
    assert on_board(arena) == as_recounted(arena)


def test_a_close_whose_board_write_was_lost_is_on_the_board_within_the_scheduler_s_minute(
    arena, here, capsys
):
    """A process that dies between a close's commit and its board write leaves the board
    behind the record. The scheduler's minutely `run_arenas` mends the boards that still change
    from the players' totals: the racers' points are on the board without waiting for the
    hourly rebuild or their next race."""
    entrants = [here(f"Racer {i}", on=arena) for i in range(4)]
    board.rebuild(arena)
    before = on_board(arena)
    for race in placement.place(arena.pk):  # no commit callbacks run here: the write is lost
        play_out(race, movers=entrants[:3])
    assert on_board(arena) == before != as_recounted(arena)
    call_command("run_arenas", hours=0)
    assert on_board(arena) == as_recounted(arena)
    assert "mended 4 board entries" in capsys.readouterr().out


def test_boards_are_mended_until_the_last_race_under_way_at_the_end_may_close(make_arena):
    """An arena's races under way at its end still count as they close, each within the race
    time limit: its board is mended until a few minutes after that, and no longer."""
    now = timezone.now()
    running = make_arena(name="Running")
    closing = make_arena(name="Closing", starts_in_s=-31 * 60, race_time_limit_s=300)
    done = make_arena(name="Done", starts_in_s=-40 * 60, race_time_limit_s=120)
    upcoming = make_arena(name="Upcoming", starts_in_s=600)
    changing = board.changing(now)
    assert running in changing and closing in changing
    assert done not in changing and upcoming not in changing


def test_a_close_that_finds_the_board_lost_puts_it_back_from_the_totals(
    arena, here, monkeypatch, django_capture_on_commit_callbacks
):
    """Redis came back empty mid-arena: the next close's write puts the whole board back from
    the players' totals (one row a player), not by counting every result of the arena again,
    which a crowd's closes would each start at once."""
    entrants = [here(f"Racer {i}", on=arena) for i in range(4)]
    for race in placement.place(arena.pk):
        play_out(race, movers=entrants[:2])
    board.rebuild(arena)
    get_rank_store().delete(board.key(arena))
    get_rank_store().delete(board.marker_key(arena))

    def every_result_counted(of):
        raise AssertionError("a close's write counted every result again")

    monkeypatch.setattr(board, "recount", every_result_counted)
    with django_capture_on_commit_callbacks(execute=True):
        for race in placement.place(arena.pk):
            play_out(race, movers=entrants[2:])
    monkeypatch.undo()
    assert board.is_built(arena)
    assert on_board(arena) == as_recounted(arena)


def test_a_player_who_joins_after_the_board_alone_was_lost_ranks_after_everyone_with_points(
    arena, here
):
    """The store lost an arena's board but kept its marker (a key evicted on its own): the board
    counts as lost, so a new player's join puts it back whole from the record, and their own row
    ranks them after everyone with points, not first on a board of one."""
    scorers = [here(name) for name in ("Ann", "Bob")]
    for race in placement.place(arena.pk):
        play_out(race, movers=scorers)
    get_rank_store().delete(board.key(arena))
    newcomer = Player.objects.create(nickname="Cy")
    entry, _ = actions.do_join(arena, newcomer)
    assert standings.own_rows(arena, [newcomer.pk])[newcomer.pk]["rank"] == 3
    assert standings.own_row(arena, entry, "Cy")["rank"] == 3
    assert on_board(arena) == as_recounted(arena)


def test_a_player_the_board_lost_alone_still_has_their_own_row_counted_from_the_record(arena, here):
    """A close's board write lost for one player (their process killed between the commit and
    the write): until the minute's mend puts them back, each socket's own row counts their
    place from the record, as the arena's page does, rather than showing them no row."""
    ann, bob, cat = (here(name) for name in ("Ann", "Bob", "Cat"))
    for race in placement.place(arena.pk):
        play_out(race, movers=[ann, bob])
    board.rebuild(arena)
    ranks = {pid: row["rank"] for pid, row in standings.own_rows(arena, [ann.pk, cat.pk]).items()}
    get_rank_store().remove(board.key(arena), str(cat.pk))
    spectator = Player.objects.create(nickname="Dee")

    rows = standings.own_rows(arena, [ann.pk, cat.pk, spectator.pk])
    assert {pid: row["rank"] for pid, row in rows.items()} == ranks  # Dee is in no arena
    assert rows[cat.pk] == standings.own_row(arena, arena.players.get(player=cat), "Cat")
