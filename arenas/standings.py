"""What pages, sockets and the API show of an arena: its board's rows with names, a player's
own row, the lobby's counts, and the podium. Read from the board in the rank store (the live
order) and the players' rows (names, races, streaks); the podium from the record. And what a
race's pages show of its arena (`arena_of`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from redis.exceptions import RedisError

from arenas import board, placement, points
from arenas.models import Arena, ArenaPlayer, ArenaRace, ArenaResult, arena_of_race
from arenas.placement import RACE_ON, close_overdue, racing_now
from races.actions import Owner
from races.models import Race

logger = logging.getLogger(__name__)

T = TypeVar("T")

TOP = 50


class Entry(NamedTuple):
    """What a board's row shows of a player's entry, beside the board's rank and points."""

    name: str
    races: int
    podiums_in_a_row: int
    place_sum: int
    paused: bool


def row_dict(row: board.Row, entry: Entry | None) -> dict:
    return {
        "rank": row.rank,
        "player": row.player_id,
        "name": entry.name if entry else "?",
        "points": row.points,
        "races": entry.races if entry else 0,
        "streak": bool(entry) and entry.podiums_in_a_row >= points.STREAK_AFTER,
    }


def entries_of(arena: Arena, player_ids) -> dict[int, Entry]:
    """These players' entries, as their rows show them: five columns each, read as values (a
    crowd's own rows are read every second, and model instances with their players cost several
    times as much to build)."""
    found = (
        ArenaPlayer.objects.filter(arena=arena, player_id__in=player_ids)
        .order_by()
        .values_list(
            "player_id", "player__nickname", "races", "podiums_in_a_row", "place_sum", "paused"
        )
    )
    return {player_id: Entry(*columns) for player_id, *columns in found}


def from_board(arena: Arena, read: Callable[[], T]) -> T | None:
    """`read()` of the arena's board, or None where the record is to be read instead: the store
    does not hold the board (lost with Redis, or a day after the arena's end) or is away (a
    Redis restart: the page is shown from the record, not refused). An ended arena is read
    from its board too while the store keeps it: its races still under way at the end count
    as they close, and each close writes the board as it writes the record; counting the
    record again for every socket's row, as the end of a whole arena of 1,000 did, cost 180 ms
    of CPU a count (docs/performance-log.md, arenas' forty-eighth day)."""
    try:
        if board.is_built(arena):
            return read()
    except (RedisError, OSError):
        logger.warning("the rank store failed; arena %s from the record", arena.public_id)
    return None


def top_rows(
    arena: Arena, size: int, start: int = 0, final: bool = False
) -> tuple[list[board.Row], int]:
    """`size` rows of the standings from position `start` (0: the first), and how many players
    there are: from the board, or from the players' totals in the record (`from_board`); the
    final standings (`final`, `is_final`) from the record always."""
    top = None if final else from_board(arena, lambda: board.read_top(arena, size, start))
    if top is not None:
        return top.rows, top.count
    order = final_order(arena)
    return order[start : start + size], len(order)


def board_frame(arena: Arena, size: int | None = None) -> dict:
    """The board's first rows, shared by every socket of a process (their own rows are added
    one by one, `own_rows`); once the arena has ended, with how many of its races are still
    `finishing` (their points still to come). At 0 the standings are final (`is_final`), and
    read from the record: a race's close commits its status with its players' totals, and
    writes the board only after the commit, so a board read between the two, without the
    last race's points, would be final and shown so on pages that open no socket. The count
    is read first: totals read after a count of 0 hold every close. `size`: `TOP`."""
    left = finishing_after_end(arena)
    found, count = top_rows(arena, TOP if size is None else size, final=left == 0)
    entries = entries_of(arena, [row.player_id for row in found])
    rows = [row_dict(row, entries.get(row.player_id)) for row in found]
    frame = {"type": "standings", "rows": rows, "count": count, **lobby(arena)}
    if left is not None:
        frame["finishing"] = left
    return frame


def is_final(frame: dict) -> bool:
    """Whether a board frame holds the final standings: read once the arena had ended and none
    of its races was still on."""
    return frame.get("finishing") == 0


def finishing_after_end(arena: Arena) -> int | None:
    """None while the arena has not ended; after, how many of its races are still on (in their
    countdown or started): a race under way at the arena's end counts when it closes, up to its
    own time limit. At 0 the standings are final. A race past its limit that nobody's socket
    closed is closed here first (`placement.close_overdue`): without a scheduler (`make run`) an
    ended arena's podium waited for it forever."""
    if arena.phase() != Arena.Phase.ENDED:
        return None
    close_overdue(arena)
    return ArenaRace.objects.filter(arena=arena, race__status__in=RACE_ON).count()


BOARD_FRESH_S = 1.0
"""How old a board this process read may be when a page or a socket that opens shows it: the
arena's sockets are sent a new one every second while it changes (arenas/rooms.py)."""

KEPT_BOARDS = 64
"""Past this many arenas' boards kept, a read drops the stale ones."""

_latest: dict[str, tuple[float, dict]] = {}
"""This process's latest board frame of each arena (by public id), and when it was read
(`time.monotonic()`)."""


def read_board(arena: Arena) -> dict:
    """The board frame, read now, and kept as this process's latest of the arena."""
    read_at = time.monotonic()
    frame = board_frame(arena)
    _latest[arena.public_id] = (read_at, frame)
    if len(_latest) > KEPT_BOARDS:  # arenas nobody looks at any more
        for public_id, (at, _) in list(_latest.items()):
            if read_at - at >= BOARD_FRESH_S:
                _latest.pop(public_id, None)
    return frame


def fresh_board(arena: Arena) -> dict | None:
    """This process's latest board frame of the arena, if it was read under `BOARD_FRESH_S`
    ago: a crowd coming back from their races loads the arena's page, and opens its socket,
    many times a second, and each is shown the board of that second. Not one read while the
    arena ran, once it has ended: every page open at the end reloads then, and is shown the
    standings with their count of the races still finishing (final at 0, `board_frame`)."""
    found = _latest.get(arena.public_id)
    if found is None or time.monotonic() - found[0] >= BOARD_FRESH_S:
        return None
    frame = found[1]
    if "finishing" not in frame and arena.phase() == Arena.Phase.ENDED:
        return None
    return frame


_reading = threading.Lock()
"""Held while a thread of this process reads a stale board for `current_board`."""


def current_board(arena: Arena) -> dict:
    """This process's board frame of the arena if it is fresh (`fresh_board`), else read now by
    one thread at a time: a crowd back from its races loads the arena's page together, and the
    threads that find the board stale wait for one read instead of each making its own
    (docs/performance-log.md, eighteenth day)."""
    frame = fresh_board(arena)
    if frame is None:
        with _reading:
            frame = fresh_board(arena) or read_board(arena)
    return frame


def own_dict(row: board.Row, entry: Entry | None) -> dict:
    """A player's own row (`you`): their board row, and whether they sit out (their pages say
    so: a race's page waiting for the next race stops waiting)."""
    return {**row_dict(row, entry), "paused": bool(entry) and entry.paused}


def own_rows(arena: Arena, player_ids: list[int]) -> dict[int, dict]:
    """The pinned own row of each of these players who are in the arena: from the board, or
    counted by the database (`board.record_row`) for one the board misses (its write lost; the
    minute's mend puts it back), as `own_row` does, not none."""
    if not player_ids:
        return {}
    found = own_board_rows(arena, player_ids)
    missing = [pid for pid in player_ids if pid not in found]
    if missing:
        for entry in ArenaPlayer.objects.filter(arena=arena, player_id__in=missing):
            found[entry.player_id] = board.record_row(entry)
    entries = entries_of(arena, list(found))
    return {pid: own_dict(row, entries.get(pid)) for pid, row in found.items()}


def own_board_rows(arena: Arena, player_ids: list[int]) -> dict[int, board.Row]:
    """These players' places on the board, or counted from the record (`from_board`)."""
    found = from_board(arena, lambda: board.read_own(arena, player_ids))
    if found is None:
        wanted = set(player_ids)
        found = {row.player_id: row for row in final_order(arena) if row.player_id in wanted}
    return found


def own_row(arena: Arena, entry: ArenaPlayer, name: str, final: bool = False) -> dict:
    """A player's pinned own row, from their entry as the page has just read it: their place on
    the board, or counted by the database from the record (`board.record_row`) where the store
    holds no board, or not them, and in the final standings (`final`)."""
    found = None if final else from_board(arena, lambda: board.read_own(arena, [entry.player_id]))
    row = (found or {}).get(entry.player_id) or board.record_row(entry)
    totals = Entry(name, entry.races, entry.podiums_in_a_row, entry.place_sum, entry.paused)
    return own_dict(row, totals)


def lobby(arena: Arena) -> dict:
    """How many have joined, race now, wait in the lobby to be placed, and sit out: counted by
    the database in one query (a thousand players' ids never cross the wire). Who races is an
    `IN` over the racers of the races still on, which PostgreSQL reads once for the query
    whatever its statistics say; as a correlated `EXISTS` it was planned, on tables an arena
    had just filled (no statistics yet), as one scan of the races a player, 0.85 s a count at
    1,000 players and growing with every race."""
    racing = Q(player_id__in=racing_now().values("player_id"))
    present = Q(paused=False) & placement.present(timezone.now())
    counts = arena.players.aggregate(
        joined=Count("pk"),
        racing=Count("pk", filter=racing),
        present=Count("pk", filter=present),
        present_racing=Count("pk", filter=present & racing),
        paused=Count("pk", filter=Q(paused=True)),
    )
    return {
        "joined": counts["joined"],
        "racing": counts["racing"],
        "waiting": counts["present"] - counts["present_racing"],
        "paused": counts["paused"],
    }


def results_of(arena: Arena, player_id: int) -> list[ArenaResult]:
    """A player's races in the arena, in order, with their races."""
    found = ArenaResult.objects.filter(arena=arena, player_id=player_id).select_related("race")
    return list(found.order_by("at", "race_id"))


def podium(arena: Arena, frame: dict, size: int = 3) -> list[dict]:
    """The first `size` of the final standings who scored, each with their races: the first
    rows of the board `frame` the page shows (every arena page open at the end reloads at once
    to show it: nothing is read again but the races). A player who joined and scored nothing
    (who never raced, or never moved) is on no podium."""
    top = [row for row in frame["rows"][:size] if row["points"] > 0]
    return [{**row, "results": results_of(arena, row["player"])} for row in top]


def final_order(arena: Arena) -> list[board.Row]:
    """Every player's row, from their totals in the record (a board the store does not hold:
    requests never rebuild a board), in the board's order (`points.board_order`)."""
    totals = board.totals(arena)
    return [
        board.Row(
            rank=i,
            player_id=pid,
            points=totals[pid].points,
            score=points.board_score(totals[pid]),
        )
        for i, pid in enumerate(points.board_order(totals), 1)
    ]


def standings_page(arena: Arena, page: int, per_page: int, final: bool = False) -> dict:
    """One page of the standings (the API): from the board while the store keeps it, else
    from the record (`from_board`); the final standings (`final`) from the record."""
    rows, count = top_rows(arena, per_page, (page - 1) * per_page, final)
    entries = entries_of(arena, [row.player_id for row in rows])
    found = []
    for row in rows:
        entry = entries.get(row.player_id)
        found.append(
            {
                **row_dict(row, entry),
                "average_place": round(entry.place_sum / entry.races, 2)
                if entry and entry.races
                else None,
            }
        )
    return {"page": page, "per_page": per_page, "total": count, "rows": found}


RECENT = 10


def player_arenas(player, viewer=None) -> list[dict]:
    """The player's latest arenas, for their page and the API's player document: each with
    their points, races and place in the board's order, ties and all (`places`). An arena only
    reachable by its link is listed to the player alone (`viewer`): anyone else would learn of
    it, and its link, from their page."""
    entries = ArenaPlayer.objects.filter(player=player)
    if viewer is None or viewer.pk != player.pk:
        entries = entries.filter(arena__visibility=Arena.Visibility.PUBLIC)
    entries = list(entries.select_related("arena").order_by("-joined_at")[:RECENT])
    found = places(entries)
    return [
        {
            **entry.arena.facts(),
            "points": entry.points,
            "races": entry.races,
            "place": found[entry.pk],
            "url": reverse("arenas:player", args=[entry.arena.public_id, entry.player_id]),
        }
        for entry in entries
    ]


def places(entries: list[ArenaPlayer]) -> dict[int, int]:
    """Each entry's place in its arena (by the entry's id): from the boards, all of them in
    one trip to the store (`board.read_ranks`), or, for an arena it holds no board of (most of
    a player's list: a day after the end), counted by the database (`board.record_row`): one
    count an arena, whatever its crowd."""
    try:
        on_board = board.read_ranks(entries)
    except (RedisError, OSError):
        logger.warning("the rank store failed; a player's arenas from the record")
        on_board = {}
    return {e.pk: on_board.get(e.pk) or board.record_row(e).rank for e in entries}


def arena_of(race: Race) -> Owner | None:
    """The race's arena, for the race's pages (races.actions.OWNERS): no rematch, the arena's
    name and time left in the header, a way back, and a way to sit out the next races."""
    arena = arena_of_race(race)
    if arena is None:
        return None
    return Owner(
        kind="arena",
        name=arena.name,
        url=arena.get_absolute_url(),
        ends_at=arena.ends_at,
        pause_url=reverse("arenas:pause", args=[arena.public_id]),
        next_race=arena.next_race_wait(),
    )
