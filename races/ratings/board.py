"""Reading ratings: the board of a variant, a player's ratings and their history.

The board ranks established players only (at least `PROVISIONAL_RACES` rated races, as a
provisional rating says little yet), by rating, equal shown ratings sharing a rank (1, 2, 2, 4).
Straight from the `Rating` rows (one per player and variant, indexed by variant, races, mu):
ratings change once a race, not once a move, so no index in Redis is needed.
"""

from __future__ import annotations

from django.urls import reverse

from games.engine import VARIANT_INFO, VARIANTS
from games.models import Player
from games.params import page_count
from races import ratings
from races.models import Rating, RatingChange


def board(variant: str, page: int, per_page: int) -> dict:
    """One page of the variant's rating board, as the page and the JSON API show it."""
    rows = Rating.objects.filter(variant=variant, races__gte=ratings.PROVISIONAL_RACES)
    total = rows.count()
    pages = page_count(total, per_page)
    start = (page - 1) * per_page
    found = list(
        rows.select_related("player").order_by("-mu", "player_id")[start : start + per_page]
    )
    entries = []
    for i, row in enumerate(found):
        shown = ratings.shown(row.mu)
        if i and shown == entries[-1]["rating"]:
            rank = entries[-1]["rank"]
        elif i == 0 and start:  # may tie with the previous page's last: count who is above
            rank = 1 + rows.filter(mu__gte=shown + 0.5).count()
        else:
            rank = start + i + 1
        entries.append(
            {
                "rank": rank,
                "player": {
                    "id": row.player_id,
                    "nickname": row.player.nickname,
                    "url": reverse("records:player", args=[row.player_id]),
                },
                "rating": shown,
                "races": row.races,
            }
        )
    return {
        "board": {"kind": "rating", "variant": variant, "title": "Race rating"},
        "page": page,
        "per_page": per_page,
        "pages": pages,
        "total": total,
        "rows": entries,
    }


def player_ratings(player: Player) -> list[dict]:
    """The player's rating in each variant they have raced rated, with its history (the
    rating after each rated race, oldest first)."""
    history: dict[str, list[dict]] = {}
    for change in RatingChange.objects.filter(player=player).select_related("race"):
        history.setdefault(change.variant, []).append(
            {
                "race": change.race.code,
                "at": change.at.isoformat(),
                "rating": ratings.shown(change.mu_after),
                "change": ratings.change(change.mu_before, change.mu_after),
            }
        )
    rows = {r.variant: r for r in Rating.objects.filter(player=player)}
    return [
        {
            "variant": variant,
            "name": VARIANT_INFO[variant]["name"],
            "rating": ratings.shown(rows[variant].mu),
            "races": rows[variant].races,
            "provisional": ratings.is_provisional(rows[variant].races),
            "history": history.get(variant, []),
        }
        for variant in VARIANTS
        if variant in rows
    ]
