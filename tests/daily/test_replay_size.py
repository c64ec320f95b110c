"""Replays grow gently: an 800-move game's page is the deal and the steps, under 100 KB, for
every variant (each position in full was 430 KB, 757 KB for a 492-move Eighty Thieves game)."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from games import actions
from games import replay as game_replay
from games.engine import VARIANTS, new_game
from games.models import Game, Move

pytestmark = pytest.mark.django_db

PAGE_LIMIT = 100 * 1024


def long_game(player, variant: str, rows: int, seed: int = 1, playout: int | None = None) -> Game:
    """A resigned practice game of deal `seed` and `rows` log rows (random legal moves, an undo
    now and then; `playout` seeds another line of play on the same deal), its log written at
    once, a second apart."""
    rng = random.Random(seed if playout is None else f"{seed}:{playout}")
    engine = new_game(variant, seed)
    log: list[str] = []
    while len(log) < rows:
        legal = engine.legal_moves()
        if engine.history and (not legal or rng.random() < 0.1):
            engine.undo()
            log.append(Move.UNDO)
        elif legal:
            move = rng.choice(legal)
            engine.play(move)
            log.append(move)
        else:
            break
    game = actions.do_create_game(player, variant, seed)
    start = game.started_at
    Move.objects.bulk_create(
        Move(game=game, seq=i, move=move, at=start + dt.timedelta(seconds=i))
        for i, move in enumerate(log, start=1)
    )
    Game.objects.filter(pk=game.pk).update(
        seq=len(log),
        move_count=engine.move_count,
        state=engine.to_dict(),
        status=Game.Status.RESIGNED,
        finished_at=start + dt.timedelta(seconds=len(log) + 1),
    )
    return Game.objects.get(pk=game.pk)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_an_800_move_replay_page_is_under_100_kb(client, player, variant):
    game = long_game(player, variant, 800)
    assert game.seq == 800
    response = client.get(f"/replay/{game.public_id}/?at=400")
    assert response.status_code == 200
    assert len(response.content) < PAGE_LIMIT, f"{len(response.content) / 1024:.0f} KB"
    assert 'max="800"' in response.content.decode()  # the slider spans every frame


def test_the_replay_is_computed_once_per_log(player, monkeypatch):
    """A finished game's replay is kept per game and log length: the next view replays
    nothing, and a longer log (a stuck game played on) is replayed afresh."""
    game = long_game(player, "penguin", 20)
    first = game_replay.cached_replay(game)
    monkeypatch.setattr(game_replay, "replay", None)
    assert game_replay.cached_replay(game) == first
    game.seq += 1
    with pytest.raises(TypeError):
        game_replay.cached_replay(game)


def test_the_compact_config_script_escapes_as_json_script_does():
    """Written without spaces, and nothing in it can close the script element early."""
    from django.utils.html import json_script

    from records.views import json_script_compact

    value = {"nickname": "</script><script>alert(1)</script>&", "steps": [[1, 2]]}
    compact = json_script_compact(value, "replay-config")
    assert compact.count("</script>") == 1 and "<script>" not in compact[10:]
    assert compact == json_script(value, "replay-config").replace(", ", ",").replace(": ", ":")
