"""Addresses of what pages list by the hundred (players, replays, race results), made cheaply.

A board or a races page links a few hundred rows, and Django's ``reverse`` resolves the name and
checks the pattern every time (a third of such a page's time). Each address is reversed once
here, with a stand-in argument, and filled in by string formatting after. Only for names whose
one argument is a player id, a game's public id or a race code (URL-safe as they are).
"""

from __future__ import annotations

import functools

from django.urls import reverse

STAND_IN = 9_876_543_210_123  # fits every converter used (int and str) and no real prefix


@functools.cache
def _around(name: str) -> tuple[str, str]:
    head, _, tail = reverse(name, args=[STAND_IN]).rpartition(str(STAND_IN))
    return head, tail


def link(name: str, value: int | str) -> str:
    """``reverse(name, args=[value])``, without resolving anything after the first call."""
    head, tail = _around(name)
    return f"{head}{value}{tail}"
