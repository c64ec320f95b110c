"""Fixtures for the solver's tests."""

import pytest
from solver_positions import endgame


@pytest.fixture
def endgame_of():
    """``endgame_of(variant, seed, left)``: a random valid endgame state (see solver_positions)."""
    return endgame
