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
