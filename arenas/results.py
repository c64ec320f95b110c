"""A race of an arena has closed: its places become points (`record_race`, registered in the
race's close, races.actions.ON_CLOSE), the arena's board changes after the commit, and the
race's `arena` event tells every racer's page to wait there for the next race of the arena.

What fair play withholds can change after the close (a hold decided by the background worker,
a reviewer's clear or confirm): `rescore_race` and `rescore_player` (called by fair play when it
does) count the players' records in their arenas again from the stored results, in order, so a
later race's streak follows the held race's place as the points rules say."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from arenas import board, events, points
from arenas.models import Arena, ArenaPlayer, ArenaResult, arena_of_race
from games.rows import one_or_none, update_rows
from races.actions import Closing
from races.lifecycle import RacerStatus
from races.models import Race, Racer
from races.ratings import updates


def record_race(closing: Closing) -> None:
    """In the race's close (its row locked, its racers' places set and stored): each racer's
    points in the arena, in the record and in their totals, and a racer the server resigned as
    idle paused (they sit out the next races until they resume: away from a page left open,
    they would hold each next race's others a minute more); the board and the arena's sockets
    after the commit. The pause is in the close's transaction: the racer is free for the
    placement only once paused."""
    race = closing.race
    arena = arena_of_race(race)
    if arena is None:
        return
    at = race.finished_at
    at_s = max(0, int((at - arena.starts_at).total_seconds()))
    racers = [r for r in closing.racers if r.place is not None]
    withheld = closing.withheld  # the ratings' rule, read once for the close
    entries = {
        entry.player_id: entry
        for entry in ArenaPlayer.objects.select_for_update(no_key=True)
        .filter(arena=arena, player_id__in=[r.player_id for r in racers])
        .order_by("pk")
    }
    changed, results = [], []
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
        result = ArenaResult(
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
        results.append(result)
        _set_totals(entry, standing)
        entry.free_since = at
        entry.paused = entry.paused or racer.resigned_for == Racer.ResignedFor.IDLE
        changed.append(entry)
    ArenaResult.objects.bulk_create(results)
    update_rows(changed, [*board.TOTALS, "free_since", "paused"])
    closing.events.append(("arena", arena.next_race_wait()))
    transaction.on_commit(lambda: board.write(arena, changed))
    transaction.on_commit(lambda: events.board_changed(arena))


def _set_totals(entry: ArenaPlayer, standing: points.Standing) -> None:
    entry.points, entry.races, entry.place_sum = (
        standing.points,
        standing.races,
        standing.place_sum,
    )
    entry.podiums_in_a_row, entry.last_scored_s = (
        standing.podiums_in_a_row,
        standing.last_scored_s,
    )


def rescore(arena: Arena, player_id: int) -> bool:
    """One player's record in an arena counted again from their stored results, in order, each
    withheld or not as fair play says now: each result's points and doubling, and the player's
    totals; the board after the commit. Whether anything changed."""
    with transaction.atomic():
        locked = ArenaPlayer.objects.select_for_update(no_key=True)
        entry = one_or_none(locked.filter(arena=arena, player_id=player_id))
        if entry is None:
            return False
        standing = points.Standing()
        changed = False
        results = ArenaResult.objects.filter(arena=arena, player_id=player_id).select_related(
            "race"
        )
        for result in results.order_by("at", "race_id"):
            outcome = points.Outcome(
                place=result.place,
                racers=result.racers,
                moved=result.moved,
                won=result.won,
                counted=player_id not in updates.withheld_in(result.race),
            )
            standing, scored = points.add(standing, outcome, result.at_s)
            now = (scored.points, scored.doubled, not outcome.counted)
            if now != (result.points, result.doubled, result.withheld):
                result.points, result.doubled, result.withheld = now
                result.save(update_fields=["points", "doubled", "withheld"])
                changed = True
        if standing != board.standing_of(entry):
            _set_totals(entry, standing)
            entry.save(update_fields=board.TOTALS)
            changed = True
        if changed and arena.ends_at + board.KEPT_AFTER_END > timezone.now():
            transaction.on_commit(lambda: board.write(arena, [entry]))
            transaction.on_commit(lambda: events.board_changed(arena))
    return changed


def rescore_race(race: Race) -> None:
    """Every racer of a race of an arena, counted again (a result of it held or cleared)."""
    arena = arena_of_race(race)
    if arena is None:
        return
    for player_id in sorted(race.racers.values_list("player_id", flat=True)):
        rescore(arena, player_id)


def rescore_player(player_id: int) -> None:
    """A player's record in every arena they raced in, counted again (an account flagged)."""
    arenas = Arena.objects.filter(results__player_id=player_id).distinct().order_by("pk")
    for arena in arenas:
        rescore(arena, player_id)
