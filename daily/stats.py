"""A player's record, for their page: games, wins and best times per variant, streaks, races."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, F, Min, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone

from daily.dealpick import utc_day
from daily.links import link
from daily.models import DailyAttempt
from daily.replay import ReplayRefused, check_replay
from daily.streaks import current_streak, longest_streak
from games.engine import VARIANT_INFO, VARIANTS
from games.models import Game, Player

RECENT = 15
# A game's JSON columns: a list of games needs none of them (a position is kilobytes).
HEAVY_GAME_FIELDS = ("state", "start_state")


def variant_rows(player: Player) -> list[dict]:
    """Per variant: games played, games won, the fastest win (any kind) and the best ranked daily."""
    counts = {
        row["variant"]: row
        for row in player.games.values("variant").annotate(
            games=Count("id"),
            wins=Count("id", filter=Q(status=Game.Status.WON)),
            best=Min(F("finished_at") - F("started_at"), filter=Q(status=Game.Status.WON)),
        )
    }
    best_daily = dict(
        DailyAttempt.objects.filter(player=player, ranked=True, game__status=Game.Status.WON)
        .values("challenge__variant")
        .annotate(ms=Min("elapsed_ms"))
        .values_list("challenge__variant", "ms")
    )
    rows = []
    for variant in VARIANTS:
        row = counts.get(variant, {})
        best = row.get("best")
        rows.append(
            {
                "variant": variant,
                "name": VARIANT_INFO[variant]["name"],
                "games": row.get("games", 0),
                "wins": row.get("wins", 0),
                "best_ms": None if best is None else int(best / dt.timedelta(milliseconds=1)),
                "best_daily_ms": best_daily.get(variant),
            }
        )
    return rows


def daily_streaks(player: Player) -> dict:
    """Days in a row with a ranked daily win (any variant): the current run and the longest."""
    days = list(
        DailyAttempt.objects.filter(
            player=player, ranked=True, game__status=Game.Status.WON
        ).values_list("challenge__day", flat=True)
    )
    return {
        "current": current_streak(days, utc_day(timezone.now())),
        "longest": longest_streak(days),
        "days_won": len(set(days)),
    }


def _replay_link(game: Game, viewer: Player | None, now) -> str | None:
    """The replay's address if ``viewer`` may watch it now (daily/replay.py says who may)."""
    try:
        check_replay(game, viewer, now)
    except ReplayRefused:
        return None
    return link("daily:replay", game.public_id)


def recent_games(player: Player, viewer: Player | None) -> list[dict]:
    """The player's latest games, with a replay link for each one the viewer may watch."""
    now = timezone.now()
    games = (
        player.games.select_related("racer__race", "daily_attempt__challenge")
        .defer(*HEAVY_GAME_FIELDS)
        .order_by("-started_at")[:RECENT]
    )
    out = []
    for game in games:
        attempt = getattr(game, "daily_attempt", None)
        out.append(
            {
                "game": game.public_id,
                "variant": game.variant,
                "kind": game.kind,
                "ranked": bool(attempt and attempt.ranked),
                "status": game.status,
                "started_at": game.started_at.isoformat(),
                "time_ms": int((game.finished_at - game.started_at) / dt.timedelta(milliseconds=1))
                if game.status == Game.Status.WON and game.finished_at
                else None,
                "moves": game.move_count,
                "replay": _replay_link(game, viewer, now),
            }
        )
    return out


def recent_races(player: Player, viewer: Player | None) -> list[dict]:
    """The player's latest races (link-only races are listed to the player alone)."""
    from races.models import Race, Racer

    # One query whatever the races: the race, the game and what the replay rule reads of it
    # (its race, its daily attempt) joined; each race's size counted in a subquery.
    size = Racer.objects.filter(race=OuterRef("race")).values("race").annotate(n=Count("pk"))
    racers = (
        player.racers.select_related("race", "game__daily_attempt__challenge")
        .defer(*(f"game__{field}" for field in HEAVY_GAME_FIELDS))
        .annotate(race_size=Subquery(size.values("n")))
        .order_by("-joined_at")
    )
    if viewer is None or viewer.pk != player.pk:
        racers = racers.filter(race__visibility=Race.Visibility.PUBLIC)
    now = timezone.now()
    out = []
    for racer in racers[:RECENT]:
        race = racer.race
        out.append(
            {
                "code": race.code,
                "variant": race.variant,
                "status": race.status,
                "place": racer.place,
                "racers": racer.race_size,
                "finish_ms": racer.finish_ms,
                "url": race.get_absolute_url(),
                "replay": _replay_link(racer.game, viewer, now) if racer.game_id else None,
            }
        )
    return out


def player_dict(player: Player, viewer: Player | None) -> dict:
    return {
        "id": player.pk,
        "nickname": player.nickname,
        "guest": player.is_guest,
        "since": player.created_at.date().isoformat(),
        "url": reverse("daily:player", args=[player.pk]),
        "variants": variant_rows(player),
        "daily_streak": daily_streaks(player),
        "recent_games": recent_games(player, viewer),
        "recent_races": recent_races(player, viewer),
    }
