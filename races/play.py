"""A race move: the race's rules checked against what the racer's socket holds in memory (the
race's clock and status, the racer's progress), then the game's own move path (games/play.py)
with the racer's new progress written in the same batch.

Progress reaches the race as `progress` events, at most one a tick (`RACE_PROGRESS_TICK_MS`)
per race and process, each carrying every racer of the race whose progress changed since
(`Ticker`): in a busy race one event a second stands for many moves, a frame to every socket
of the race instead of one per move. A finish is announced in the move's own batch.

The race row is not read or locked for a move: its clock decides the phase, and what can end a
racer's play from elsewhere (a close, a resignation in another tab) ends the game row first,
which the store's compare-and-set sees. A seat that may be out of date (a refused or failed
write, a resend) is read again before the next move.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import store
from games.live import GameUpdate, GameWrite, LiveGame, RacerWrite
from games.models import Game, Player
from games.writer import writer
from races import lifecycle
from races.clock import epoch_ms, phase_of, since_start_ms
from races.lifecycle import RacerStatus, RaceRuleError
from races.models import Race, Racer

logger = logging.getLogger(__name__)


@dataclass
class Seat:
    """What a racer's socket keeps of its race and of the racer, to check a move in memory."""

    race: Race
    racer: Racer
    stale: bool = False

    def check(self, now: datetime) -> None:
        """May the racer play now? RaceRuleError says why not."""
        lifecycle.check_play(phase_of(self.race, now), RacerStatus(self.racer.status))

    def extend(self, live: LiveGame, write: GameWrite) -> None:
        """Add the racer's progress after this move to the game's write."""
        write.racer = progress_after(self.race, self.racer, live, write.at)

    def adopt(self, write: RacerWrite) -> None:
        """The write was stored: the racer is where it says (and announced, once the event
        carrying it comes back: `RaceConsumer.after_event`)."""
        racer = self.racer
        racer.cards, racer.cards_at_ms, racer.moves = write.cards, write.cards_at_ms, write.moves
        racer.status, racer.finish_ms, racer.done_ms = write.status, write.finish_ms, write.done_ms


def progress_after(race: Race, racer: Racer, live: LiveGame, now: datetime) -> RacerWrite:
    """The racer's progress once the move is in `live`: cards home (and when reached), moves,
    status; announced (a `progress` event) when the cards or the status changed, or the
    racer's last announcement is `RACE_PROGRESS_INTERVAL_MS` old.

    Held back, a move changes only the racer's move count: the standings (cards, then time)
    and the results chart (cards over time) miss nothing."""
    at_ms = since_start_ms(race, now)
    cards, cards_at_ms = racer.cards, racer.cards_at_ms
    if live.home != cards:
        cards, cards_at_ms = live.home, at_ms
    status = lifecycle.racer_status_after(
        won=live.status == Game.Status.WON, stuck=live.status == Game.Status.STUCK
    )
    finish_ms = done_ms = None
    if status == RacerStatus.WON:
        finish_ms = done_ms = since_start_ms(race, live.finished_at)
    changed = (cards, status) != (racer.cards, racer.status)
    finished = status in lifecycle.DONE and status != racer.status
    return RacerWrite(
        pk=racer.pk,
        race_pk=race.pk,
        race_code=race.code,
        cards=cards,
        cards_at_ms=cards_at_ms,
        moves=live.move_count,
        status=status,
        finish_ms=finish_ms,
        done_ms=done_ms,
        announce=finished,
        at_ms=at_ms,
        wanted=changed or announcement_due(racer.announced_ms, at_ms),
    )


def announcement_due(announced_ms: int | None, at_ms: int) -> bool:
    interval = settings.RACE_PROGRESS_INTERVAL_MS
    return announced_ms is None or at_ms - announced_ms >= interval


def seat_of(race: Race, player: Player | None) -> Seat | None:
    """The racer's seat, read from the record (ORM; sync)."""
    race = Race.objects.get(pk=race.pk)
    racer = Racer.objects.select_related("game").filter(race=race, player=player).first()
    if player is None or racer is None:
        return None
    return Seat(race=race, racer=racer)


def held_ms(race: Race, moment_ms: int) -> int:
    """A held-back move's time (epoch ms) as ms from the race's start."""
    return max(0, moment_ms - epoch_ms(race.starts_at))


# ------------------------------------------------------------------ for callers not on a socket


def do_race_move(race: Race, player: Player | None, move: str, seq: int) -> GameUpdate:
    """Play one move of the player's race game, synchronously (tests, commands)."""
    return _race_act(race, player, "move", seq, move)


def do_race_undo(race: Race, player: Player | None, seq: int) -> GameUpdate:
    """Take back the racer's last move (a stuck racer plays on)."""
    return _race_act(race, player, "undo", seq)


def _race_act(race, player, action, seq, move=None) -> GameUpdate:
    from games.actions import act

    seat = seat_of(race, player)
    if seat is None:
        raise RaceRuleError("not_in_race", "you are not racing in this race")
    seat.check(timezone.now())
    written: list[GameWrite] = []

    def extend(live: LiveGame, write: GameWrite) -> None:
        seat.extend(live, write)
        write.racer.announce = write.racer.wanted  # no tick here: announced with the move
        written.append(write)

    update = act(seat.racer.game, action, seq, move, extend=extend)
    if written and not update.duplicate:
        return _with_announced(update, written[-1].racer.announce)
    return update


def _with_announced(update: GameUpdate, announced: bool) -> GameUpdate:
    from dataclasses import replace

    return replace(update, announced=announced)


def do_announce(race: Race, player: Player | None, held_at_ms: int) -> bool:
    """Announce the racer's moves held back since `held_at_ms` (epoch ms) unless an announcement
    has carried them since; True if a `progress` event was sent."""
    from races.events import broadcast

    seat = seat_of(race, player)
    if seat is None:
        return False
    held = ((seat.racer.pk, held_ms(seat.race, held_at_ms)),)
    announcement = store.Announcement(race.pk, held)
    with transaction.atomic():
        result = store.write([], [announcement])
    for event in result.events:
        broadcast(event.group, {"type": "race.event", "frame": event.frame})
    return bool(result.events)


def after_batch(applied: list[GameWrite], result: store.BatchResult) -> None:
    """Once a batch is stored (games/writer.py): the racers' scores into the race's standings
    index, and the close of a race whose last racer has just finished."""
    from races import actions, index

    racers = [w.racer for w in applied if w.racer is not None]
    if racers:
        index.record(racers)
    for race_pk in result.finished_races:
        actions.close_if_complete(race_pk)


# ------------------------------------------------------------------ the race's tick


class Ticker:
    """One race's progress not yet announced from this process: racers marked since the last
    tick go out together, in one `progress` event, once `RACE_PROGRESS_TICK_MS` has passed
    since the last (at once when it has)."""

    def __init__(self, race_pk: int) -> None:
        self.race_pk = race_pk
        self.pending: dict[int, int] = {}  # racer pk -> held ms (from the race's start)
        self.last = 0.0
        self.timer: asyncio.TimerHandle | None = None

    def mark(self, racer_pk: int, held_ms: int) -> None:
        self.pending[racer_pk] = max(held_ms, self.pending.get(racer_pk, 0))
        if self.timer is None:
            loop = asyncio.get_running_loop()
            wait = self.last + settings.RACE_PROGRESS_TICK_MS / 1000 - loop.time()
            self.timer = loop.call_later(max(0.0, wait), self.flush)

    def flush(self) -> None:
        self.timer = None
        if not self.pending:
            return
        racers, self.pending = tuple(self.pending.items()), {}
        self.last = asyncio.get_running_loop().time()
        announcement = store.Announcement(self.race_pk, racers)
        task = asyncio.ensure_future(writer().announce(announcement))
        task.add_done_callback(_report)


def _report(task: asyncio.Future) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("a race's progress was not announced", exc_info=task.exception())


_tickers: dict[asyncio.AbstractEventLoop, dict[int, Ticker]] = {}


def ticker(race_pk: int) -> Ticker:
    """This process's (and event loop's) ticker for the race."""
    loop = asyncio.get_running_loop()
    if loop not in _tickers:
        for old in [lp for lp in _tickers if lp.is_closed()]:
            del _tickers[old]
    races = _tickers.setdefault(loop, {})
    found = races.get(race_pk)
    if found is None:
        found = races[race_pk] = Ticker(race_pk)
        if len(races) > MAX_TICKERS:  # finished races' tickers: the oldest idle ones go
            for pk in [pk for pk, t in races.items() if t.timer is None][: len(races) // 2]:
                del races[pk]
    return found


MAX_TICKERS = 10_000
