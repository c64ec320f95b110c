"""Everything that changes a race (the `do_*` functions), in one transaction each.

Consumers and views parse and check the request's shape, then call one function here. Each
locks the race row first (so the race's events get consecutive numbers and two requests never
interleave), asks `races.lifecycle` whether the rules allow it, writes, and appends a numbered
`RaceEvent`; the event goes to the race's channel group after the commit. Moves are applied by
the games app's own actions (`do_play_move`, `do_undo`) on the racer's Game, inside the same
transaction, so a move and the progress it makes are stored together or not at all.

Every function here is synchronous (the ORM); consumers call them through
`database_sync_to_async`.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections import OrderedDict
from datetime import UTC, datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from redis.exceptions import RedisError

from games import rows
from games.actions import GameUpdate, do_create_game, do_play_move, do_undo
from games.deals import random_seed
from games.engine import VARIANT_INFO
from games.engine import Game as EngineGame
from games.layer import group_send_nowait
from games.models import MAX_SEED, Game, Player, Variant
from games.rankstore import get_rank_store
from races import lifecycle
from races.codes import new_code
from races.lifecycle import Phase, RacerStatus, RaceRuleError
from races.models import Race, RaceEvent, Racer
from races.standings import Progress

logger = logging.getLogger(__name__)

WINNABLE_BUDGET_S = 8.0
WINNABLE_SECONDS_PER_DEAL = 2.0
RESULTS_KEEP_S = 24 * 3600
"""How long a finished race's sorted set stays in the rank store (the database keeps it all)."""


# ------------------------------------------------------------------ clocks


def epoch_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def from_epoch_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def since_start_ms(race: Race, moment: datetime) -> int:
    """Milliseconds on the server's clock from the race start to `moment` (never negative)."""
    return max(0, int((moment - race.starts_at).total_seconds() * 1000))


def phase_of(race: Race, now: datetime | None = None) -> Phase:
    now = now or timezone.now()
    return lifecycle.phase(
        race.status, epoch_ms(race.starts_at), epoch_ms(race.ends_at), epoch_ms(now)
    )


# ------------------------------------------------------------------ reading


_RACER_FIELDS = rows.attnames(Racer)
# The game's snapshot is never read through a racer (the log is the record), and the start
# position only when the engine is rebuilt: both stay behind (deferred).
_GAME_FIELDS = rows.attnames(Game, exclude=("state", "start_state"))


@functools.cache
def _racer_sql() -> str:
    return (
        f"SELECT {rows.column_list(Racer, 'rc', _RACER_FIELDS)}, "
        f"{rows.column_list(Game, 'g', _GAME_FIELDS)} "
        f"FROM {Racer._meta.db_table} rc LEFT JOIN {Game._meta.db_table} g ON g.id = rc.game_id "
        "WHERE rc.race_id = %s AND rc.player_id = %s"
    )


def racer_of(race: Race, player: Player | None) -> Racer | None:
    """The player's racer in the race, with their game (hand-written SQL: games/rows.py)."""
    if player is None:
        return None
    row = rows.fetch_one(_racer_sql(), [race.pk, player.pk])
    if row is None:
        return None
    split = len(_RACER_FIELDS)
    racer = rows.instance(Racer, _RACER_FIELDS, row[:split])
    if racer.game_id is not None:
        racer.game = rows.instance(Game, _GAME_FIELDS, row[split:])
    return racer


def total_cards(variant: str) -> int:
    return 52 * VARIANT_INFO[variant]["decks"]


def standings_key(race: Race) -> str:
    """The race's sorted set (the code too, so a reused row id never meets an old set)."""
    return f"race:{race.pk}:{race.code}:standings"


def standing_member(racer: Racer) -> str:
    """The racer's member in the sorted set: the row id, zero-padded, so that equal scores
    (everyone at the start) fall back to the order of joining, as Redis sorts equal scores
    by member."""
    return f"{racer.pk:012d}"


def progress_of(racer: Racer) -> Progress:
    return Progress(
        member=standing_member(racer),
        cards=racer.cards,
        reached_ms=racer.cards_at_ms,
        won_ms=racer.finish_ms if racer.status == RacerStatus.WON else None,
    )


def standings(race: Race, moved: Racer | None = None) -> list[str]:
    """Racer ids best first, from the race's sorted set (rebuilt from the rows unless it holds
    exactly the race's racers: it may be gone, or partial after Redis restarted empty and only
    the racers who moved since were written back; or a write to it failed). `moved`: write that
    racer's score first, in the same round trip.

    The set is only an index of the rows: when Redis cannot be reached the same order is read
    from the rows, so a Redis blip never fails the move, start or close that asked (it used to
    roll the move back with `server_error`), and the set is rebuilt on its next read."""
    try:
        return _standings_from_index(race, moved)
    except RedisError:
        logger.warning("race %s: standings read from the rows (Redis unavailable)", race.code)
        _mark_stale(race)
        return _standings_from_rows(race)


def _standings_from_index(race: Race, moved: Racer | None) -> list[str]:
    store = get_rank_store()
    key = standings_key(race)
    ids = _members(race)
    stale = (race.pk, race.code) in _stale_indexes  # a write was missed: rebuild, whatever it holds
    if stale:
        members = []
    elif moved is None:
        members = [member for member, _ in store.range(key, 0, -1)]
    else:
        members = store.set_and_range(key, standing_member(moved), progress_of(moved).score)
    if stale or set(members) != set(ids):
        _write_index(race)
        members = [member for member, _ in store.range(key, 0, -1)]
    return [ids[member] for member in members if member in ids]


def _standings_from_rows(race: Race) -> list[str]:
    """The sorted set's order (score, then member, as Redis sorts) from the rows themselves."""
    racers = sorted(race.racers.all(), key=lambda r: (progress_of(r).score, standing_member(r)))
    return [racer.public_id for racer in racers]


# Races (pk, code) of this process whose sorted set missed a write while Redis was away: their
# next read rebuilds it. Bounded: past that many, all are forgotten (a set that holds
# every racer, one score stale, then mends with that racer's next move).
_stale_indexes: set[tuple[int, str]] = set()
_STALE_INDEXES_KEPT = 4096


_started_members: OrderedDict[tuple[int, str], dict[str, str]] = OrderedDict()
_STARTED_MEMBERS_KEPT = 4096


def _members(race: Race) -> dict[str, str]:
    """Sorted-set member -> racer id, for every racer of the race. Racers never change once the
    race has started, so a started race's map is kept in the process (a move needs no query)."""
    cache_key = (race.pk, race.code)
    if race.status != Race.Status.LOBBY:
        cached = _started_members.get(cache_key)
        if cached is not None:
            return cached
    # race_id too: the related manager reads it on every row, and a deferred field is a query.
    ids = {standing_member(r): r.public_id for r in race.racers.only("pk", "public_id", "race_id")}
    if race.status != Race.Status.LOBBY:
        _started_members[cache_key] = ids
        while len(_started_members) > _STARTED_MEMBERS_KEPT:
            _started_members.popitem(last=False)
    return ids


def _write_index(race: Race) -> None:
    """Write the race's sorted set afresh from the rows (RedisError when Redis is away)."""
    store = get_rank_store()
    key = standings_key(race)
    store.delete(key)
    store.set_many(key, {standing_member(r): progress_of(r).score for r in race.racers.all()})
    _stale_indexes.discard((race.pk, race.code))


def _index_write(race: Race, write) -> None:
    """`write()` to the race's sorted set; when Redis is away, mark the set stale (rebuilt on
    its next read) instead of failing the caller's transaction."""
    try:
        write()
    except RedisError:
        logger.warning("race %s: standings index not written (Redis unavailable)", race.code)
        _mark_stale(race)


def _mark_stale(race: Race) -> None:
    if len(_stale_indexes) >= _STALE_INDEXES_KEPT:
        _stale_indexes.clear()
    _stale_indexes.add((race.pk, race.code))


def _rebuild_standings(race: Race) -> None:
    _index_write(race, lambda: _write_index(race))


# ------------------------------------------------------------------ events


def _emit(race: Race, kind: str, /, **data) -> RaceEvent:
    """Number and store one event, and send it to the race's sockets after the commit.

    The caller holds the race row lock, so numbers are consecutive and never reused.
    """
    race.event_seq += 1
    event = RaceEvent(race=race, seq=race.event_seq, kind=kind, data=data, at=timezone.now())
    # Hand-written statements (games/rows.py): a race event is written for most moves.
    rows.update(Race, race.pk, {"event_seq": race.event_seq})
    rows.insert(
        RaceEvent,
        [{"race_id": race.pk, "seq": event.seq, "kind": kind, "data": data, "at": event.at}],
    )
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


# ------------------------------------------------------------------ the public shapes


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
    """The race as every socket sees it; the seed only once the race is over."""
    data = {
        "code": race.code,
        "url": race.get_absolute_url(),
        "variant": race.variant,
        "variant_name": race.get_variant_display(),
        "status": race.status,
        "phase": phase_of(race),
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
    }
    if race.is_over:
        data["seed"] = str(race.seed)  # 63 bits: more than a JavaScript number holds exactly
    return data


# ------------------------------------------------------------------ creating and joining


def winnable_seed(variant: str, budget_s: float | None = None) -> int:
    """A random deal the solver wins: the race pool's next (games.winnable; never a practice
    deal, whose number is public), else searched for `budget_s` seconds at most in all.

    The solver is asked about fresh random deals one after another, each with a share of what
    is left of the budget; a deal it proves won is taken. RaceRuleError (`no_winnable_deal`)
    if none is proved in time: some variants are rarely proved so fast, and the page says so.
    """
    from games.winnable import SolverBusy, Use, offers_winnable
    from games.winnable import winnable_seed as pooled_or_searched

    if not offers_winnable(variant):
        raise RaceRuleError(
            "no_winnable_deal",
            f"winnable deals are not offered for {variant}: the solver has never proved one",
        )
    budget = WINNABLE_BUDGET_S if budget_s is None else budget_s
    try:
        seed, _ = pooled_or_searched(variant, Use.RACE, budget, WINNABLE_SECONDS_PER_DEAL)
    except SolverBusy as exc:
        raise RaceRuleError(
            "solver_busy",
            "the solver is busy with other players' deals; try again in a moment, "
            "or race on a random deal",
        ) from exc
    if seed is not None:
        return seed
    raise RaceRuleError(
        "no_winnable_deal",
        "the solver proved no deal winnable in time; try again, or race on a random deal",
    )


def check_race_settings(variant: str, seed: int | None, max_players: int, time_limit_s) -> None:
    if variant not in Variant.values:
        raise RaceRuleError("unknown_variant", f"unknown variant {variant!r}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise RaceRuleError("bad_seed", f"a seed is an integer from 0 to {MAX_SEED}")
    lifecycle.check_max_players(max_players)
    lifecycle.check_time_limit(time_limit_s)


def do_create_race(
    host: Player,
    *,
    variant: str,
    seed: int | None = None,
    winnable: bool = False,
    max_players: int = lifecycle.MAX_PLAYERS,
    time_limit_s: int | None = None,
    visibility: str = Race.Visibility.LINK,
    name: str | None = None,
    racers: list[tuple[Player, str]] = (),
) -> Race:
    """A new race in the lobby with the host in it (and `racers`, for a rematch).

    A seed the host chose makes the race unranked; `winnable` asks the solver for a deal it can
    win (random deals only). The solver runs before any row is locked.
    """
    check_race_settings(variant, seed, max_players, time_limit_s)
    if visibility not in Race.Visibility.values:
        raise RaceRuleError("bad_visibility", "visibility is public or link")
    name = clean_name(name, host)
    seed_chosen = seed is not None
    if seed is None:
        seed = winnable_seed(variant) if winnable else random_seed(variant)
    for _ in range(20):
        try:
            with transaction.atomic():
                race = Race.objects.create(
                    code=new_code(),
                    host=host,
                    variant=variant,
                    seed=seed,
                    seed_chosen=seed_chosen,
                    winnable=winnable and not seed_chosen,
                    max_players=max_players,
                    time_limit_s=time_limit_s,
                    visibility=visibility,
                )
                break
        except IntegrityError:  # the rare code collision: draw another
            continue
    else:  # pragma: no cover - 29**6 codes
        raise RaceRuleError("server_error", "could not allocate a race code")
    with transaction.atomic():
        race = Race.objects.select_for_update().get(pk=race.pk)
        _add_racer(race, host, name or host.nickname)
        for player, racer_name in racers:
            if player.pk != host.pk and race.racers.count() < race.max_players:
                _add_racer(race, player, racer_name)
    return race


def clean_name(name: str | None, player: Player) -> str:
    """The nickname to race under: the one given (checked like a Player's), else the player's."""
    name = (name or "").strip()
    if not name:
        return player.nickname
    try:
        Player._meta.get_field("nickname").run_validators(name)
    except ValidationError as exc:
        raise RaceRuleError("bad_name", " ".join(exc.messages)) from exc
    return name


def _add_racer(race: Race, player: Player, name: str) -> Racer:
    racer = Racer.objects.create(race=race, player=player, name=name)
    _emit(race, "joined", racer=racer_dict(racer, race), standings=standings(race, moved=racer))
    return racer


_RACE_FIELDS = rows.attnames(Race)


@functools.cache
def _locked_sql() -> str:
    return (
        f"SELECT {rows.column_list(Race, 'r', _RACE_FIELDS)} FROM {Race._meta.db_table} r "
        f"WHERE r.id = %s{rows.for_update()}"
    )


def _locked(race: Race) -> Race:
    """The race row, fresh and locked until the transaction ends (hand-written SQL: it is read
    on every move; games/rows.py)."""
    row = rows.fetch_one(_locked_sql(), [race.pk])
    if row is None:
        raise Race.DoesNotExist(f"race {race.pk} is gone")
    return rows.instance(Race, _RACE_FIELDS, row)


def do_join_race(race: Race, player: Player, name: str | None = None) -> Racer:
    """Join the lobby (or, already in, be let back in and keep one's place)."""
    name = clean_name(name, player)
    with transaction.atomic():
        race = _locked(race)
        racer = racer_of(race, player)
        if racer is not None:
            return racer
        lifecycle.check_join(phase_of(race), race.racers.count(), race.max_players)
        return _add_racer(race, player, name)


def do_leave_race(race: Race, player: Player) -> None:
    """Leave the lobby; the host's role passes on, and an empty lobby is cancelled."""
    with transaction.atomic():
        race = _locked(race)
        racer = racer_of(race, player)
        lifecycle.check_lobby_action(phase_of(race), racer is not None)
        racer_id, member = racer.public_id, standing_member(racer)
        racer.delete()
        _index_write(race, lambda: get_rank_store().remove(standings_key(race), member))
        _emit(race, "left", racer=racer_id, standings=standings(race))
        if race.host_id == player.pk:
            successor = race.racers.order_by("joined_at", "pk").first()
            if successor is None:
                race.status = Race.Status.CANCELLED
                race.finished_at = timezone.now()
                race.save(update_fields=["status", "finished_at"])
                _emit(race, "cancelled", race=race_dict(race))
                return
            race.host_id = successor.player_id
            race.save(update_fields=["host"])
            _emit(race, "host", racer=successor.public_id)


def do_set_ready(race: Race, player: Player, ready: bool) -> None:
    """Toggle ready; when every racer (two or more) is ready the race starts."""
    with transaction.atomic():
        race = _locked(race)
        racer = racer_of(race, player)
        lifecycle.check_lobby_action(phase_of(race), racer is not None)
        if racer.ready != ready:
            racer.ready = ready
            racer.save(update_fields=["ready"])
            _emit(race, "ready", racer=racer.public_id, ready=ready)
        if lifecycle.should_autostart(list(race.racers.values_list("ready", flat=True))):
            _start(race)


def do_start_race(race: Race, player: Player) -> None:
    """The host starts the race (alone, too): the countdown begins on the server's clock."""
    with transaction.atomic():
        race = _locked(race)
        lifecycle.check_start(phase_of(race), race.host_id == player.pk, race.racers.count())
        _start(race)


def _start(race: Race) -> None:
    starts_ms, ends_ms = lifecycle.plan_start(epoch_ms(timezone.now()), race.time_limit_s)
    race.starts_at, race.ends_at = from_epoch_ms(starts_ms), from_epoch_ms(ends_ms)
    race.status = Race.Status.STARTED
    race.save(update_fields=["status", "starts_at", "ends_at"])
    for racer in race.racers.select_related("player"):
        game = do_create_game(racer.player, race.variant, race.seed, kind=Game.Kind.RACE)
        Game.objects.filter(pk=game.pk).update(started_at=race.starts_at)
        racer.game = game
        racer.status = RacerStatus.PLAYING
        racer.cards = EngineGame.from_dict(game.state).foundation_count()
        racer.save(update_fields=["game", "status", "cards"])
    _rebuild_standings(race)
    _emit(
        race,
        "countdown",
        race=race_dict(race),
        racers=[racer_dict(r, race) for r in race.racers.all()],
        standings=standings(race),
    )


# ------------------------------------------------------------------ racing


def _playing_racer(race: Race, player: Player | None, now: datetime) -> Racer:
    racer = racer_of(race, player)
    lifecycle.check_play(phase_of(race, now), None if racer is None else RacerStatus(racer.status))
    return racer


def do_race_move(race: Race, player: Player | None, move: str, seq: int) -> GameUpdate:
    """Play one move of the player's race game; the race's progress moves with it."""
    return _race_act(race, player, lambda game: do_play_move(game, move, seq, locked=True))


def do_race_undo(race: Race, player: Player | None, seq: int) -> GameUpdate:
    """Take back the racer's last move (a stuck racer plays on)."""
    return _race_act(race, player, lambda game: do_undo(game, seq, locked=True))


def _race_act(race, player, act) -> GameUpdate:
    """The race hot path (scripts/loadtest.py, docs/performance.md): the race row lock
    serialises every writer of the race's games, so the game is read with the racer and not
    locked again."""
    with transaction.atomic():
        race = _locked(race)
        now = timezone.now()
        racer = _playing_racer(race, player, now)
        update = act(racer.game)
        played = not update.duplicate and update.played
        if played and not _record_progress(race, racer, update, now):
            update = dataclasses.replace(update, announced=False)
    return update


def _announcement_due(racer: Racer, at_ms: int) -> bool:
    interval = settings.RACE_PROGRESS_INTERVAL_MS
    return racer.announced_ms is None or at_ms - racer.announced_ms >= interval


def _record_progress(race: Race, racer: Racer, update: GameUpdate, now: datetime) -> bool:
    """Store the racer's progress after a move; announce it (a `progress` event) when their
    cards home or status changed, or their last announcement is `RACE_PROGRESS_INTERVAL_MS`
    old. True if announced.

    Held back, a move changes only the racer's move count: the standings (cards, then time)
    and the results chart (cards over time) miss nothing, and the event count per move falls
    from one to about one per interval per racer (each event is a row and a frame to every
    socket of the race)."""
    game = update.game
    before = (racer.cards, racer.status)
    at_ms = since_start_ms(race, now)
    if update.home != racer.cards:
        racer.cards = update.home
        racer.cards_at_ms = at_ms
    racer.moves = game.move_count
    racer.status = lifecycle.racer_status_after(
        won=game.status == Game.Status.WON, stuck=game.status == Game.Status.STUCK
    )
    if racer.status == RacerStatus.WON:
        racer.finish_ms = racer.done_ms = since_start_ms(race, game.finished_at)
    announce = (racer.cards, racer.status) != before or _announcement_due(racer, at_ms)
    if announce:
        racer.announced_ms = at_ms
    fields = ("cards", "cards_at_ms", "moves", "status", "finish_ms", "done_ms", "announced_ms")
    rows.update(Racer, racer.pk, {name: getattr(racer, name) for name in fields})
    if announce:
        _progress_event(race, racer)
    return announce


def do_announce(race: Race, player: Player | None, held_ms: int) -> int | None:
    """Announce the racer's moves held back since `held_ms` (epoch ms: the last such move's
    acknowledgement), unless an announcement has covered them since. The racer's socket calls
    this once the interval has passed; None when nothing is left to announce, else the ms to
    wait before asking again (an announcement came too recently for another)."""
    with transaction.atomic():
        race = _locked(race)
        now = timezone.now()
        racer = racer_of(race, player)
        if racer is None or phase_of(race, now) != Phase.RUNNING:
            return None
        if RacerStatus(racer.status) in lifecycle.DONE:
            return None
        at_ms = since_start_ms(race, now)
        held_at = since_start_ms(race, from_epoch_ms(held_ms))
        if racer.announced_ms is not None and racer.announced_ms >= held_at:
            return None
        if not _announcement_due(racer, at_ms):
            return racer.announced_ms + settings.RACE_PROGRESS_INTERVAL_MS - at_ms
        racer.announced_ms = at_ms
        racer.save(update_fields=["announced_ms"])
        _progress_event(race, racer)
        return None


def _progress_event(race: Race, racer: Racer) -> None:
    _emit(
        race,
        "progress",
        racer=racer_dict(racer, race),
        standings=standings(race, moved=racer),
        at_ms=since_start_ms(race, timezone.now()),
    )
    if RacerStatus(racer.status) not in lifecycle.DONE:
        return  # only a racer who has just finished can complete the race
    statuses = [RacerStatus(s) for s in race.racers.values_list("status", flat=True)]
    if lifecycle.is_complete(statuses):
        _close(race, reason="all_done")


def do_resign(race: Race, player: Player | None) -> None:
    """Give up: the racer's game ends, they rank by the cards they reached."""
    with transaction.atomic():
        race = _locked(race)
        now = timezone.now()
        racer = _playing_racer(race, player, now)
        _end_game(racer.game, now)
        racer.status = RacerStatus.RESIGNED
        racer.done_ms = since_start_ms(race, now)
        racer.save(update_fields=["status", "done_ms"])
        _progress_event(race, racer)


def _end_game(game: Game, now: datetime) -> None:
    """Close a race game that will get no more moves (the games app has no resign action)."""
    Game.objects.filter(pk=game.pk, status__in=[Game.Status.PLAYING, Game.Status.STUCK]).update(
        status=Game.Status.RESIGNED, finished_at=now
    )


# ------------------------------------------------------------------ the end


def do_close_if_due(race: Race) -> bool:
    """Close a race whose time is up (the scheduled check, and any late look at it).

    Idempotent: whoever comes first closes it; True if this call did.
    """
    with transaction.atomic():
        race = _locked(race)
        if phase_of(race) != Phase.OVERTIME:
            return False
        _close(race, reason="time_limit")
        return True


def _close(race: Race, reason: str) -> None:
    now = timezone.now()
    end = min(now, race.ends_at)
    for racer in race.racers.select_related("game").filter(
        status__in=[RacerStatus.PLAYING, RacerStatus.STUCK, RacerStatus.WAITING]
    ):
        racer.status = lifecycle.status_at_close(RacerStatus(racer.status))
        racer.done_ms = since_start_ms(race, end)
        racer.save(update_fields=["status", "done_ms"])
        if racer.game is not None:
            _end_game(racer.game, end)
    _rebuild_standings(race)
    order = standings(race)
    places = {racer_id: place for place, racer_id in enumerate(order, 1)}
    for racer in race.racers.all():
        racer.place = places.get(racer.public_id)
        racer.save(update_fields=["place"])
    race.status = Race.Status.FINISHED
    race.finished_at = now
    race.save(update_fields=["status", "finished_at"])
    _index_write(race, lambda: get_rank_store().expire(standings_key(race), RESULTS_KEEP_S))
    _emit(
        race,
        "finished",
        reason=reason,
        race=race_dict(race),
        racers=[racer_dict(r, race) for r in race.racers.select_related("game")],
        standings=order,
    )


def do_rematch(race: Race, player: Player) -> Race:
    """The same racers on a new deal, in a new lobby; everyone on the old race is sent there.

    One click from any racer once the race is over; later clicks (anyone's) find the same
    rematch. The new race is made before the old one is locked (the solver may take a moment);
    if someone else's click linked a rematch meanwhile, ours is dropped and theirs returned.
    """
    race.refresh_from_db()
    if race.rematch_id is None:
        racer = racer_of(race, player)
        if racer is None:
            raise RaceRuleError("not_in_race", "only the race's racers can ask for a rematch")
        if not race.is_over:
            raise RaceRuleError("race_not_over", "a rematch comes after the race")
        new = do_create_race(
            player,
            variant=race.variant,
            winnable=race.winnable,
            max_players=race.max_players,
            time_limit_s=race.time_limit_s,
            visibility=race.visibility,
            name=racer.name,
            racers=[(r.player, r.name) for r in race.racers.select_related("player")],
        )
        with transaction.atomic():
            race = _locked(race)
            if race.rematch_id is None:
                race.rematch = new
                race.save(update_fields=["rematch"])
                _emit(race, "rematch", code=new.code, url=new.get_absolute_url())
                return new
        new.delete()
    return Race.objects.get(pk=race.rematch_id)
