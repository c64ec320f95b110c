"""records.links.link makes the very address reverse() makes, for every id it is given."""

import string

from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from races.codes import CODE_ALPHABET, CODE_LENGTH
from records.links import link

public_ids = st.text(string.ascii_letters + string.digits + "-_", min_size=1, max_size=16)
codes = st.text(CODE_ALPHABET, min_size=CODE_LENGTH, max_size=CODE_LENGTH)


@given(st.integers(min_value=1, max_value=2**31 - 1))
def test_a_players_address(player_id):
    assert link("records:player", player_id) == reverse("records:player", args=[player_id])


@given(public_ids)
def test_a_replays_address(public_id):
    assert link("records:replay", public_id) == reverse("records:replay", args=[public_id])


@given(codes)
def test_a_race_results_address(code):
    assert link("races:results", code) == reverse("races:results", args=[code])
