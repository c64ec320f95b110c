"""What an arena's rooms hear through the channel layer (one channel a process:
arenas/rooms.py), sent after the commit: the board changed (each process sends the new board
at most once a second), players were placed in races (each placed player's page goes to
their race), and an admin changed the arena in place (its rooms take the new times, and their
pages show them). The database is the record:
a socket that missed a message gets everything again when it reconnects."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from arenas.models import Arena
from games.groups import group_send_nowait
from races.models import Race, race_group

EDITABLE = ("name", "variant", "starts_at", "ends_at", "race_time_limit_s", "visibility")
"""What an admin's edit may change of an arena that its rooms and pages show and go by (the
schedule's edit: a name, a game, an end; the arena's own admin page: any of them)."""
TIMES = ("starts_at", "ends_at")


def board_changed(arena: Arena) -> None:
    """The board or the lobby changed (a result, someone joined, paused or came back)."""
    group_send_nowait(arena.group_name, {"type": "arena.changed", "arena": arena.pk})


def placed(arena: Arena, races: dict[int, str]) -> None:
    """`races`: each placed player's id and their race's URL."""
    placements = {str(pid): url for pid, url in races.items()}
    message = {"type": "arena.placed", "arena": arena.pk, "placements": placements}
    group_send_nowait(arena.group_name, message)


def edited(arenas: Iterable[Arena]) -> None:
    """An admin changed these arenas in place: each one's rooms take the new fields, and tell
    their pages (arenas/rooms.py); the race pages of each one's races under way are sent the
    `edited` frame too (their header counts down to the arena's end: races.consumers
    `race_owner`)."""
    for arena in arenas:
        group_send_nowait(arena.group_name, edited_message(arena))
        frame = edited_frame(arena)
        racing = Race.objects.filter(arena_race__arena=arena, status=Race.Status.STARTED)
        for code in racing.values_list("code", flat=True):
            group_send_nowait(race_group(code), {"type": "race.owner", "frame": frame})


def edited_frame(arena: Arena) -> dict:
    """What an arena's page shows of the arena and goes by (its heading, its facts line, its
    clock), after an admin changed it in place: the times in epoch ms, as the frames' `now`."""
    return {
        "type": "edited",
        "name": arena.name,
        "variant": arena.variant,
        "game": arena.get_variant_display(),
        "starts_at": int(arena.starts_at.timestamp() * 1000),
        "ends_at": int(arena.ends_at.timestamp() * 1000),
        "race_time_limit_s": arena.race_time_limit_s,
        "visibility": arena.visibility,
    }


def edited_message(arena: Arena) -> dict:
    """The `arena.edited` message: the arena's `EDITABLE` fields as they now are (its times in
    ISO 8601, as the channel layer carries no datetimes)."""
    fields = {name: getattr(arena, name) for name in EDITABLE}
    fields.update({name: fields[name].isoformat() for name in TIMES})
    return {"type": "arena.edited", "arena": arena.pk, "fields": fields}


def edited_fields(message: dict) -> dict:
    """An `arena.edited` message's fields, as the arena's own (its times as datetimes)."""
    fields = dict(message["fields"])
    fields.update({name: datetime.fromisoformat(fields[name]) for name in TIMES})
    return fields
