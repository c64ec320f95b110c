"""Race events: numbered, stored as `RaceEvent` rows, and sent to the race's sockets after the
commit; and the public shapes of a race and its racers that events and snapshots carry (no
game id, no seed before the race is over).
"""

from __future__ import annotations

import time

from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from games.engine import VARIANT_INFO
from games.frames import encode
from games.layer import group_send_nowait
from races.clock import epoch_ms
from races.models import Race, RaceEvent, Racer
from races.standings import standing_order


def emit(race: Race, kind: str, /, **data) -> RaceEvent:
    """Number and store one event, and send it to the race's sockets after the commit.

    The caller holds the race row lock, so numbers are consecutive and never reused. (Progress
    events of moves are numbered the same way, in the writer's batch: games/store.py.)
    """
    race.event_seq += 1
    event = RaceEvent.objects.create(
        race=race, seq=race.event_seq, kind=kind, data=data, at=timezone.now()
    )
    Race.objects.filter(pk=race.pk).update(event_seq=race.event_seq)
    group = race.group_name
    frame = event_frame(event)
    transaction.on_commit(lambda: broadcast(group, {"type": "race.event", "frame": frame}))
    return event


def event_frame(event: RaceEvent) -> dict:
    """The frame a socket gets for an event: its kind as `type`, its number as `event`."""
    return {"type": event.kind, "event": event.seq, **event.data}


def broadcast(group: str, message: dict) -> None:
    """Send to a channel group, unwaited; a lost message is recovered by the client's resync."""
    group_send_nowait(group, message)


async def send_events(group: str, frames: list[dict]) -> None:
    """Send a race's event frames, in order, as one channel message (the writer's batches),
    each encoded once here for every socket that gets it (`now`: the server's clock as sent)."""
    now = int(time.time() * 1000)
    texts = [encode({**frame, "now": now}) for frame in frames]
    message = {"type": "race.events", "frames": frames, "texts": texts}
    await get_channel_layer().group_send(group, message)


def progress_frame(
    race: Race, moved: list[Racer], racers: list[Racer], seq: int, at_ms: int
) -> dict:
    """A `progress` event's frame: the racers whose progress changed, the standings, when (ms
    from the start)."""
    return {
        "type": "progress",
        "event": seq,
        "racers": [racer_dict(racer, race) for racer in moved],
        "standings": standing_order(racers),
        "at_ms": at_ms,
    }


LIVE_FIELDS = ("cards", "cards_at_ms", "moves", "status")
"""What a live `progress` frame says of a racer: where they are, nothing that an event changes."""


def live_progress_frame(
    race: Race, racers: list[Racer], now: int | None = None, at_ms: int | None = None
) -> dict:
    """A live `progress` frame (not numbered, not stored): racers' progress as it stands after
    their acknowledged moves, with when (ms from the start) and the server's clock. `now`: when
    the figures were read, if before this call (clients skip figures older than ones they have);
    `at_ms`: when, if not `now` (figures read elsewhere)."""
    now = int(time.time() * 1000) if now is None else now
    return {
        "type": "progress",
        "racers": [live_racer(racer) for racer in racers],
        "at_ms": at_ms_of(race, now) if at_ms is None else at_ms,
        "now": now,
    }


def live_racer(racer: Racer) -> dict:
    """A racer as a live `progress` frame gives them: where they are."""
    return {"id": racer.public_id, **{name: getattr(racer, name) for name in LIVE_FIELDS}}


def at_ms_of(race: Race, now_ms: int) -> int:
    """A moment of the server's clock as ms from the race's start (0 before it)."""
    return max(0, now_ms - epoch_ms(race.starts_at))


def racer_dict(racer: Racer, race: Race) -> dict:
    """A racer as every socket on the race sees them (no game id before the race is over)."""
    data = {
        "id": racer.public_id,
        "name": racer.name,
        "host": racer.player_id == race.host_id,
        "ready": racer.ready,
        "status": racer.status,
        "cards": racer.cards,
        "cards_at_ms": racer.cards_at_ms,
        "moves": racer.moves,
        "finish_ms": racer.finish_ms,
        "done_ms": racer.done_ms,
        "place": racer.place,
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
