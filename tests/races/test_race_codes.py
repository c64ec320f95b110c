"""Race codes: short, unambiguous, forgiving to type."""

import pytest

from races.codes import CODE_ALPHABET, CODE_LENGTH, new_code, normalize_code


def test_codes_use_only_unambiguous_characters():
    """No 0/O, 1/I/L or U/V pairs that a reader could confuse."""
    assert not set("0O1IL") & set(CODE_ALPHABET)
    for _ in range(200):
        code = new_code()
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)


@pytest.mark.parametrize("typed", ["abc234", " ABC-234 ", "abc 234", "AbC_234"])
def test_typed_codes_are_normalised(typed):
    """Case, spaces, dashes and underscores do not matter."""
    assert normalize_code(typed) == "ABC234"


@pytest.mark.parametrize("typed", ["", "ABC23", "ABC2345", "ABC0O1", "ABCIL4", "ABC23!"])
def test_impossible_codes_are_refused(typed):
    """A string that cannot be a code gives None."""
    assert normalize_code(typed) is None


def test_a_code_already_taken_is_drawn_again(player, monkeypatch):
    """Codes are random: one that collides with a stored race's is replaced, and the races
    inserted together with it are inserted once, each with a code of its own."""
    from races import actions
    from races.models import Race

    taken = actions.new_race(host=player, variant="penguin", seed=1).code
    # a stored code, then the same code twice in the batch, then two free codes
    drawn = iter([taken, "ABC234", "ABC234", "ABC234", "XYZ789", "ABC235"])
    monkeypatch.setattr(actions, "new_code", lambda: next(drawn))
    races = [Race(host=player, variant="penguin", seed=n) for n in (2, 3)]
    actions.insert_with_codes(races)
    assert [race.code for race in races] == ["XYZ789", "ABC235"]
    assert Race.objects.count() == 3 and all(race.pk for race in races)
