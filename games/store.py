"""The move path's storage: a batch of moves (any games, any processes' worth of sockets), written
in one transaction.

Every write is a compare-and-set: a game's row changes, and its Move rows are added, only
where the stored game is still at the `seq` the move was checked against and unfinished.
That, not a lock taken beforehand, is what keeps a move exactly-once when two sockets (two
tabs, two processes) send one at the same `seq`: the second writer finds the row moved on and
its write is refused (`BatchResult.conflicts`). A racer's progress and a daily attempt's
result are written with their game's move, or not at all; so is the racer's cards over time
(`Racer.curve`, a point added whenever the count changes), which the results chart draws.

A move that ends a racer's play (a win) is announced to the race as a numbered event. Events
need consecutive numbers, so a batch with a finish locks those races' rows first (in id order,
so two processes' batches never deadlock), then writes the moves, reads the racers of those
races for the standings, and appends the events. Any other move's progress goes out live, not
through the record (races/play.py). Closing and resigning end a game by setting its status,
which the compare-and-set sees.

Two ways to run the same batch (`MoveStore`): `OrmStore`, plain Django ORM, one statement per
row (SQLite, and the reference); `PostgresStore`, a few statements per batch whatever its size
(`unnest` arrays, one statement for games, moves, racers and attempts together). Which one
runs is `settings.MOVE_STORE` (`auto`: PostgresStore on PostgreSQL); docs/performance.md has
what each costs.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field

import orjson
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from psycopg import Cursor
from psycopg.types.json import Jsonb

from daily.models import DailyAttempt
from games.live import GameWrite
from games.models import Game, Move
from races.lifecycle import DONE
from races.models import Race, RaceEvent, Racer

UNFINISHED = (Game.Status.PLAYING, Game.Status.STUCK)


@dataclass
class Event:
    race_pk: int
    group: str
    frame: dict


@dataclass
class BatchResult:
    applied: set[int] = field(default_factory=set)
    """Game pks whose write was applied."""
    conflicts: set[int] = field(default_factory=set)
    """Game pks whose stored row had moved on (another writer, a close, a resignation)."""
    events: list[Event] = field(default_factory=list)
    """Race events written, to send after the commit, in order."""
    finished_races: set[int] = field(default_factory=set)
    """Races in which a racer finished: the race may be complete."""


# ------------------------------------------------------------------ the batch


def one_a_game(writes: list[GameWrite]) -> list[GameWrite]:
    """The batch with one write a game: a second write to a game in the same batch is left out,
    found a conflict, and its socket reloads the game and tries again."""
    if len({w.pk for w in writes}) == len(writes):
        return writes
    seen: set[int] = set()
    return [w for w in writes if not (w.pk in seen or seen.add(w.pk))]


def announcing_races(writes: list[GameWrite]) -> list[int]:
    """The races a batch announces a finish to, in the order their rows are locked. A batch
    with none is one statement (`apply`), atomic by itself, with no lock."""
    return sorted({w.racer.race_pk for w in writes if w.racer and w.racer.announce})


def result_of(writes: list[GameWrite], applied: set[int], events=()) -> BatchResult:
    return BatchResult(
        applied=applied,
        conflicts={w.pk for w in writes} - applied,
        events=list(events),
        finished_races={
            w.racer.race_pk
            for w in writes
            if w.racer and w.pk in applied and w.racer.status in DONE
        },
    )


def write(writes: list[GameWrite]) -> BatchResult:
    """Write a batch in one transaction (sync: the writer's thread, or a caller's)."""
    return store().write(writes)


@functools.cache
def _store_for(kind: str, vendor: str) -> MoveStore:
    if kind == "postgres" or (kind == "auto" and vendor == "postgresql"):
        return PostgresStore()
    return OrmStore()


def store() -> MoveStore:
    return _store_for(settings.MOVE_STORE, connection.vendor)


class MoveStore:
    """One batch: lock the races with a finish, compare-and-set the games, write the rest."""

    def write(self, writes: list[GameWrite]) -> BatchResult:
        writes = one_a_game(writes)
        race_pks = announcing_races(writes)
        if not race_pks:
            return result_of(writes, self.apply(writes))  # atomic by itself
        with transaction.atomic():
            races = self.lock_races(race_pks)
            applied = self.apply(writes)
            racers = self.racers_of(race_pks)
            events = self.announce(races, racers, writes, applied)
        return result_of(writes, applied, events)

    def announce(self, races, racers, writes, applied) -> list[Event]:
        """Number and store one `progress` event per race for the racers whose applied move
        ended their play."""
        from races.events import progress_frame

        now = timezone.now()
        due: dict[int, list[int]] = defaultdict(list)  # race pk -> racer pks, in order
        for w in writes:
            if w.racer and w.racer.announce and w.pk in applied:
                due[w.racer.race_pk].append(w.racer.pk)
        by_pk = {racer.pk: racer for group in racers.values() for racer in group}
        events: list[Event] = []
        for race_pk, racer_pks in due.items():
            race = races[race_pk]
            at_ms = max(0, int((now - race.starts_at).total_seconds() * 1000))
            moved = [by_pk[pk] for pk in racer_pks]
            race.event_seq += 1
            frame = progress_frame(race, moved, racers[race_pk], race.event_seq, at_ms)
            events.append(Event(race.pk, race.group_name, frame))
        if events:
            self.add_events(races, events, now)
        return events

    def lock_races(self, race_pks: list[int]) -> dict[int, Race]:
        raise NotImplementedError

    def apply(self, writes: list[GameWrite]) -> set[int]:
        raise NotImplementedError

    def racers_of(self, race_pks: list[int]) -> dict[int, list[Racer]]:
        raise NotImplementedError

    def add_events(self, races, events: list[Event], now) -> None:
        raise NotImplementedError


class OrmStore(MoveStore):
    """The batch through the ORM: a statement per row (SQLite, and the reference)."""

    def lock_races(self, race_pks):
        locked = Race.objects.select_for_update().filter(pk__in=race_pks).order_by("pk")
        return {race.pk: race for race in locked}

    def apply(self, writes):
        with transaction.atomic():  # a statement per row: one transaction for them all
            return self._apply(writes)

    def _apply(self, writes):
        applied = set()
        for w in writes:
            fields = {
                "seq": w.new_seq,
                "move_count": w.move_count,
                "status": w.status,
                "finished_at": w.finished_at,
            }
            if w.state is not None:
                fields["state"] = w.state
            cas = Game.objects.filter(pk=w.pk, seq=w.old_seq, status__in=UNFINISHED)
            if cas.update(**fields):
                applied.add(w.pk)
        done = [w for w in writes if w.pk in applied]
        Move.objects.bulk_create(
            Move(game_id=w.pk, seq=w.old_seq + i, move=move, at=w.at)
            for w in done
            for i, move in enumerate(w.moves, 1)
        )
        for w in done:
            if w.racer is not None:
                r = w.racer
                progress = {
                    "cards": r.cards,
                    "cards_at_ms": r.cards_at_ms,
                    "moves": r.moves,
                    "status": r.status,
                    "finish_ms": r.finish_ms,
                    "done_ms": r.done_ms,
                }
                before = Racer.objects.filter(pk=r.pk).values("cards", "curve").first()
                if before is not None and before["cards"] != r.cards:
                    progress["curve"] = [*before["curve"], [r.cards_at_ms, r.cards]]
                Racer.objects.filter(pk=r.pk).update(**progress)
            if w.attempt is not None:
                a = w.attempt
                DailyAttempt.objects.filter(pk=a.pk).update(
                    foundations=a.foundations,
                    foundations_ms=a.foundations_ms,
                    elapsed_ms=a.elapsed_ms,
                )
        return applied

    def racers_of(self, race_pks):
        racers = defaultdict(list)
        for racer in Racer.objects.filter(race_id__in=race_pks).order_by("joined_at", "pk"):
            racers[racer.race_id].append(racer)
        return racers

    def add_events(self, races, events, now):
        RaceEvent.objects.bulk_create(
            RaceEvent(
                race_id=e.race_pk,
                seq=e.frame["event"],
                kind=e.frame["type"],
                data=event_data(e.frame),
                at=now,
            )
            for e in events
        )
        for race_pk in {e.race_pk for e in events}:
            Race.objects.filter(pk=race_pk).update(event_seq=races[race_pk].event_seq)


def event_data(frame: dict) -> dict:
    """What a RaceEvent row keeps of its frame: all but the type and the number."""
    return {k: v for k, v in frame.items() if k not in ("type", "event")}


# ------------------------------------------------------------------ PostgreSQL


class PostgresStore(MoveStore):
    """The batch in a fixed number of statements, whatever its size: rows travel as arrays
    (`unnest`), and one statement compare-and-sets the games and, for those applied, adds
    their moves and writes their racers and attempts. Statements are prepared on the server
    (psycopg's `prepare=True`; Django's own cursors bind on the client and prepare nothing)."""

    def cursor(self) -> Cursor:
        """A server-binding cursor on Django's connection, with preparing switched on.

        Django opens its psycopg connections with `prepare_threshold=None`, which makes psycopg
        ignore `prepare=True`: every batch was parsed and planned afresh (1.3 ms of PostgreSQL's
        CPU a batch, more than running it). Django's own cursors bind on the client and are
        never prepared, so this changes nothing for them."""
        connection.ensure_connection()
        raw = connection.connection
        if raw.prepare_threshold is None:
            raw.prepare_threshold = PREPARE_THRESHOLD
        return Cursor(raw)

    def lock_races(self, race_pks):
        with self.cursor() as cur:
            cur.execute(LOCK_RACES, [race_pks], prepare=True)
            names = ("id", "code", "host_id", "status", "starts_at", "ends_at", "event_seq")
            return {row[0]: Race(**dict(zip(names, row, strict=True))) for row in cur}

    def apply(self, writes):
        if not writes:
            return set()
        with self.cursor() as cur:
            cur.execute(APPLY, [apply_param(writes)], prepare=True)
            return {row[0] for row in cur}

    def racers_of(self, race_pks):
        racers = defaultdict(list)
        with self.cursor() as cur:
            cur.execute(_racers_sql(), [race_pks], prepare=True)
            for row in cur:
                racer = RacerRow(*row)
                racers[racer.race_id].append(racer)
        return racers

    def add_events(self, races, events, now):
        race_pks = sorted({e.race_pk for e in events})
        batch = {
            "e": [
                {
                    "race_id": e.race_pk,
                    "seq": e.frame["event"],
                    "kind": e.frame["type"],
                    "data": event_data(e.frame),
                }
                for e in events
            ],
            "race": [{"id": pk, "seq": races[pk].event_seq} for pk in race_pks],
        }
        with self.cursor() as cur:
            cur.execute(ADD_EVENTS, [Jsonb(batch, dumps=dumps_json), now], prepare=True)


def dumps_json(obj) -> str:
    """A batch as JSON text for psycopg (orjson: a fifth of the standard library's time)."""
    return orjson.dumps(obj).decode()


def apply_param(writes: list[GameWrite]) -> Jsonb:
    """`APPLY`'s one parameter: the batch's games, moves, racers and attempts as JSON arrays."""
    batch = {
        "g": [
            {
                "id": w.pk,
                "old_seq": w.old_seq,
                "new_seq": w.new_seq,
                "move_count": w.move_count,
                "status": w.status,
                "finished_at": w.finished_at and w.finished_at.isoformat(),
                "state": w.state,
            }
            for w in writes
        ],
        "m": [
            {"game_id": w.pk, "seq": w.old_seq + i, "move": move, "at": w.at.isoformat()}
            for w in writes
            for i, move in enumerate(w.moves, 1)
        ],
        "r": [
            {
                "game_id": w.pk,
                "id": r.pk,
                "cards": r.cards,
                "cards_at": r.cards_at_ms,
                "moves": r.moves,
                "status": r.status,
                "finish": r.finish_ms,
                "done": r.done_ms,
            }
            for w in writes
            if (r := w.racer) is not None
        ],
        "a": [
            {
                "game_id": w.pk,
                "id": a.pk,
                "found": a.foundations,
                "found_ms": a.foundations_ms,
                "elapsed": a.elapsed_ms,
            }
            for w in writes
            if (a := w.attempt) is not None
        ],
    }
    return Jsonb(batch, dumps=dumps_json)


PREPARE_THRESHOLD = 5
"""psycopg's: a server-binding statement run this often is prepared (the store's own statements
ask for it at once with `prepare=True`)."""

LOCK_RACES = """
SELECT id, code, host_id, status, starts_at, ends_at, event_seq
FROM races_race WHERE id = ANY(%s::bigint[]) ORDER BY id FOR UPDATE
"""

APPLY = """
WITH b AS (SELECT %s::jsonb AS b), v AS (
    SELECT v.* FROM b, jsonb_to_recordset(b.b -> 'g') AS v(
        id bigint, old_seq int, new_seq int, move_count int, status text,
        finished_at timestamptz, state jsonb
    )
), g AS (
    UPDATE games_game g
    SET seq = v.new_seq, move_count = v.move_count, status = v.status,
        finished_at = v.finished_at,
        state = CASE WHEN jsonb_typeof(v.state) = 'object' THEN v.state ELSE g.state END
    FROM v
    WHERE g.id = v.id AND g.seq = v.old_seq AND g.status IN ('playing', 'stuck')
    RETURNING g.id
), m AS (
    INSERT INTO games_move (game_id, seq, move, at)
    SELECT mv.game_id, mv.seq, mv.move, mv.at
    FROM b, jsonb_to_recordset(b.b -> 'm') AS mv(game_id bigint, seq int, move text, at timestamptz)
    JOIN g ON g.id = mv.game_id
), r AS (
    UPDATE races_racer rc
    SET cards = x.cards, cards_at_ms = x.cards_at, moves = x.moves, status = x.status,
        finish_ms = x.finish, done_ms = x.done,
        curve = CASE WHEN rc.cards = x.cards THEN rc.curve
                ELSE rc.curve || jsonb_build_array(jsonb_build_array(x.cards_at, x.cards)) END
    FROM b, jsonb_to_recordset(b.b -> 'r') AS x(
        game_id bigint, id bigint, cards int, cards_at int, moves int, status text,
        finish int, done int
    )
    JOIN g ON g.id = x.game_id
    WHERE rc.id = x.id
), a AS (
    UPDATE daily_dailyattempt da
    SET foundations = y.found, foundations_ms = y.found_ms, elapsed_ms = y.elapsed
    FROM b, jsonb_to_recordset(b.b -> 'a') AS y(
        game_id bigint, id bigint, found int, found_ms bigint, elapsed bigint
    )
    JOIN g ON g.id = y.game_id
    WHERE da.id = y.id
)
SELECT id FROM g
"""

ADD_EVENTS = """
WITH b AS (SELECT %s::jsonb AS b), e AS (
    INSERT INTO races_raceevent (race_id, seq, kind, data, at)
    SELECT e.race_id, e.seq, e.kind, e.data, %s::timestamptz
    FROM b, jsonb_to_recordset(b.b -> 'e') AS e(race_id bigint, seq int, kind text, data jsonb)
)
UPDATE races_race r SET event_seq = x.seq
FROM b, jsonb_to_recordset(b.b -> 'race') AS x(id bigint, seq int)
WHERE r.id = x.id
"""


RACER_COLUMNS = (
    "id",
    "public_id",
    "race_id",
    "player_id",
    "name",
    "game_id",
    "ready",
    "status",
    "cards",
    "cards_at_ms",
    "moves",
    "finish_ms",
    "done_ms",
    "place",
)


@dataclass(slots=True)
class RacerRow:
    """A racer as an announcement reads it: the fields of `Racer` that events and standings
    use (building a model instance for each racer of each announcing race cost more than the
    query)."""

    id: int
    public_id: str
    race_id: int
    player_id: int
    name: str
    game_id: int | None
    ready: bool
    status: str
    cards: int
    cards_at_ms: int
    moves: int
    finish_ms: int | None
    done_ms: int | None
    place: int | None

    @property
    def pk(self) -> int:
        return self.id


@functools.cache
def _racers_sql() -> str:
    return (
        f"SELECT {', '.join(RACER_COLUMNS)} FROM races_racer "
        "WHERE race_id = ANY(%s::bigint[]) ORDER BY joined_at, id"
    )
