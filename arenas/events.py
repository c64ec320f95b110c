"""What an arena's sockets hear through the channel layer, sent after the commit: the board
changed (each socket's process sends the new board at most once a second), and players were
placed in races (each placed player's page goes to their race). The database is the record:
a socket that missed a message gets everything again when it reconnects."""

from __future__ import annotations

from arenas.models import Arena
from games.layer import group_send_nowait


def board_changed(arena: Arena) -> None:
    """The board or the lobby changed (a result, someone joined, paused or came back)."""
    group_send_nowait(arena.group_name, {"type": "arena.changed"})


def placed(arena: Arena, races: dict[int, str]) -> None:
    """`races`: each placed player's id and their race's URL."""
    placements = {str(pid): url for pid, url in races.items()}
    group_send_nowait(arena.group_name, {"type": "arena.placed", "placements": placements})
