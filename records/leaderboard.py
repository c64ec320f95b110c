"""The live boards: sorted sets in the rank store (Redis), an index of the database.

Each board is one sorted set (member: player id, score: records/scoring.py, lowest first) plus a
marker key that says "this board was built from the database". The writes that change a board
keep it current (after each commit, one player's entry); no request ever rebuilds one. A board
is built only by ``manage.py rebuild_leaderboards``: the scheduler runs it every minute for the
boards whose marker is missing (``--missing``: Redis came back empty) and hourly for the recent
ones (``--days 2``: mends a write lost while Redis was unreachable). A read of a board without
its marker (not built yet, or a daily board past ``PAST_DAY_TTL``, which leaves Redis with its
marker) reads the board's rows from the database instead, as when the store cannot be reached;
the streak board's rows are one per player (records/streakbook.py), never the attempts' history.
A daily board past ``PAST_DAY_TTL`` can no longer change (its attempts ended days ago; only a
rebuild writes it again): its rows, once read from the database, are kept in Django's cache
(`frozen_key`) and its pages carry a stamp, so the caches of records/tables.py and
records/page_cache.py serve them as they serve a live board's.

Every change to a board also counts up its version (and a change to any nickname, the names'
version), so a page read from a built board carries a `stamp` that changes whenever anything its
rows show may have: records/tables.py keeps a page's rows from the database under it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache
from django.db import DatabaseError
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone
from redis.exceptions import RedisError

from daily.models import DailyAttempt
from games.params import page_count
from games.rankstore import MemoryRankStore, RankStore, get_rank_store
from records import board_scores, streakbook
from records.boards import ALL_TIME, DAILY, Board
from records.scoring import shared_ranks

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoreBoards:
    """Boards an app above keeps in the rank store (an arena's), rebuilt by
    `rebuild_leaderboards`: `kept(missing)` gives one rebuild a board the store keeps (only
    those it lost, with `missing`), by the board's id, each saying how many entries it wrote;
    `name` is the command's option that rebuilds one of them by that id (`--arena ID`)."""

    name: str
    kept: Callable[[bool], dict[str, Callable[[], int]]]


MORE_BOARDS: list[MoreBoards] = []
"""The apps above's boards (`MoreBoards`), each app's registered once."""

KEY_PREFIX = "lb"  # tests give each run its own prefix
PAST_DAY_TTL = 8 * 24 * 3600  # a past day's board leaves Redis this long after its day ends
FROZEN_SECONDS = 24 * 3600  # how long a board that can no longer change stays in Django's cache
BUILT = "built"
VERSION = "version"


@functools.cache
def database_epoch() -> str:
    """When this database was created (its first migration), as a short tag for keys.

    Keys carry it so that a database made afresh (tests, a restore, a second deployment on one
    Redis) never reads the boards another database left in Redis.
    """

    try:
        first = MigrationRecorder.Migration.objects.order_by("applied", "id").first()
    except DatabaseError:  # not migrated yet: no board can have rows either
        return "0"
    return "0" if first is None else format(int(first.applied.timestamp() * 1000), "x")


def key(board: Board) -> str:
    return f"{KEY_PREFIX}:{database_epoch()}:{board.name}"


def marker_key(board: Board) -> str:
    return f"{key(board)}:built"


def version_key(board: Board) -> str:
    return f"{key(board)}:version"


def names_key() -> str:
    return f"{KEY_PREFIX}:{database_epoch()}:names"


def frozen_key(board: Board) -> str:
    return f"{key(board)}:frozen"


def _day_left(board: Board) -> float:
    """Seconds until a daily board's day has been over for PAST_DAY_TTL (negative: it has)."""
    end = dt.datetime.combine(board.day + dt.timedelta(days=1), dt.time.min, tzinfo=dt.UTC)
    return (end - timezone.now()).total_seconds() + PAST_DAY_TTL


def _day_ttl(board: Board) -> int | None:
    """Seconds a daily board stays in Redis: until PAST_DAY_TTL after its day ends."""
    if board.kind != DAILY:
        return None
    return max(60, int(_day_left(board)))


def is_frozen(board: Board) -> bool:
    """A daily board whose day ended more than PAST_DAY_TTL ago: nothing changes it any more."""
    return board.kind == DAILY and _day_left(board) <= 0


# ------------------------------------------------------------------ writing


def rebuild(board: Board, store: RankStore | None = None) -> int:
    """Make a board equal to the database's standings; the number of entries. A result whose
    board write comes after the standings were read keeps that newer write (`RankStore.mend_to`)."""
    store = store or get_rank_store()
    k = key(board)
    entries, _ = store.mend_to(k, lambda: board_scores.scores(board))
    ttl = _day_ttl(board)
    if ttl is not None and entries:
        store.expire(k, ttl)
    store.set(marker_key(board), BUILT, time.time())
    if ttl is not None:  # the marker leaves with its board; an all-time board's stays
        store.expire(marker_key(board), ttl)
    _changed(board, store)
    if is_frozen(board):
        cache.delete(frozen_key(board))
    return entries


def _changed(board: Board, store: RankStore) -> None:
    """Count up a board's version: what its rows show (a score, a game's status) has changed."""
    store.incr(version_key(board), VERSION)
    ttl = _day_ttl(board)
    if ttl is not None:
        store.expire(version_key(board), ttl)


def names_changed(store: RankStore | None = None) -> None:
    """A player's nickname changed: every board's cached rows are stale."""
    try:
        (store or get_rank_store()).incr(names_key(), VERSION)
    except (RedisError, OSError):
        logger.exception("the rank store failed; cached board rows keep old names a while")


def is_built(board: Board, store: RankStore | None = None) -> bool:
    return (store or get_rank_store()).exists(marker_key(board))


def _write(board: Board, player_id: int, store: RankStore) -> None:
    """Put one player's current score (from the database) on a board, or take them off it."""
    member = str(player_id)
    score = board_scores.scores(board, players=[player_id]).get(member)
    if score is None:
        store.remove(key(board), member)
    else:
        store.set(key(board), member, score)
        ttl = _day_ttl(board)
        if ttl is not None:
            store.expire(key(board), ttl)
    _changed(board, store)  # even with the same score: the game's status may have changed


def record_attempt(attempt_pk: int, store: RankStore | None = None) -> None:
    """After a ranked attempt changed: its daily board, and the player's all-time boards.

    Called after the commit; a ranked win also advances the player's streak (streakbook). A
    failure here loses nothing: the database has the result, the scheduler's hourly rebuild of
    the recent boards mends the boards, and a full ``rebuild_leaderboards`` the streaks.
    """

    attempt = DailyAttempt.objects.select_related("challenge", "game").filter(pk=attempt_pk).first()
    if attempt is None or not attempt.ranked:
        return
    store = store or get_rank_store()
    challenge = attempt.challenge
    boards = [Board(DAILY, challenge.variant, challenge.day)]
    if attempt.elapsed_ms is not None:
        boards += [Board(kind, challenge.variant) for kind in ALL_TIME]
    try:
        if attempt.elapsed_ms is not None and attempt.won:
            if board_scores.is_withheld(attempt.pk):  # held for review, or a flagged account's
                streakbook.recount(attempt.player_id, challenge.variant)
            else:
                streakbook.record_win(attempt.player_id, challenge.variant, challenge.day)
        for board in boards:
            _write(board, attempt.player_id, store)
    except Exception:
        logger.exception("could not update the boards of attempt %s", attempt_pk)


# ------------------------------------------------------------------ reading


@dataclass(frozen=True)
class Row:
    rank: int  # 1-based; equal scores share a rank
    position: int  # 0-based place in the board's order
    member: str
    score: float

    @property
    def player_id(self) -> int:
        return int(self.member)


@dataclass(frozen=True)
class BoardPage:
    board: Board
    page: int
    per_page: int
    total: int
    rows: list[Row]
    player_row: Row | None  # the asked-for player's row, wherever it is on the board
    # What the board looked like when read: changes whenever its rows or their players' names
    # may have (a build, a write, a nickname); None when read from the database (but for a
    # board that can no longer change, `_read_frozen`).
    stamp: str | None = None

    @property
    def pages(self) -> int:
        return page_count(self.total, self.per_page)

    @property
    def player_page(self) -> int | None:
        return None if self.player_row is None else self.player_row.position // self.per_page + 1


def _shared_rank(
    store: RankStore, k: str, position: int, score: float, before: float | None = None
) -> int:
    """The 1-based rank of the entry at ``position``: that of the first entry with its score.

    Usually the entry before it (``before``, its score, when already read) scores differently:
    one look; inside a tie, a binary search.
    """
    if position == 0:
        return 1
    if before is None:
        before = store.range(k, position - 1, position - 1)[0][1]
    if before < score:
        return position + 1
    low, high = 0, position - 1
    while low < high:
        mid = (low + high) // 2
        (_, mid_score), *_ = store.range(k, mid, mid)
        if mid_score < score:
            low = mid + 1
        else:
            high = mid
    return low + 1


def _read(
    board: Board,
    page: int,
    per_page: int,
    player_id: int | None,
    store: RankStore,
    stamped: bool = False,
) -> BoardPage | None:
    """A page in one round trip to the store (a tie across the page's top, or the asked-for
    player's row, may take a few more). With ``stamped``, the board's stamp is read first, and
    None is the answer if the board is not built in the store."""
    k = key(board)
    start = (page - 1) * per_page
    member = None if player_id is None else str(player_id)
    stamp_calls = [
        ("score", (marker_key(board), BUILT)),
        ("score", (version_key(board), VERSION)),
        ("score", (names_key(), VERSION)),
    ]
    calls = [*(stamp_calls if stamped else []), ("range", (k, start, start + per_page - 1))]
    calls += [("count", (k,)), ("range", (k, max(start - 1, 0), max(start - 1, 0)))]
    if member is not None:
        calls += [("rank", (k, member)), ("score", (k, member))]
    answers = store.many(calls)
    stamp = None
    if stamped:
        (built, version, names), answers = answers[:3], answers[3:]
        if built is None:
            return None
        stamp = f"{built!r}:{version or 0:.0f}:{names or 0:.0f}"
    entries, total, before, *player = answers
    rows: list[Row] = []
    if entries:
        first = _shared_rank(store, k, start, entries[0][1], before[0][1] if before else None)
        ranks = shared_ranks([s for _, s in entries], start, first)
        rows = [
            Row(rank, start + i, name, score)
            for i, ((name, score), rank) in enumerate(zip(entries, ranks, strict=True))
        ]
    player_row = None
    if member is not None and player[0] is not None:
        position, score = player
        player_row = Row(_shared_rank(store, k, position, score), position, member, score)
    return BoardPage(board, page, per_page, total, rows, player_row, stamp)


def read_page(
    board: Board,
    page: int = 1,
    per_page: int = 25,
    player_id: int | None = None,
    store: RankStore | None = None,
) -> BoardPage:
    """One page of a board (1-based) and, if asked, one player's row wherever it is: from the
    store when the board is built there, else from the database (nothing is built here).

    The stamp is read before the rows, in the same round trip: rows read after it are as new as
    it says, or newer."""
    store = store or get_rank_store()
    try:
        found = _read(board, page, per_page, player_id, store, stamped=True)
        if found is not None:
            return found
        if is_frozen(board):
            return _read_frozen(board, page, per_page, player_id, store)
    except (RedisError, OSError):
        logger.exception("the rank store failed; reading %s from the database", board.name)
    fallback = MemoryRankStore()
    fallback.set_many(key(board), board_scores.scores(board))
    return _read(board, page, per_page, player_id, fallback)


def _read_frozen(
    board: Board, page: int, per_page: int, player_id: int | None, store: RankStore
) -> BoardPage:
    """A board that can no longer change: its rows from Django's cache (read from the database
    the first time), stamped with the names' version (what its rows show that still may)."""
    scores = cache.get(frozen_key(board))
    if scores is None:
        scores = board_scores.scores(board)
        cache.set(frozen_key(board), scores, FROZEN_SECONDS)
    names = store.score(names_key(), VERSION)
    held = MemoryRankStore()
    held.set_many(key(board), scores)
    found = _read(board, page, per_page, player_id, held)
    return dataclasses.replace(found, stamp=f"frozen:{names or 0:.0f}")
