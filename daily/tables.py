"""Board pages as plain rows, the same for the JSON API and the HTML pages."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from daily import leaderboard
from daily.boards import DAILY, FASTEST, STREAK, WINS, Board
from daily.links import link
from daily.models import DailyAttempt
from daily.replay import ReplayRefused, check_replay
from daily.scoring import decode_count_score, decode_daily_score
from games.models import Player


def player_ref(player_id: int, nickname: str) -> dict:
    return {"id": player_id, "nickname": nickname, "url": link("daily:player", player_id)}


def _daily_extras(pages: list[leaderboard.BoardPage], viewer: Player | None) -> dict:
    """Per (variant, day, player) on the daily pages: status and replay link (when the viewer
    may watch it). One query for every page."""
    wanted = Q(pk__in=[])
    for page in pages:
        if page.board.kind == DAILY:
            wanted |= Q(
                challenge__variant=page.board.variant,
                challenge__day=page.board.day,
                player_id__in=[row.player_id for row in _rows(page)],
            )
    attempts = DailyAttempt.objects.filter(wanted, ranked=True).select_related("game", "challenge")
    now = timezone.now()
    extras = {}
    for attempt in attempts.defer("game__state", "game__start_state", "challenge__solution"):
        game = attempt.game
        try:
            check_replay(game, viewer, now)
            watchable = game.public_id
        except ReplayRefused:
            watchable = None
        key = (attempt.challenge.variant, attempt.challenge.day, attempt.player_id)
        extras[key] = {
            "status": game.status,
            "game": watchable,
            "replay": link("daily:replay", watchable) if watchable else None,
        }
    return extras


def _rows(page: leaderboard.BoardPage) -> list[leaderboard.Row]:
    return [row for row in [*page.rows, page.player_row] if row is not None]


def _row_dict(board: Board, row: leaderboard.Row, names: dict, extras: dict) -> dict:
    """One row of a board page: its player and what the board ranks them by."""
    item = {"rank": row.rank, "player": player_ref(row.player_id, names.get(row.player_id, "?"))}
    if board.kind == DAILY:
        result = decode_daily_score(row.score)
        extra = extras.get(
            (board.variant, board.day, row.player_id),
            {"status": None, "game": None, "replay": None},
        )
        item.update(
            status=extra["status"],
            won=result.won,
            time_ms=result.ms if result.won else None,
            cards=None if result.won else result.foundations,
            cards_ms=None if result.won else result.ms,
            game=extra["game"],
            replay=extra["replay"],
        )
    elif board.kind == FASTEST:
        item["time_ms"] = int(row.score)
    elif board.kind == WINS:
        item["wins"] = decode_count_score(row.score)
    elif board.kind == STREAK:
        item["days"] = decode_count_score(row.score)
    return item


def board_dicts(pages: list[leaderboard.BoardPage], viewer: Player | None = None) -> list[dict]:
    """Board pages as the API sends them (docs/api.md): two queries for all of them, the
    players' names and the daily attempts' status and replays."""
    players = {row.player_id for page in pages for row in _rows(page)}
    names = dict(Player.objects.filter(pk__in=players).values_list("pk", "nickname"))
    extras = _daily_extras(pages, viewer) if any(p.board.kind == DAILY for p in pages) else {}
    out = []
    for page in pages:
        board = page.board
        player = None
        if page.player_row is not None:
            player = _row_dict(board, page.player_row, names, extras) | {"page": page.player_page}
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
                "rows": [_row_dict(board, row, names, extras) for row in page.rows],
                "player": player,
            }
        )
    return out


def board_dict(page: leaderboard.BoardPage, viewer: Player | None = None) -> dict:
    """One board page as the API sends it (docs/api.md)."""
    return board_dicts([page], viewer)[0]


def format_ms(ms: int | None) -> str:
    """A time as a player reads it: 1:02.345, or 1:02:03.4 past an hour."""
    if ms is None:
        return "–"
    seconds, millis = divmod(int(ms), 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{millis // 100}"
    return f"{minutes}:{seconds:02d}.{millis:03d}"
