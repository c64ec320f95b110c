"""Board pages as plain rows, the same for the JSON API and the HTML pages.

What a page's rows need from the database (each player's nickname and, on a daily board, their
attempt's game: status, id, over or not) is kept in the cache under the page's stamp
(records/leaderboard.py), which changes whenever any of it may have: a page read again is the
rank store and one cache read, no query. Who may watch which replay is worked out from those
facts on every read: it depends on the viewer and on the clock (a day's replays open at
midnight).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from daily.models import DailyAttempt
from games.models import Player
from records import leaderboard
from records.boards import DAILY, FASTEST, STREAK, WINS, Board
from records.links import link
from records.public_replays import is_finished, refusal
from records.scoring import decode_count_score, decode_daily_score

ROWS_CACHE_SECONDS = 600  # a stamp that never changes again (a past day) still leaves in time


@dataclass(frozen=True)
class RowFacts:
    """What the database says of one row's player on one board."""

    nickname: str
    status: str | None = None  # a daily board's: the attempt's game
    game: str | None = None
    finished: bool = False


def player_ref(player_id: int, nickname: str) -> dict:
    return {"id": player_id, "nickname": nickname, "url": link("records:player", player_id)}


def _rows(page: leaderboard.BoardPage) -> list[leaderboard.Row]:
    return [row for row in [*page.rows, page.player_row] if row is not None]


def _cache_key(page: leaderboard.BoardPage) -> str:
    return f"board-rows:{page.board.name}:{page.stamp}:{page.page}:{page.per_page}"


def _facts_from_database(wanted: dict[Board, set[int]]) -> dict[tuple[Board, int], RowFacts]:
    """Two queries for every board: the players' names and the daily attempts' games."""
    players = {player for ids in wanted.values() for player in ids}
    names = dict(Player.objects.filter(pk__in=players).values_list("pk", "nickname"))
    games = {}
    daily = [(board, ids) for board, ids in wanted.items() if board.kind == DAILY]
    if daily:
        which = Q(pk__in=[])
        for board, ids in daily:
            which |= Q(
                challenge__variant=board.variant, challenge__day=board.day, player_id__in=ids
            )
        attempts = DailyAttempt.objects.filter(which, ranked=True).select_related(
            "game", "challenge"
        )
        for attempt in attempts.defer("game__state", "game__start_state", "challenge__solution"):
            challenge, game = attempt.challenge, attempt.game
            games[(challenge.variant, challenge.day, attempt.player_id)] = game
    facts = {}
    for board, ids in wanted.items():
        for player in ids:
            game = games.get((board.variant, board.day, player)) if board.kind == DAILY else None
            facts[(board, player)] = RowFacts(
                nickname=names.get(player, "?"),
                status=game.status if game else None,
                game=game.public_id if game else None,
                finished=is_finished(game) if game else False,
            )
    return facts


def _facts(
    pages: list[leaderboard.BoardPage], rows: bool = True
) -> dict[tuple[Board, int], RowFacts]:
    """Every row's facts: a page's own rows from the cache when its stamp is there, the rest
    (and the asked-for players' rows off their page) from the database in one go. Without
    ``rows``, only the asked-for players' rows."""
    keys = {_cache_key(page): page for page in pages if rows and page.stamp is not None}
    cached = cache.get_many(list(keys)) if keys else {}
    facts: dict[tuple[Board, int], RowFacts] = {}
    for page_facts in cached.values():
        facts.update(page_facts)
    wanted: dict[Board, set[int]] = {}
    for page in pages:
        for row in _rows(page) if rows else [page.player_row] if page.player_row else []:
            if (page.board, row.player_id) not in facts:
                wanted.setdefault(page.board, set()).add(row.player_id)
    if wanted:
        facts.update(_facts_from_database(wanted))
    # A stamp's rows are the same rows whenever it is read, so a page's cached facts cover them;
    # where they do not (the cache outlived the database it was filled from: a restored backup,
    # a test's rolled-back rows), they are written again rather than missed on every read.
    fresh = {
        key: {(page.board, row.player_id): facts[(page.board, row.player_id)] for row in page.rows}
        for key, page in keys.items()
        if not all((page.board, row.player_id) in cached.get(key, ()) for row in page.rows)
    }
    if fresh:
        cache.set_many(fresh, ROWS_CACHE_SECONDS)
    return facts


def _row_dict(board: Board, row: leaderboard.Row, facts: RowFacts, viewer, now) -> dict:
    """One row of a board page: its player and what the board ranks them by."""
    item = {"rank": row.rank, "player": player_ref(row.player_id, facts.nickname)}
    if board.kind == DAILY:
        result = decode_daily_score(row.score)
        watchable = None
        if (
            facts.game is not None
            and refusal(facts.finished, row.player_id, board.day, viewer, now) is None
        ):
            watchable = facts.game
        item.update(
            status=facts.status,
            won=result.won,
            time_ms=result.ms if result.won else None,
            cards=None if result.won else result.foundations,
            cards_ms=None if result.won else result.ms,
            game=watchable,
            replay=link("records:replay", watchable) if watchable else None,
        )
    elif board.kind == FASTEST:
        item["time_ms"] = int(row.score)
    elif board.kind == WINS:
        item["wins"] = decode_count_score(row.score)
    elif board.kind == STREAK:
        item["days"] = decode_count_score(row.score)
    return item


def board_dicts(
    pages: list[leaderboard.BoardPage], viewer: Player | None = None, rows: bool = True
) -> list[dict]:
    """Board pages as the API sends them (docs/api.md): one cache read for all of them, and
    two queries for those whose rows are not cached. Without ``rows``, each page's rows are
    left out (a page that has them already, as HTML) and only asked-for players' are read."""
    facts = _facts(pages, rows)
    now = timezone.now()
    out = []
    for page in pages:
        board = page.board

        def row_dict(row, board=board):
            return _row_dict(board, row, facts[(board, row.player_id)], viewer, now)

        player = None
        if page.player_row is not None:
            player = row_dict(page.player_row) | {"page": page.player_page}
        out.append(
            {
                "board": {
                    "kind": board.kind,
                    "variant": board.variant,
                    "day": board.day.isoformat() if board.day else None,
                    "title": board.title,
                },
                "page": page.page,
                "per_page": page.per_page,
                "pages": page.pages,
                "total": page.total,
                "rows": [row_dict(row) for row in page.rows] if rows else [],
                "player": player,
            }
        )
    return out


def board_dict(
    page: leaderboard.BoardPage, viewer: Player | None = None, rows: bool = True
) -> dict:
    """One board page as the API sends it (docs/api.md)."""
    return board_dicts([page], viewer, rows)[0]
