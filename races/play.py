"""A race move, and the race's live progress in one process.

**The move.** The race's rules are checked against what the racer's socket holds in memory
(`Seat`: the race's clock and status, the racer's progress), then the game's own move path
(games/play.py `act`) stores the move with the racer's new progress as its part of the write
(`RacerWrite`, written in the same statement; races/actions.py registers the part). The race row
is not read or locked for a move: its clock decides the phase, and what can end a racer's play
from elsewhere (a close, a resignation in another tab) ends the game row first, which the
store's compare-and-set sees. A seat that may be out of date (a refused or failed write, a
resend) is read again before the next move. `race_act` is that move for the sockets and for the
synchronous actions (`do_race_move`, tests and commands) alike.

**Live progress.** A move that does not end the racer's play reaches the race's sockets live,
not through the record: at most one `progress` frame a tick (`RACE_PROGRESS_TICK_MS`) per
socket, carrying every racer whose progress changed since, whichever process they play on.
Each process gathers what its own racers' acknowledged moves changed (`RaceRelay.mark`) and,
once a tick, hands those figures to the other processes as one channel message (`race.live`, to
the race's live group, where only each process's relay listens) and sends its own sockets one
frame with its racers and whatever the other processes handed it since its last. Figures from
another process carry their own `at_ms`, which clients go by rather than the frame's. Live frames
are not numbered and not stored: the racer rows, written with each move, are the record (a
reconnect's catch-up reads them). A finish is a numbered event of its own, stored in the move's
batch, and a racer who finished is left out of later ticks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import orjson
from asgiref.sync import async_to_sync
from django.conf import settings
from django.utils import timezone

from games import play
from games.actions import read_now, store_now
from games.groups import GROUPS, PerLoop, group_send, group_send_nowait
from games.models import Game, Player
from games.play import GameUpdate, LiveGame
from games.rows import one_or_none
from games.storage import GameWrite
from races import lifecycle
from races.clock import epoch_ms
from races.lifecycle import DONE, RacerStatus, RaceRuleError
from races.models import Race, Racer

logger = logging.getLogger(__name__)

MESSAGE = "race.live"


@dataclass
class RacerWrite:
    """A racer's progress after a move (races_racer), the racer's part of the game's write.
    `announce`: the move ends the racer's play, which the batch announces to the race as a
    numbered event; then a race whose racers have all finished is closed (`follow_up`)."""

    pk: int
    race_pk: int
    cards: int
    cards_at_ms: int
    moves: int
    status: str
    finish_ms: int | None
    done_ms: int | None
    announce: bool
    follow_up: bool

    def row(self) -> dict:
        """The columns the batch's statement writes (RACER_SQL)."""
        return {
            "id": self.pk,
            "cards": self.cards,
            "cards_at": self.cards_at_ms,
            "moves": self.moves,
            "status": self.status,
            "finish": self.finish_ms,
            "done": self.done_ms,
        }


RACER_SQL = """
racer AS (
    UPDATE races_racer rc
    SET cards = x.cards, cards_at_ms = x.cards_at, moves = x.moves, status = x.status,
        finish_ms = x.finish, done_ms = x.done, seen_at = now(),
        curve = CASE WHEN rc.cards = x.cards THEN rc.curve
                ELSE rc.curve || jsonb_build_array(jsonb_build_array(x.cards_at, x.cards)) END
    FROM b, jsonb_to_recordset(b.b -> 'racer') AS x(
        game_id bigint, id bigint, cards int, cards_at int, moves int, status text,
        finish int, done int
    )
    JOIN g ON g.id = x.game_id
    WHERE rc.id = x.id
)
"""
"""The racer's progress, written only where its game's move was applied; each change of the
cards home adds a point to the racer's curve (the results chart). A move says its racer's page is
open (`seen_at`, races/presence.py): the beat passes over a row a batch holds, and the batch
that holds it says so itself."""


def write_racers(pairs) -> None:
    """RACER_SQL through the ORM (SQLite): the applied writes' racers."""
    for _, r in pairs:
        progress = {
            "cards": r.cards,
            "cards_at_ms": r.cards_at_ms,
            "moves": r.moves,
            "status": r.status,
            "finish_ms": r.finish_ms,
            "done_ms": r.done_ms,
            "seen_at": timezone.now(),
        }
        before = one_or_none(Racer.objects.filter(pk=r.pk).values("cards", "curve"))
        if before is not None and before["cards"] != r.cards:
            progress["curve"] = [*before["curve"], [r.cards_at_ms, r.cards]]
        Racer.objects.filter(pk=r.pk).update(**progress)


@dataclass
class Seat:
    """What a racer's socket keeps of its race and of the racer, to check a move in memory."""

    race: Race
    racer: Racer
    stale: bool = False
    starts_ms: int = field(init=False)
    ends_ms: int | None = field(init=False)

    def __post_init__(self) -> None:
        self.starts_ms = epoch_ms(self.race.starts_at) or 0
        self.ends_ms = epoch_ms(self.race.ends_at)

    def check(self, now_ms: int) -> None:
        """May the racer play now? RaceRuleError says why not."""
        race = self.race
        current = lifecycle.phase(race.status, self.starts_ms, self.ends_ms, now_ms)
        lifecycle.check_play(current, RacerStatus(self.racer.status))

    def extend(self, live: LiveGame, write: GameWrite) -> None:
        """Add the racer's progress once the move is in `live` to the game's write."""
        racer, starts_at = self.racer, self.race.starts_at
        cards, cards_at_ms = racer.cards, racer.cards_at_ms
        if live.home != cards:
            cards = live.home
            cards_at_ms = max(0, int((write.at - starts_at).total_seconds() * 1000))
        status = lifecycle.racer_status_after(
            won=live.status == Game.Status.WON, stuck=live.status == Game.Status.STUCK
        )
        finish_ms = None
        if status == RacerStatus.WON:
            finish_ms = max(0, int((live.finished_at - starts_at).total_seconds() * 1000))
        ends = status in DONE and status != racer.status
        write.parts["racer"] = RacerWrite(
            pk=racer.pk,
            race_pk=racer.race_id,
            cards=cards,
            cards_at_ms=cards_at_ms,
            moves=live.move_count,
            status=status,
            finish_ms=finish_ms,
            done_ms=finish_ms,
            announce=ends,
            follow_up=ends,
        )


def seat_of(race: Race, player: Player | None) -> Seat | None:
    """The racer's seat, read from the record (ORM; sync): the racer with their game and the race
    as it stands now, in one read."""
    if player is None:
        return None
    found = Racer.objects.select_related("game", "race").filter(race=race, player=player)
    racer = one_or_none(found)
    return None if racer is None else Seat(race=racer.race, racer=racer)


async def race_act(
    seat: Seat,
    entry: play.InPlay,
    action: str,
    seq: int,
    move: str | None = None,
    store=None,
    read=None,
) -> GameUpdate:
    """One move or undo of the racer's game, stored with the racer's progress, which the seat
    then holds (sockets and synchronous callers alike)."""
    try:
        update = await play.act(entry, action, seq, move, seat.extend, store, read)
    except BaseException:
        seat.stale = True
        raise
    if update.write is None:  # a resend: the seat may be behind what another tab did
        seat.stale = True
        return update
    progress, racer = update.write.parts["racer"], seat.racer
    racer.cards, racer.cards_at_ms, racer.moves = (
        progress.cards,
        progress.cards_at_ms,
        progress.moves,
    )
    racer.status, racer.finish_ms, racer.done_ms = (
        progress.status,
        progress.finish_ms,
        progress.done_ms,
    )
    return update


# ------------------------------------------------------------------ for callers not on a socket


def do_race_move(race: Race, player: Player | None, move: str, seq: int) -> GameUpdate:
    """Play one move of the player's race game, synchronously (tests, commands)."""
    return _race_act(race, player, "move", seq, move)


def do_race_undo(race: Race, player: Player | None, seq: int) -> GameUpdate:
    """Take back the racer's last move (a stuck racer plays on)."""
    return _race_act(race, player, "undo", seq)


def _race_act(race, player, action, seq, move=None) -> GameUpdate:
    seat = seat_of(race, player)
    if seat is None:
        raise RaceRuleError("not_in_race", "you are not racing in this race")
    seat.check(int(time.time() * 1000))
    if seat.racer.game is None:
        raise RaceRuleError("not_in_race", "you are not racing in this race")
    entry = play.InPlay(game=seat.racer.game, live=play.load(seat.racer.game))
    update = async_to_sync(race_act)(seat, entry, action, seq, move, store_now, read_now)
    if update.write is not None and seat.racer.status not in DONE:
        # No tick here: every process's relay hears of it at once.
        at_ms = max(0, int(time.time() * 1000) - seat.starts_ms)
        part = part_message(seat.race.pk, [live_racer(seat.racer)], at_ms)
        group_send_nowait(live_group(seat.race), part)
    return update


# ------------------------------------------------------------------ live progress


def live_group(race: Race) -> str:
    """The channel group of the race's relays (one member a process that shows the race)."""
    return f"{race.group_name}.live"


def live_racer(racer) -> dict:
    """A racer as a live `progress` frame gives them: where they are."""
    return {
        "id": racer.public_id,
        "cards": racer.cards,
        "cards_at_ms": racer.cards_at_ms,
        "moves": racer.moves,
        "status": racer.status,
    }


def live_progress_frame(racers: list[dict], at_ms: int, now: int) -> dict:
    """A live `progress` frame (not numbered, not stored): racers' figures as they stand after
    their acknowledged moves, with when (ms from the start) and the server's clock."""
    return {"type": "progress", "racers": racers, "at_ms": at_ms, "now": now}


def part_message(race_pk: int, figures: list[dict], at_ms: int, sender: str = "") -> dict:
    """A process's racers' figures (`live_racer`) for the other processes of the race, each
    with when, in ms from the start."""
    return {
        "type": MESSAGE,
        "race": race_pk,
        "from": sender,
        "racers": [{**racer, "at_ms": at_ms} for racer in figures],
    }


class RaceRelay:
    """One race in one process: its sockets here, and the figures not yet sent to them."""

    def __init__(self, relays: Relays, race: Race) -> None:
        self.relays = relays
        self.race = race
        self.starts_ms = epoch_ms(race.starts_at) or 0
        self.group = live_group(race)
        self.sockets: set = set()
        self.marked: dict[int, Racer] = {}  # this process's racers who moved, by pk
        self.folded: dict[str, dict] = {}  # other processes' racers' figures, by public id
        self.last = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.closing: asyncio.Task | None = None

    async def close_once(self, close: Callable[[], Awaitable]) -> None:
        """`close()`, the race's close at its time limit, asked once for all of this process's
        sockets that reach the end together: those that come while it is on wait for it, not on
        the race row's lock, where each would hold an ORM thread and a connection meanwhile (a
        race's eight sockets at its end had filled a Daphne's eight ORM threads for as long as
        the close took). One that comes after it asks again (the close is idempotent)."""
        if self.closing is None or self.closing.done():
            self.closing = asyncio.get_running_loop().create_task(close())
        await asyncio.shield(self.closing)

    def mark(self, seat: Seat) -> None:
        """A racer of this process moved (acknowledged): in the next tick, as their seat holds
        them (the relay's own race may predate the start)."""
        self.race, self.starts_ms = seat.race, seat.starts_ms
        self.marked[seat.racer.pk] = seat.racer
        if self.timer is None:
            loop = asyncio.get_running_loop()
            wait = self.last + settings.RACE_PROGRESS_TICK_MS / 1000 - loop.time()
            self.timer = loop.call_later(max(0.0, wait), self.tick)

    def fold(self, racers: list[dict]) -> None:
        """Another process's racers' figures: in this process's next tick (the newest of each)."""
        for figures in racers:
            held = self.folded.get(figures["id"])
            if held is None or held["at_ms"] <= figures["at_ms"]:
                self.folded[figures["id"]] = figures
        if self.timer is None:
            self.schedule()

    def hear(self, message: dict) -> None:
        """Another process's racers' figures (its `race.live` to the race's live group)."""
        elsewhere = message.get("from") != self.relays.groups.name
        if message.get("type") == MESSAGE and elsewhere and self.sockets:
            self.fold(message["racers"])

    def schedule(self) -> None:
        loop = asyncio.get_running_loop()
        wait = self.last + settings.RACE_PROGRESS_TICK_MS / 1000 - loop.time()
        self.timer = loop.call_later(max(0.0, wait), self.tick)

    def tick(self) -> None:
        self.timer = None
        if not self.sockets and self.relays.races.get(self.race.pk) is self:
            del self.relays.races[self.race.pk]  # its last socket left while the tick was due
        own = [live_racer(r) for r in self.marked.values() if r.status not in DONE]
        folded = list(self.folded.values())
        self.marked, self.folded = {}, {}
        if not own and not folded:
            return
        loop = asyncio.get_running_loop()
        self.last = loop.time()
        now = int(time.time() * 1000)
        at_ms = max(0, now - self.starts_ms)
        part = part_message(self.race.pk, own, at_ms, self.relays.groups.name) if own else None
        text = None
        if self.sockets:
            # With no racer of its own, this process's race may be as read before the start (no
            # start time): the frame is as of the latest figures folded in.
            if not own:
                at_ms = max(figures["at_ms"] for figures in folded)
            own_ids = {figures["id"] for figures in own}
            own += [
                figures if figures["at_ms"] != at_ms else _without_at(figures)
                for figures in folded
                if figures["id"] not in own_ids
            ]
            text = orjson.dumps(live_progress_frame(own, at_ms, now)).decode()
        loop.create_task(self.send(text, list(self.sockets), part))

    async def send(self, text: str | None, sockets: list, part: dict | None) -> None:
        """The tick's frame to this process's sockets, its figures to the other processes."""
        if part is not None:
            try:
                await group_send(self.group, part)
            except Exception:  # the next tick, or a resync, makes good what this one lost
                logger.exception("could not hand live progress to the other processes")
        for socket in sockets:
            try:
                await socket.base_send({"type": "websocket.send", "text": text})
            except Exception:  # closed meanwhile (it is leaving): the others still get theirs
                continue


def _without_at(figures: dict) -> dict:
    return {k: v for k, v in figures.items() if k != "at_ms"}


class Relays:
    """This process's (and event loop's) relays, each in its race's live group while a socket
    of the process shows the race (games/groups.py)."""

    def __init__(self) -> None:
        self.races: dict[int, RaceRelay] = {}
        self.groups = GROUPS.get()

    async def join(self, race: Race, socket) -> RaceRelay:
        """A socket of this process shows the race: it gets the race's live frames."""
        relay = self.races.get(race.pk)
        if relay is None:
            relay = self.races[race.pk] = RaceRelay(self, race)
        relay.sockets.add(socket)
        try:
            await self.groups.add(relay.group, relay)
        except BaseException:
            self.leave(race, socket)
            raise
        return relay

    def leave(self, race: Race, socket) -> None:
        relay = self.races.get(race.pk)
        if relay is None:
            return
        relay.sockets.discard(socket)
        if not relay.sockets:
            self.groups.discard(relay.group, relay)
            if relay.timer is None:  # else its tick, due, drops it
                del self.races[race.pk]


RELAYS: PerLoop[Relays] = PerLoop(Relays)
"""This event loop's relays (`RELAYS.get()`)."""
