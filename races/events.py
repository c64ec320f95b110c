"""Race events: numbered, stored as `RaceEvent` rows, and sent to the race's sockets after the
commit; the racer's part of a move's batch (its progress, and the `progress` event of a finish);
and the public shapes of a race and its racers that events and snapshots carry (no game id, no
seed before the race is over).

Every event is numbered by `append`, under the race row's lock, so numbers are consecutive and
never reused: the lobby's, the start's and the close's (`emit`, in the actions' transactions),
and a finish's (`announce_finishes`, in the transaction of the move batch that stored it).
"""

from __future__ import annotations

import time
from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from games.engine import VARIANT_INFO
from games.groups import group_send_nowait
from games.sockets import encode
from races.clock import epoch_ms
from races.models import Race, RaceEvent, Racer
from races.standings import standing_order


def append(race: Race, kind: str, data: dict, now) -> RaceEvent:
    """Number and store one event of a race whose row the caller holds locked."""
    return append_all(race, [(kind, data)], now)[0]


def append_all(
    race: Race, events: list[tuple[str, dict]], now, fields: list[str] | None = None
) -> list[RaceEvent]:
    """Number and store events (kind, data) of a race whose row the caller holds locked, in
    order: one insert and one update however many; `fields`, the race's fields the caller
    changed with them (a close's status), are stored in that update."""
    rows = [
        RaceEvent(race=race, seq=race.event_seq + n, kind=kind, data=data, at=now)
        for n, (kind, data) in enumerate(events, 1)
    ]
    RaceEvent.objects.bulk_create(rows)
    race.event_seq += len(rows)
    changed = {name: getattr(race, name) for name in fields or []}
    Race.objects.filter(pk=race.pk).update(event_seq=race.event_seq, **changed)
    return rows


def emit(race: Race, kind: str, /, **data) -> RaceEvent:
    """Number and store one event, and send it to the race's sockets after the commit."""
    return emit_all(race, [(kind, data)])[0]


def emit_all(
    race: Race, events: list[tuple[str, dict]], fields: list[str] | None = None
) -> list[RaceEvent]:
    """Number and store events (kind, data) with the race's changed `fields`, and send them to
    the race's sockets after the commit, in order, in one message (each socket stamps each
    frame's `now` as it sends it)."""
    rows = append_all(race, events, timezone.now(), fields)
    group, frames = race.group_name, [event_frame(event) for event in rows]
    transaction.on_commit(lambda: broadcast(group, {"type": "race.events", "frames": frames}))
    return rows


def event_frame(event: RaceEvent) -> dict:
    """The frame a socket gets for an event: its kind as `type`, its number as `event`."""
    return {"type": event.kind, "event": event.seq, **event.data}


def broadcast(group: str, message: dict) -> None:
    """Send to a channel group, unwaited; a lost message is recovered by the client's resync."""
    group_send_nowait(group, message)


def racer_dict(racer: Racer, race: Race) -> dict:
    """A racer as every socket on the race sees them (no game id before the race is over)."""
    data = {
        "id": racer.public_id,
        "name": racer.name,
        "player": racer.player_id,
        "host": racer.player_id == race.host_id,
        "ready": racer.ready,
        "status": racer.status,
        "cards": racer.cards,
        "cards_at_ms": racer.cards_at_ms,
        "moves": racer.moves,
        "finish_ms": racer.finish_ms,
        "done_ms": racer.done_ms,
        "place": racer.place,
        "resigned_for": racer.resigned_for or None,
    }
    if race.is_over and racer.game_id is not None:
        data["game"] = racer.game.public_id
    return data


def race_dict(race: Race) -> dict:
    """The race as every socket sees it; the seed only once the race is over.

    Only what an event changes: no phase, which follows from the status and the clock (a
    stored countdown event would say `countdown` forever, and a client holding a snapshot plus
    the events since would differ from a fresh snapshot; docs/protocol.md)."""
    data = {
        "code": race.code,
        "url": race.get_absolute_url(),
        "variant": race.variant,
        "variant_name": race.get_variant_display(),
        "status": race.status,
        "ranked": race.ranked,
        "winnable": race.winnable,
        "visibility": race.visibility,
        "max_players": race.max_players,
        "time_limit_s": race.time_limit_s,
        "total_cards": total_cards(race.variant),
        "starts_at": epoch_ms(race.starts_at),
        "ends_at": epoch_ms(race.ends_at),
        "finished_at": epoch_ms(race.finished_at),
        "rematch": race.rematch.code if race.rematch_id else None,
        "quick": race.quick,
        "rated": race.rated,
        "autostart_at": epoch_ms(race.autostart_at),
    }
    if race.is_over:
        data["seed"] = str(race.seed)  # 63 bits: more than a JavaScript number holds exactly
    return data


def total_cards(variant: str) -> int:
    return 52 * VARIANT_INFO[variant]["decks"]


# ------------------------------------------------------------------ a finish in a move's batch


def lock_races(racers) -> dict[int, Race]:
    """The races a batch announces a finish to, locked in id order (two processes' batches
    never deadlock), before the batch's games."""
    race_pks = sorted({r.race_pk for r in racers})
    return {
        race.pk: race
        for race in Race.objects.select_for_update(no_key=True)
        .filter(pk__in=race_pks)
        .order_by("pk")  # not the model's newest first, nor in the order of a batch of them
    }


def announce_finishes(races: dict[int, Race], pairs) -> list[tuple[str, dict]]:
    """One numbered `progress` event per race for the racers whose applied move ended their
    play, with the standings; the channel messages that send them once committed."""
    now = timezone.now()
    due: dict[int, list[int]] = defaultdict(list)  # race pk -> racer pks, in order
    for _, r in pairs:
        if r.announce and r.race_pk in races:
            due[r.race_pk].append(r.pk)
    if not due:
        return []
    everyone: dict[int, list[Racer]] = defaultdict(list)
    for racer in Racer.objects.filter(race_id__in=list(due)).order_by("joined_at", "pk"):
        everyone[racer.race_id].append(racer)
    messages = []
    sent_at = int(time.time() * 1000)
    for race_pk, racer_pks in due.items():
        race, racers = races[race_pk], everyone[race_pk]
        moved = [racer for pk in racer_pks for racer in racers if racer.pk == pk]
        data = {
            "racers": [racer_dict(racer, race) for racer in moved],
            "standings": standing_order(racers),
            "at_ms": max(0, int((now - race.starts_at).total_seconds() * 1000)),
        }
        frame = event_frame(append(race, "progress", data, now))
        text = encode({**frame, "now": sent_at})
        messages.append(
            (race.group_name, {"type": "race.events", "frames": [frame], "texts": [text]})
        )
    return messages
