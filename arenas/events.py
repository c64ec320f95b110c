"""What an arena's rooms hear through the channel layer (one channel a process:
arenas/rooms.py), sent after the commit: the board changed (each process sends the new board
at most once a second), and players were placed in races (each placed player's page goes to
their race). The database is the record:
a socket that missed a message gets everything again when it reconnects."""

from __future__ import annotations

from arenas.models import Arena
from games.groups import group_send_nowait


def board_changed(arena: Arena) -> None:
    """The board or the lobby changed (a result, someone joined, paused or came back)."""
    group_send_nowait(arena.group_name, {"type": "arena.changed", "arena": arena.pk})


def placed(arena: Arena, races: dict[int, str]) -> None:
    """`races`: each placed player's id and their race's URL."""
    placements = {str(pid): url for pid, url in races.items()}
    message = {"type": "arena.placed", "arena": arena.pk, "placements": placements}
    group_send_nowait(arena.group_name, message)
