"""A finished race's results: the standings table and the chart's data, from the record."""

from __future__ import annotations

from dataclasses import dataclass

from races.chart import Chart, build_chart
from races.clock import since_start_ms
from races.events import total_cards
from races.models import Race, RaceEvent, Racer, RatingChange
from races.ratings.updates import change_dict


@dataclass(frozen=True)
class Row:
    place: int | None
    name: str
    player_id: int
    status: str
    time: str | None
    moves: int
    cards: int
    replay: str | None
    racer: str = ""  # the racer's public id: the race replay opens on their board
    rating: dict | None = None
    """A rated race's change to the racer's rating (races/rating_updates.change_dict)."""
    game: str | None = None
    """The racer's game's public id."""


def clock(ms: int | None) -> str | None:
    """A race time as m:ss.t."""
    if ms is None:
        return None
    minutes, rest = divmod(ms, 60_000)
    return f"{minutes}:{rest // 1000:02d}.{rest % 1000 // 100}"


def rating_changes(race: Race) -> dict[int, dict]:
    """Per player id, what the race did to their rating (nothing for an unrated race)."""
    return {
        change.player_id: change_dict(change.mu_before, change.mu_after, change.races)
        for change in RatingChange.objects.filter(race=race)
    }


def rows(race: Race) -> list[Row]:
    racers = race.racers.select_related("game").order_by("place", "joined_at")
    changes = rating_changes(race)
    return [
        Row(
            place=r.place,
            name=r.name,
            player_id=r.player_id,
            status=r.get_resigned_for_display() or r.get_status_display(),
            time=clock(r.finish_ms) if r.status == Racer.Status.WON else None,  # to the win
            moves=r.moves,
            cards=r.cards,
            replay=f"/replay/{r.game.public_id}/" if r.game_id else None,
            racer=r.public_id,
            rating=changes.get(r.player_id),
            game=r.game.public_id if r.game_id else None,
        )
        for r in racers
    ]


def series(race: Race) -> dict[str, list[tuple[int, int]]]:
    """Per racer id, every (ms from the start, cards) at which the count changed, in order: the
    racers' curves (written with their moves), and the numbered events (the start, finishes;
    older races kept all their progress there)."""
    found: dict[str, list[tuple[int, int]]] = {}
    events = RaceEvent.objects.filter(race=race, kind__in=["countdown", "progress"]).order_by("seq")
    for event in events:
        for racer in event.data.get("racers") or [event.data["racer"]]:  # `racer`: older events
            found.setdefault(racer["id"], []).append((racer["cards_at_ms"], racer["cards"]))
    for racer_id, curve in race.racers.values_list("public_id", "curve"):
        found.setdefault(racer_id, []).extend((ms, cards) for ms, cards in curve)
    points: dict[str, list[tuple[int, int]]] = {}
    for racer_id, found_points in found.items():
        line = points[racer_id] = []
        for ms, cards in sorted(found_points, key=lambda point: point[0]):
            if not line or line[-1][1] != cards:
                line.append((ms, cards))
    return points


def chart(race: Race) -> Chart | None:
    if race.starts_at is None:
        return None
    lines = series(race)
    racers = race.racers.order_by("place", "joined_at")
    end_ms = since_start_ms(race, min(race.finished_at, race.ends_at))
    data = [(r.name, lines.get(r.public_id, [])) for r in racers]
    return build_chart(data, total_cards(race.variant), end_ms)
