"""The engine's public face: names, new_game, the state dict, undo, copies."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import VARIANT_INFO, VARIANTS, Game, IllegalMove, new_game


def test_variants_are_the_contracts_five():
    """VARIANTS lists the five ids in the contract's order."""
    assert VARIANTS == ("penelopes-web", "eighty-thieves", "penguin", "spiderweb", "queenie")


@pytest.mark.parametrize("variant", VARIANTS)
def test_state_round_trips_through_json(variant):
    """from_dict(to_dict()) gives the same position, through JSON."""
    d = new_game(variant, 7).to_dict()
    assert Game.from_dict(json.loads(json.dumps(d))).to_dict() == d


@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_info_matches_the_deal(variant):
    """VARIANT_INFO's sizes are those of a dealt game."""
    info = VARIANT_INFO[variant]
    d = new_game(variant, 3).to_dict()
    assert len(d["tableau"]) == info["tableau"]
    assert len(d["foundations"]) == info["foundations"]
    assert len(d["cells"]) == info["cells"]
    assert bool(d["stock"]) == info["has_stock"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_undo_with_nothing_played_is_refused(variant):
    """undo() on a fresh game raises IllegalMove("nothing to undo")."""
    with pytest.raises(IllegalMove, match="nothing to undo"):
        new_game(variant, 1).undo()


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_knows_its_variant_seed_and_move_count(variant):
    """variant, seed, history and move_count follow play and undo."""
    g = new_game(variant, 12)
    assert (g.variant, g.seed, g.history, g.move_count) == (variant, 12, [], 0)
    first = g.legal_moves()[0]
    g.play(first)
    assert g.history == [first] and g.move_count == 1
    g.undo()
    assert g.history == [] and g.move_count == 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_copy_is_independent_and_keeps_the_history(variant):
    """copy() gives the same position and history; playing on one leaves the other alone."""
    g = new_game(variant, 13)
    g.play(g.legal_moves()[0])
    c = g.copy()
    assert c.to_dict() == g.to_dict() and c.history == g.history
    c.play(c.legal_moves()[-1])
    c.undo()
    c.undo()
    assert g.move_count == 1 and c.move_count == 0
    g.undo()
    assert g.to_dict() == new_game(variant, 13).to_dict()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_full_view_has_seed_and_move_count_the_player_view_no_seed(variant):
    """to_dict() adds "seed" and "moves"; the player view has "moves" but never the seed."""
    g = new_game(variant, 14)
    full, view = g.to_dict(), g.to_dict(view="player")
    assert full["seed"] == 14 and full["moves"] == 0
    assert "seed" not in view and view["moves"] == 0
    assert not any(str(v) == "14" for v in view.values())


def test_an_unknown_view_is_refused():
    """Only "full" and "player" views exist."""
    with pytest.raises(ValueError, match="view"):
        new_game("queenie", 1).to_dict(view="admin")


def test_spiderweb_player_view_hides_face_down_and_stock_cards():
    """Face-down cards and the stock are "??" with their lengths; face-up cards show."""
    d, view = new_game("spiderweb", 2).to_dict(), new_game("spiderweb", 2).to_dict(view="player")
    assert view["stock"] == ["??"] * 25
    for pile, shown, down in zip(d["tableau"], view["tableau"], d["down"], strict=True):
        assert shown == ["??"] * down + pile[down:]
    assert "??" not in str(new_game("penguin", 2).to_dict(view="player"))


@pytest.mark.parametrize(
    ("variant", "started"),
    [("penguin", 3), ("penelopes-web", 0), ("spiderweb", 0), ("queenie", 0)],
)
def test_foundation_count_at_the_deal(variant, started):
    """Penguin counts its three pre-started foundation cards; the others start at 0."""
    assert new_game(variant, 15).foundation_count() == started


def test_variant_info_has_every_field_for_the_home_page():
    """Each entry has a name, sizes, stock/waste flags and a one-line summary."""
    assert VARIANT_INFO["penelopes-web"]["name"] == "Penelope's Web"
    for info in VARIANT_INFO.values():
        assert set(info) == {
            "name",
            "decks",
            "tableau",
            "foundations",
            "cells",
            "has_stock",
            "has_waste",
            "summary",
        }
        assert info["summary"] and "\n" not in info["summary"]
    assert VARIANT_INFO["eighty-thieves"]["decks"] == 4
    assert VARIANT_INFO["eighty-thieves"]["has_waste"] is True
    assert VARIANT_INFO["penguin"]["cells"] == 7


def test_reasons_use_suit_symbols_and_ten_as_10():
    """A refusal names cards as a player reads them: 10♥, Q♠."""
    g = new_game("spiderweb", 2)
    moves = set(g.legal_moves())
    for src in range(5):
        for dst in range(5):
            move = f"t{src}-t{dst}"
            if src != dst and move not in moves:
                with pytest.raises(IllegalMove) as refused:
                    g.play(move)
                message = str(refused.value)
                assert any(s in message for s in "♠♥♦♣") and "T" not in message.replace("The", "")


def test_importing_the_engine_pulls_in_no_web_stack():
    """games.engine imports nothing from Django, Channels, Daphne or Redis (fresh interpreter)."""
    code = (
        "import sys, games.engine, games.engine.cli, games.engine.bench\n"
        "bad = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'django', 'channels', 'daphne', 'redis', 'channels_redis'})\n"
        "print(','.join(bad))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == ""
