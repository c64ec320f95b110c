"""A player's record, for their page: games, wins and best times per variant, streaks, races."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, F, Min, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone

from daily.dealpick import utc_day
from daily.links import link
from daily.models import DailyAttempt
from daily.replay import finished, refusal
from daily.streaks import current_streak, longest_streak
from games.engine import VARIANT_INFO, VARIANTS
from games.models import Game, Player

RECENT = 15
_ONE_MS = dt.timedelta(milliseconds=1)


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


def _replay_link(game: dict, viewer: Player | None, now) -> str | None:
    """The replay's address if ``viewer`` may watch it now (daily/replay.py says who may), from
    the game as plain values: ``public_id``, ``kind``, ``status``, ``player_id``, its race's
    ``race_status`` and its daily challenge's ``day``."""
    done = finished(game["kind"], game["status"], game["race_status"])
    if refusal(done, game["player_id"], game["day"], viewer, now) is not None:
        return None
    return link("daily:replay", game["public_id"])


def recent_games(player: Player, viewer: Player | None) -> list[dict]:
    """The player's latest games, with a replay link for each one the viewer may watch.

    Plain values, not model objects: a list of fifteen rows through three joins compiled and
    built as models cost more than the rest of the player's page."""
    now = timezone.now()
    games = player.games.order_by("-started_at").values(
        "public_id",
        "variant",
        "kind",
        "status",
        "started_at",
        "finished_at",
        "move_count",
        "player_id",
        race_status=F("racer__race__status"),
        ranked=F("daily_attempt__ranked"),
        day=F("daily_attempt__challenge__day"),
    )
    return [
        {
            "game": game["public_id"],
            "variant": game["variant"],
            "kind": game["kind"],
            "ranked": bool(game["ranked"]),
            "status": game["status"],
            "started_at": game["started_at"].isoformat(),
            "time_ms": int((game["finished_at"] - game["started_at"]) / _ONE_MS)
            if game["status"] == Game.Status.WON and game["finished_at"]
            else None,
            "moves": game["move_count"],
            "replay": _replay_link(game, viewer, now),
        }
        for game in games[:RECENT]
    ]


def recent_races(player: Player, viewer: Player | None) -> list[dict]:
    """The player's latest races (link-only races are listed to the player alone)."""
    from races.models import Race, Racer

    # One query whatever the races: the race, the game and what the replay rule reads of it
    # (its race, its daily attempt) joined; each race's size counted in a subquery.
    size = Racer.objects.filter(race=OuterRef("race")).values("race").annotate(n=Count("pk"))
    racers = player.racers.order_by("-joined_at")
    if viewer is None or viewer.pk != player.pk:
        racers = racers.filter(race__visibility=Race.Visibility.PUBLIC)
    rows = racers.values(
        "place",
        "finish_ms",
        "game_id",
        code=F("race__code"),
        race_variant=F("race__variant"),
        race_status=F("race__status"),
        game_public_id=F("game__public_id"),
        game_kind=F("game__kind"),
        game_status=F("game__status"),
        game_player_id=F("game__player_id"),
        day=F("game__daily_attempt__challenge__day"),
        size=Subquery(size.values("n")),
    )
    now = timezone.now()
    out = []
    for row in rows[:RECENT]:
        game = {
            "public_id": row["game_public_id"],
            "kind": row["game_kind"],
            "status": row["game_status"],
            "player_id": row["game_player_id"],
            "race_status": row["race_status"],
            "day": row["day"],
        }
        out.append(
            {
                "code": row["code"],
                "variant": row["race_variant"],
                "status": row["race_status"],
                "place": row["place"],
                "racers": row["size"],
                "finish_ms": row["finish_ms"],
                "url": link("races:race", row["code"]),
                "replay": _replay_link(game, viewer, now) if row["game_id"] else None,
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
