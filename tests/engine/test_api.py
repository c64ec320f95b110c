"""The engine's public face: names, new_game, the state dict, undo, copies."""

import json

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
