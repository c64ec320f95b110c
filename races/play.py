"""A race move: the race's rules checked against what the racer's socket holds in memory (the
race's clock and status, the racer's progress), then the game's own move path (games/play.py)
with the racer's new progress written in the same batch.

Progress reaches the race's sockets live, not through the record: at most one `progress` frame a
tick (`RACE_PROGRESS_TICK_MS`) per socket, carrying every racer whose progress changed since, as
it stands in memory after their acknowledged moves, whichever process they play on
(races/relay.py). It is not numbered and not stored: the racer rows, written with each move,
are the record of where everyone is (snapshots read them), and a racer's cards over time are
kept in the row too, for the results chart. A finish is different: it is a numbered event, stored in the move's own batch.

The race row is not read or locked for a move: its clock decides the phase, and what can end a
racer's play from elsewhere (a close, a resignation in another tab) ends the game row first,
which the store's compare-and-set sees. A seat that may be out of date (a refused or failed
write, a resend) is read again before the next move.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from games import store
from games.live import GameUpdate, GameWrite, LiveGame, RacerWrite
from games.models import Game, Player
from races import events, lifecycle, relay
from races.clock import phase_of, since_start_ms
from races.lifecycle import RacerStatus, RaceRuleError
from races.models import Race, Racer


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
        """The write was stored: the racer is where it says."""
        racer = self.racer
        racer.cards, racer.cards_at_ms, racer.moves = write.cards, write.cards_at_ms, write.moves
        racer.status, racer.finish_ms, racer.done_ms = write.status, write.finish_ms, write.done_ms


def progress_after(race: Race, racer: Racer, live: LiveGame, now: datetime) -> RacerWrite:
    """The racer's progress once the move is in `live`: cards home (and when reached), moves,
    status; `announce` (a numbered `progress` event in the move's batch) when the move ends the
    racer's play."""
    cards, cards_at_ms = racer.cards, racer.cards_at_ms
    if live.home != cards:
        cards, cards_at_ms = live.home, since_start_ms(race, now)
    status = lifecycle.racer_status_after(
        won=live.status == Game.Status.WON, stuck=live.status == Game.Status.STUCK
    )
    finish_ms = done_ms = None
    if status == RacerStatus.WON:
        finish_ms = done_ms = since_start_ms(race, live.finished_at)
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
        announce=status in lifecycle.DONE and status != racer.status,
    )


def seat_of(race: Race, player: Player | None) -> Seat | None:
    """The racer's seat, read from the record (ORM; sync)."""
    race = Race.objects.get(pk=race.pk)
    racer = Racer.objects.select_related("game").filter(race=race, player=player).first()
    if player is None or racer is None:
        return None
    return Seat(race=race, racer=racer)


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
        written.append(write)

    update = act(seat.racer.game, action, seq, move, extend=extend)
    if written and not update.duplicate and not written[-1].racer.announce:
        seat.adopt(written[-1].racer)  # no tick here: every process's relay hears of it at once
        part = relay.part_message(seat.race, [seat.racer])
        events.broadcast(relay.live_group(seat.race), part)
    return update


def closes_races(applied: list[GameWrite], result: store.BatchResult) -> bool:
    """Whether a stored batch may have completed a race (someone in it finished)."""
    return bool(result.finished_races)


def after_batch(applied: list[GameWrite], result: store.BatchResult) -> None:
    """Once a batch is stored (games/writer.py): the close of a race whose last racer has just
    finished."""
    from races import actions

    for race_pk in result.finished_races:
        actions.close_if_complete(race_pk)
