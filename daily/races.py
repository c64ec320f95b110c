"""Recent races from the races app, for the boards' "recent races" list."""

from __future__ import annotations

from django.urls import reverse

from daily.tables import player_ref


def recent_races_page(page: int, per_page: int, variant: str | None = None) -> dict:
    """Finished public races, newest first, each with its racers in finishing order."""
    from races.models import Race

    races = Race.objects.filter(
        visibility=Race.Visibility.PUBLIC, status=Race.Status.FINISHED
    ).order_by("-finished_at", "-pk")
    if variant:
        races = races.filter(variant=variant)
    total = races.count()
    start = (page - 1) * per_page
    rows = []
    for race in races.prefetch_related("racers__game")[start : start + per_page]:
        racers = sorted(race.racers.all(), key=lambda r: (r.place is None, r.place or 0, r.pk))
        rows.append(
            {
                "code": race.code,
                "variant": race.variant,
                "finished_at": race.finished_at.isoformat() if race.finished_at else None,
                "ranked": race.ranked,
                "url": reverse("races:results", args=[race.code]),
                "racers": [
                    {
                        "place": r.place,
                        "player": player_ref(r.player_id, r.name),
                        "status": r.status,
                        "finish_ms": r.finish_ms,
                        "cards": r.cards,
                        "replay": reverse("daily:replay", args=[r.game.public_id])
                        if r.game_id
                        else None,
                    }
                    for r in racers
                ],
            }
        )
    return {
        "board": {"kind": "races", "variant": variant, "day": None, "title": "Recent races"},
        "page": page,
        "per_page": per_page,
        "pages": max(1, -(-total // per_page)),
        "total": total,
        "rows": rows,
    }
