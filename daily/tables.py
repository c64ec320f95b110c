"""Board pages as plain rows, the same for the JSON API and the HTML pages."""

from __future__ import annotations

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


def _daily_extras(board: Board, rows: list[leaderboard.Row], viewer: Player | None) -> dict:
    """Per member of a daily board: status and replay link (when the viewer may watch it)."""
    attempts = DailyAttempt.objects.filter(
        ranked=True,
        challenge__variant=board.variant,
        challenge__day=board.day,
        player_id__in=[row.player_id for row in rows],
    ).select_related("game", "challenge")
    now = timezone.now()
    extras = {}
    for attempt in attempts:
        game = attempt.game
        try:
            check_replay(game, viewer, now)
            watchable = game.public_id
        except ReplayRefused:
            watchable = None
        extras[attempt.player_id] = {
            "status": game.status,
            "game": watchable,
            "replay": link("daily:replay", watchable) if watchable else None,
        }
    return extras


def row_dicts(
    board: Board, rows: list[leaderboard.Row], viewer: Player | None = None
) -> list[dict]:
    """The rows of a board page, each with its player and what the board ranks them by."""
    rows = [row for row in rows if row is not None]
    names = dict(
        Player.objects.filter(pk__in=[row.player_id for row in rows]).values_list("pk", "nickname")
    )
    extras = _daily_extras(board, rows, viewer) if board.kind == DAILY else {}
    out = []
    for row in rows:
        item = {
            "rank": row.rank,
            "player": player_ref(row.player_id, names.get(row.player_id, "?")),
        }
        if board.kind == DAILY:
            result = decode_daily_score(row.score)
            extra = extras.get(row.player_id, {"status": None, "game": None, "replay": None})
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
        out.append(item)
    return out


def board_dict(page: leaderboard.BoardPage, viewer: Player | None = None) -> dict:
    """A board page as the API sends it (docs/api.md)."""
    board = page.board
    player = None
    if page.player_row is not None:
        player = row_dicts(board, [page.player_row], viewer)[0] | {"page": page.player_page}
    return {
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
        "rows": row_dicts(board, page.rows, viewer),
        "player": player,
    }


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
