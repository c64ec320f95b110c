"""A race of an arena has closed: its places become points (`record_race`, registered in the
race's close, races.actions.ON_CLOSE), the arena's board changes after the commit, and every
racer's page is sent back to the arena, where they are placed again."""

from __future__ import annotations

from django.db import transaction

from arenas import board, events, points
from arenas.models import ArenaPlayer, ArenaRace, ArenaResult
from races.events import emit
from races.lifecycle import RacerStatus
from races.models import Race
from races.ratings import updates


def record_race(race: Race) -> None:
    """In the race's close (its row locked, its places set): each racer's points in the arena,
    in the record and in their totals; the board and the arena's sockets after the commit."""
    link = ArenaRace.objects.select_related("arena").filter(race=race).first()
    if link is None:
        return
    arena = link.arena
    at = race.finished_at
    at_s = max(0, int((at - arena.starts_at).total_seconds()))
    racers = [r for r in race.racers.all() if r.place is not None]
    withheld = set().union(
        *(rule(race) for rule in updates.WITHHELD)
    )  # fair play's, as for ratings
    entries = {
        entry.player_id: entry
        for entry in ArenaPlayer.objects.select_for_update()
        .filter(arena=arena, player_id__in=[r.player_id for r in racers])
        .order_by("pk")
    }
    changed = []
    for racer in racers:
        entry = entries.get(racer.player_id)
        if entry is None:
            continue
        outcome = points.Outcome(
            place=racer.place,
            racers=len(racers),
            moved=racer.moves > 0,
            won=racer.status == RacerStatus.WON,
            counted=racer.player_id not in withheld,
        )
        standing, scored = points.add(board.standing_of(entry), outcome, at_s)
        ArenaResult.objects.create(
            arena=arena,
            player_id=racer.player_id,
            race=race,
            place=outcome.place,
            racers=outcome.racers,
            moved=outcome.moved,
            won=outcome.won,
            points=scored.points,
            doubled=scored.doubled,
            withheld=not outcome.counted,
            at_s=at_s,
            at=at,
        )
        entry.points, entry.races, entry.place_sum = (
            standing.points,
            standing.races,
            standing.place_sum,
        )
        entry.podiums_in_a_row, entry.last_scored_s = (
            standing.podiums_in_a_row,
            standing.last_scored_s,
        )
        entry.free_since = at
        entry.save(
            update_fields=[
                "points",
                "races",
                "place_sum",
                "podiums_in_a_row",
                "last_scored_s",
                "free_since",
            ]
        )
        changed.append(entry)
    emit(race, "arena", url=arena.get_absolute_url(), arena=arena.public_id)
    transaction.on_commit(lambda: board.write(arena, changed))
    transaction.on_commit(lambda: events.board_changed(arena))
