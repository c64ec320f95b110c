"""A player's record, for their page: games, wins and best times per variant, streaks, races."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count, F, Min, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone

from daily.dealpick import utc_day
from daily.models import DailyAttempt
from games.engine import VARIANT_INFO, VARIANTS
from games.models import Game, Player
from races.models import Race, Racer
from records.links import link
from records.public_replays import finished, refusal
from records.streaks import current_streak, longest_streak

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


def _game_facts(path: str = "") -> dict:
    """``values()`` expressions for what a list shows of a game and the replay rule reads of it
    (its id, kind, status and player, its race's status, its daily challenge's day), the game
    reached by ``path`` from the listed model."""
    to = f"{path}__" if path else ""
    return {
        "game_public_id": F(f"{to}public_id"),
        "game_kind": F(f"{to}kind"),
        "game_status": F(f"{to}status"),
        "game_player_id": F(f"{to}player_id"),
        "game_race_status": F(f"{to}racer__race__status"),
        "game_day": F(f"{to}daily_attempt__challenge__day"),
    }


def _replay_link(row: dict, viewer: Player | None, now) -> str | None:
    """The replay's address if ``viewer`` may watch the row's game now (records/public_replays.py says who
    may), from the row's `_game_facts`."""
    done = finished(row["game_kind"], row["game_status"], row["game_race_status"])
    if refusal(done, row["game_player_id"], row["game_day"], viewer, now) is not None:
        return None
    return link("records:replay", row["game_public_id"])


def recent_games(player: Player, viewer: Player | None) -> list[dict]:
    """The player's latest games, with a replay link for each one the viewer may watch. A game's
    id is named to its own player and to a viewer who may watch it, no one else: a running race's
    game is named to nobody but its player until the race is over.

    Plain values, not model objects: a list of fifteen rows through three joins compiled and
    built as models cost more than the rest of the player's page."""
    now = timezone.now()
    games = player.games.order_by("-started_at").values(
        "variant",
        "started_at",
        "finished_at",
        "move_count",
        ranked=F("daily_attempt__ranked"),
        **_game_facts(),
    )
    rows = []
    for game in games[:RECENT]:
        replay = _replay_link(game, viewer, now)
        own = viewer is not None and viewer.pk == game["game_player_id"]
        rows.append(
            {
                "game": game["game_public_id"] if replay or own else None,
                "variant": game["variant"],
                "kind": game["game_kind"],
                "ranked": bool(game["ranked"]),
                "status": game["game_status"],
                "started_at": game["started_at"].isoformat(),
                "time_ms": int((game["finished_at"] - game["started_at"]) / _ONE_MS)
                if game["game_status"] == Game.Status.WON and game["finished_at"]
                else None,
                "moves": game["move_count"],
                "replay": replay,
            }
        )
    return rows


def recent_races(player: Player, viewer: Player | None) -> list[dict]:
    """The player's latest races (link-only races are listed to the player alone)."""

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
        size=Subquery(size.values("n")),
        # The game's race is this racer's race, joined already.
        **{**_game_facts("game"), "game_race_status": F("race__status")},
    )
    now = timezone.now()
    return [
        {
            "code": row["code"],
            "variant": row["race_variant"],
            "status": row["game_race_status"],
            "place": row["place"],
            "racers": row["size"],
            "finish_ms": row["finish_ms"],
            "url": link("races:race", row["code"]),
            "replay": _replay_link(row, viewer, now) if row["game_id"] else None,
        }
        for row in rows[:RECENT]
    ]


@dataclass(frozen=True)
class PlayerPart:
    """A part of a player's page and API document that an app above adds (the arenas)."""

    key: str
    """Its key in the player's document (the API's, and the page's `data`)."""
    template: str
    """The page's section, given the rows as `rows`."""
    rows: Callable[[Player, Player | None], list[dict]]
    """The part's rows of a player, as this viewer (None: a visitor) may see them."""


PLAYER_PARTS: list[PlayerPart] = []
"""Registered by the apps above in their AppConfig.ready (records imports none of them)."""


def player_dict(player: Player, viewer: Player | None) -> dict:
    return {
        "id": player.pk,
        "nickname": player.nickname,
        "guest": player.is_guest,
        "since": player.created_at.date().isoformat(),
        "url": reverse("records:player", args=[player.pk]),
        "variants": variant_rows(player),
        "daily_streak": daily_streaks(player),
        "recent_games": recent_games(player, viewer),
        "recent_races": recent_races(player, viewer),
        **{part.key: part.rows(player, viewer) for part in PLAYER_PARTS},
    }
