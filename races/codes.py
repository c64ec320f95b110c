"""Short race codes people can read aloud and type: six characters, no look-alikes.

The alphabet leaves out 0/O, 1/I/L and U/V look-alikes so a code read off a phone screen or
said over voice chat is typed right the first time; `normalize_code` forgives case, spaces
and dashes.
"""

import secrets

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTWXYZ"
CODE_LENGTH = 6


def new_code() -> str:
    """A fresh random code (the caller retries on the rare collision with a stored one)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: str) -> str | None:
    """The canonical code for what someone typed, or None if it cannot be a code."""
    code = "".join(ch for ch in text.upper() if ch not in " -_\t")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code
