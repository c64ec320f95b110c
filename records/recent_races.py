"""Recent races from the races app, for the boards' "recent races" list."""

from __future__ import annotations

from collections.abc import Callable

from django.core.cache import cache
from django.db.models import F, Prefetch

from games.engine import VARIANTS
from games.params import page_count
from races.models import Race, Racer
from records.links import link
from records.tables import player_ref

# The board lists the latest races only: its count and its deepest page stay bounded however
# many races have ever finished (older ones remain on their players' pages and by their links).
LISTED = 1_000


# A page of the list is kept in the cache under the newest listed race: a race that finishes
# changes the key, and nothing else changes a finished race's row. The expiry bounds the one case
# the key misses: a race whose finish commits after a newer-stamped one was cached (two races
# closing in the same instant), or a race closed late with an earlier finish time.
CACHE_SECONDS = 10


def recent_races_page(page: int, per_page: int, variant: str | None = None) -> dict:
    """The latest ``LISTED`` finished public races, newest first, each with its racers in
    finishing order. From the cache: no query (the newest race is known) or one; built: three
    more (a bounded count, the races, their racers), whatever the number of races."""
    return recent_races(page, per_page, variant)[0]


def recent_races(
    page: int,
    per_page: int,
    variant: str | None = None,
    table: Callable[[dict], str] | None = None,
    newest: str | None = None,
) -> tuple[dict, str | None]:
    """`recent_races_page`, and the page rendered by ``table`` (HTML the same for everyone),
    cached beside it under the same key: read again, a page's table costs no rendering.
    ``newest``: `newest_listed`'s answer, when the caller has it already."""

    races = _listed(variant)
    stamp = newest or newest_listed(variant)
    if stamp is None:
        data = _page(races, page, per_page, variant)
        return data, table(data) if table else None
    key = f"races-board:{variant or ''}:{page}:{per_page}:{stamp}"
    keys = [key, f"{key}:table"] if table else [key]
    found = cache.get_many(keys)
    data = found.get(key)
    if data is None:
        data = _page(races, page, per_page, variant)
        cache.set(key, data, CACHE_SECONDS)
    if table is None:
        return data, None
    html = found.get(f"{key}:table")
    if html is None:
        html = table(data)
        cache.set(f"{key}:table", html, CACHE_SECONDS)
    return data, html


def newest_listed(variant: str | None = None) -> str | None:
    """The newest listed race (its id and finish time), the key the list is cached under; None
    when there is none. Kept in the cache too (`forget_newest` drops it when a race finishes):
    read again, no query; else one, through the index."""

    key = _newest_key(variant)
    stamp = cache.get(key)
    if stamp is None:
        newest = _listed(variant).values_list("pk", "finished_at").first()
        stamp = (
            "" if newest is None else f"{newest[0]}:{newest[1].timestamp() if newest[1] else ''}"
        )
        cache.set(key, stamp, CACHE_SECONDS)
    return stamp or None


def forget_newest() -> None:
    """A race finished: the next read of any list asks the database for its newest race."""

    cache.delete_many([_newest_key(None), *(_newest_key(v) for v in VARIANTS)])


def _newest_key(variant: str | None) -> str:
    return f"races-newest:{variant or ''}"


def _listed(variant: str | None):

    races = Race.objects.filter(
        visibility=Race.Visibility.PUBLIC, status=Race.Status.FINISHED
    ).order_by("-finished_at", "-pk")
    return races.filter(variant=variant) if variant else races


def _page(races, page: int, per_page: int, variant: str | None) -> dict:

    total = races[:LISTED].count()
    start = min((page - 1) * per_page, LISTED)
    stop = min(start + per_page, LISTED)
    racers = Racer.objects.annotate(game_public_id=F("game__public_id")).only(
        "race_id", "player_id", "name", "status", "finish_ms", "cards", "place", "game_id"
    )
    rows = []
    for race in races.prefetch_related(Prefetch("racers", queryset=racers))[start:stop]:
        racers = sorted(race.racers.all(), key=lambda r: (r.place is None, r.place or 0, r.pk))
        rows.append(
            {
                "code": race.code,
                "variant": race.variant,
                "finished_at": race.finished_at.isoformat() if race.finished_at else None,
                "ranked": race.ranked,
                "url": link("races:results", race.code),
                "racers": [
                    {
                        "place": r.place,
                        "player": player_ref(r.player_id, r.name),
                        "status": r.status,
                        "finish_ms": r.finish_ms,
                        "cards": r.cards,
                        "replay": link("records:replay", r.game_public_id) if r.game_id else None,
                    }
                    for r in racers
                ],
            }
        )
    return {
        "board": {"kind": "races", "variant": variant, "day": None, "title": "Recent races"},
        "page": page,
        "per_page": per_page,
        "pages": page_count(total, per_page),
        "total": total,
        "rows": rows,
    }
