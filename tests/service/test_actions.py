"""The actions that change games: each move, undo and autoplay is checked and logged; the
snapshot follows the game's status."""

from __future__ import annotations

from datetime import timedelta

import pytest
from service_positions import near_won_state, one_move_from_stuck_state

from games import actions, storage
from games.actions import (
    GameOver,
    MoveRefused,
    StaleSeq,
    do_autoplay,
    do_open_game,
    do_play_move,
    do_undo,
    replay,
)
from games.engine import VARIANTS, new_game
from games.models import Game, Move, Player
from games.play import is_autoplay_move

pytestmark = pytest.mark.django_db


def first_legal(game: Game) -> str:
    return new_game(game.variant, game.seed).legal_moves()[0]


def test_open_game_resumes_the_unfinished_game(player):
    """Opening a deal twice gives the same game while it is unfinished."""
    game, created = do_open_game(player, "penguin", 5)
    again, created_again = do_open_game(player, "penguin", 5)
    assert created and not created_again
    assert again.pk == game.pk


def test_open_game_starts_a_new_game_after_a_win(player):
    """A won game is over: opening its deal again deals a fresh game."""
    game, _ = do_open_game(player, "penguin", 5)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.WON)
    again, created = do_open_game(player, "penguin", 5)
    assert created and again.pk != game.pk


def test_games_made_together_share_the_deal_each_with_its_own_position(player):
    """One deal's games for several players (a race's) start from the position a game made
    alone does, each its own copy, all started at the time given."""
    others = [Player.objects.create(nickname=f"P{i}") for i in range(3)]
    alone = actions.do_create_game(player, "eighty-thieves", 77, kind=Game.Kind.RACE)
    at = alone.started_at + timedelta(seconds=3)
    games = actions.do_create_games(
        others, "eighty-thieves", 77, kind=Game.Kind.RACE, started_at=at
    )
    assert [g.player_id for g in games] == [p.pk for p in others]
    for game in Game.objects.filter(pk__in=[g.pk for g in games]):
        assert game.state == alone.state and game.seed == 77 and game.kind == Game.Kind.RACE
        assert game.started_at == at and game.status == alone.status
    games[0].state["tableau"][0].clear()
    assert games[1].state == alone.state


def test_a_game_made_won_is_finished_when_it_starts(player):
    """A start position already won (a test's) is a game over at once, alone or together."""
    won = near_won_state("penguin", left=0)
    [game] = actions.do_create_games([player], "penguin", 7, start_state=won)
    game.refresh_from_db()
    assert game.status == Game.Status.WON and game.finished_at == game.started_at


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_legal_move_is_logged(player, make_game, variant):
    """A legal move adds one Move row and advances seq; the log, replayed, is the position."""
    game = make_game(player, variant, 11)
    move = first_legal(game)
    update = do_play_move(game, move, 0)
    game.refresh_from_db()
    expected = new_game(variant, 11)
    expected.play(move)
    assert update.played == (move.removesuffix(":1"),)
    assert list(game.moves.values_list("seq", "move")) == [(1, move.removesuffix(":1"))]
    assert (game.seq, game.move_count) == (1, 1)
    assert replay(game).to_dict() == expected.to_dict()
    assert update.view == expected.to_dict(view="player")
    assert update.can_undo


def test_an_illegal_move_changes_nothing(player, make_game):
    """A move the engine refuses raises MoveRefused with its reason and writes nothing."""
    game = make_game(player, "penelopes-web", 3)
    before = dict(game.state)
    with pytest.raises(MoveRefused) as refused:
        do_play_move(game, "t0-t0", 0)
    assert refused.value.reason
    game.refresh_from_db()
    assert (game.seq, game.state, game.moves.count()) == (0, before, 0)


def test_a_resend_is_not_applied_twice(player, make_game):
    """A move whose seq the game has passed is a duplicate: answered, not applied again."""
    game = make_game(player, "penguin", 8)
    move = first_legal(game)
    do_play_move(game, move, 0)
    update = do_play_move(game, move, 0)
    game.refresh_from_db()
    assert update.duplicate and update.played == ()
    assert game.seq == 1 and game.moves.count() == 1


def test_a_seq_ahead_of_the_game_is_refused(player, make_game):
    """A seq the game has not reached yet is refused."""
    game = make_game(player, "penguin", 8)
    with pytest.raises(StaleSeq):
        do_play_move(game, first_legal(game), 5)
    assert game.moves.count() == 0


def test_undo_takes_the_move_back_and_is_logged(player, make_game):
    """Undo restores the position, logs an "undo" row and keeps seq increasing."""
    game = make_game(player, "queenie", 4)
    start = dict(game.state)
    do_play_move(game, first_legal(game), 0)
    update = do_undo(game, 1)
    game.refresh_from_db()
    assert update.played == ("undo",)
    assert game.state == start
    assert (game.seq, game.move_count) == (2, 0)
    assert not update.can_undo
    assert list(game.moves.values_list("move", flat=True))[-1] == Move.UNDO


def test_undo_with_nothing_to_undo_is_refused(player, make_game):
    """Undo at the deal is refused and changes nothing."""
    game = make_game(player, "queenie", 4)
    with pytest.raises(MoveRefused):
        do_undo(game, 0)
    assert game.moves.count() == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_replaying_the_log_gives_the_snapshot(player, make_game, variant):
    """The Move log is the record: replaying it reproduces the stored state, undos included."""
    game = make_game(player, variant, 21)
    engine = new_game(variant, 21)
    for seq in range(12):
        if seq % 4 == 3:
            do_undo(game, seq)
            engine.undo()
        else:
            legal = engine.legal_moves()
            if not legal:
                break
            move = legal[seq % len(legal)]
            do_play_move(game, move, seq)
            engine.play(move)
    game.refresh_from_db()
    assert replay(game).to_dict() == engine.to_dict()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_snapshot_is_written_when_the_status_changes(player, make_game, variant):
    """The snapshot pages read is the position the game reached when it was won (or ended)."""
    game = make_game(player, variant, 0, start_state=near_won_state(variant))
    do_autoplay(game, 0)
    game.refresh_from_db()
    assert game.state == replay(game).to_dict()


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_winning_move_wins_the_game(player, make_game, variant):
    """The move that puts the last card home sets status won and finished_at."""
    game = make_game(player, variant, 0, start_state=near_won_state(variant))
    finishing = actions.starting_position(game).legal_moves()
    winning = next(m for m in finishing if is_autoplay_move(variant, m))
    update = do_play_move(game, winning, 0)
    game.refresh_from_db()
    assert game.status == Game.Status.WON
    assert game.finished_at is not None
    assert update.legal == () and not update.can_undo


def test_moves_after_the_win_are_refused(player, make_game):
    """A won game takes no move, undo or autoplay."""
    game = make_game(player, "penelopes-web", 0, start_state=near_won_state("penelopes-web"))
    do_autoplay(game, 0)
    for attempt in (
        lambda: do_undo(game, 1),
        lambda: do_autoplay(game, 1),
        lambda: do_play_move(game, "t0-t1", 1),
    ):
        with pytest.raises(GameOver):
            attempt()
    game.refresh_from_db()
    assert game.seq == 1


@pytest.mark.parametrize("variant", VARIANTS)
def test_autoplay_wins_a_near_won_game(player, make_game, variant):
    """Autoplay sends the last cards home and the game is won."""
    game = make_game(player, variant, 0, start_state=near_won_state(variant))
    update = do_autoplay(game, 0)
    game.refresh_from_db()
    assert update.played and game.status == Game.Status.WON
    assert game.seq == len(update.played)


def test_autoplay_only_makes_real_foundation_moves_in_spiderweb():
    """In Spiderweb an empty foundation is also a cell: only whole suits count for autoplay."""
    assert not is_autoplay_move("spiderweb", "t0-f0")
    assert is_autoplay_move("spiderweb", "t0-f0:13")
    assert is_autoplay_move("penguin", "c3-f1")
    assert is_autoplay_move("eighty-thieves", "w-f12")
    assert not is_autoplay_move("queenie", "t0-t1:3")
    assert not is_autoplay_move("queenie", "deal")


@pytest.mark.parametrize("variant", VARIANTS)
def test_autoplay_plays_every_foundation_move_and_nothing_else(player, make_game, variant):
    """After autoplay no foundation move is left, and every move it played was one."""
    for seed in range(40):
        game = make_game(player, variant, seed)
        update = do_autoplay(game, 0)
        engine = new_game(variant, seed)
        for move in update.played:
            assert is_autoplay_move(variant, move)
            engine.play(move)
        assert not any(is_autoplay_move(variant, m) for m in engine.legal_moves())
        if update.played:
            break


def test_a_move_that_leaves_no_move_makes_the_game_stuck(player, make_game):
    """Stuck: not won and no legal move left."""
    game = make_game(player, "penelopes-web", 0, start_state=one_move_from_stuck_state())
    update = do_play_move(game, "t6-t7", 0)
    assert update.game.status == Game.Status.STUCK
    assert update.legal == () and update.can_undo


def test_a_stuck_game_that_undoes_plays_again(player, make_game):
    """Stuck is not over: undo brings a stuck game back to playing."""
    game = make_game(player, "penelopes-web", 0, start_state=one_move_from_stuck_state())
    do_play_move(game, "t6-t7", 0)
    update = do_undo(game, 1)
    assert update.game.status == Game.Status.PLAYING
    assert update.game.finished_at is None


def test_a_failed_write_changes_nothing(player, make_game, monkeypatch):
    """If the write fails, nothing is stored and the next action starts from the record."""
    game = make_game(player, "penguin", 9)
    legal = new_game("penguin", 9).legal_moves()

    def fail(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(storage, "apply", fail)
    with pytest.raises(RuntimeError):
        do_play_move(game, legal[0], 0)
    monkeypatch.undo()
    update = do_play_move(game, legal[1], 0)
    expected = new_game("penguin", 9)
    expected.play(legal[1])
    assert update.view == expected.to_dict(view="player")
