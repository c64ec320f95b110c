"""The one error the engine raises for a refused move."""


class IllegalMove(ValueError):
    """A move the rules (or the notation) refuse; the message says why, for a player to read."""
