"""Everything that changes a race outside its moves (the `do_*` functions), in one transaction
each: the lobby, the start, resigning, closing, rematches.

Consumers and views parse and check the request's shape, then call one function here. Each
locks the race row first (so the race's events get consecutive numbers and two requests never
interleave), asks `races.lifecycle` whether the rules allow it, writes, and appends a numbered
`RaceEvent` (races/events.py). Moves take the move path instead (races/play.py, through the
writer's batches): a close or a resignation ends the racer's game first, which the move
path's compare-and-set sees, so a move and a close never both win.

Every function here is synchronous (the ORM); consumers call them in worker threads.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from games.actions import create_deal_games, do_create_games, do_end_game, do_end_games
from games.deals import random_seed
from games.engine import Game as EngineGame
from games.identity import check_name_free
from games.models import MAX_SEED, Game, Player, Variant
from games.play import LiveGame, load
from games.rows import one_or_none, update_rows
from games.storage import BatchPart, register
from races import events, lifecycle, play
from races.clock import epoch_ms, from_epoch_ms, phase_of, since_start_ms
from races.codes import new_code
from races.deals import placed_deals, pooled_winnable, winnable_seed
from races.events import emit, emit_all, event_frame, race_dict, racer_dict
from races.lifecycle import Phase, RacerStatus, RaceRuleError
from races.models import Race, RaceEvent, Racer
from races.ratings.updates import apply_ratings, withheld_in
from races.standings import standing_order

logger = logging.getLogger(__name__)


@dataclass
class Closing:
    """A race in its close, under its row's lock: the race, all its racers as stored (their
    games and players read with them, places set) and, read once when first asked, the players
    whose result counts for nothing (`withheld`: the ratings' rule, which an arena's points
    follow too). A follower adds the events that follow the race's `finished` (kind, data) to
    `events`: the close stores and sends them with it, in one write and one message."""

    race: Race
    racers: list[Racer]
    events: list[tuple[str, dict]] = field(default_factory=list)

    @cached_property
    def withheld(self) -> set[int]:
        return withheld_in(self.race)


ON_CLOSE: list[Callable[[Closing], None]] = []
"""Called in a race's close (`Closing`), in its transaction with its row locked, its places set
and its `finished` event about to be stored: an app above registers what follows a race's result
(the arenas record their points, and add the event that sends the racers back to the arena)."""


@dataclass(frozen=True)
class Owner:
    """An event that places a race's racers itself (an arena): the race has no rematch, nobody
    joins it by its code, and its pages name the event and link back to it."""

    kind: str
    """What it is, for "Back to the …" ("arena")."""
    name: str
    url: str
    ends_at: datetime | None = None
    """When the event ends: the race's page counts its time left down to it, in its header."""
    pause_url: str | None = None
    """Where a racer sits out the event's next races (a POST), for the page that waits for the
    next race after this one (an arena's)."""
    next_race: dict | None = None
    """What that page needs to wait for the next race (an arena's: its id, page and end)."""


OWNERS: list[Callable[[Race], Owner | None]] = []
"""Asked which event a race belongs to: an app above that places races registers its answer
(the arenas: the race's arena), None for a race of none."""


def owner_of(race: Race) -> Owner | None:
    for ask in OWNERS:
        owner = ask(race)
        if owner is not None:
            return owner
    return None


def racer_of(race: Race, player: Player | None) -> Racer | None:
    """The player's racer in the race, with their game and the race as it stands now (one
    read)."""
    if player is None:
        return None
    return one_or_none(
        Racer.objects.select_related("game", "race").filter(race=race, player=player)
    )


def is_racer(race: Race, player: Player | None) -> bool:
    """Whether the player races in the race (what a page shows differs; nothing of the racer's
    row or game is read)."""
    return player is not None and race.racers.filter(player=player).exists()


def check_done(racer: Racer | None) -> None:
    """The player's racer (None: not in the race), read with their race as it stands now, will
    make no more moves in it: won, resigned or out of time, or the race's time is up (what a
    racer who waits for their next race must be)."""
    if racer is None:
        raise RaceRuleError("not_in_race", "you are not racing in this race")
    over = phase_of(racer.race) in (Phase.OVERTIME, Phase.FINISHED, Phase.CANCELLED)
    if racer.status not in lifecycle.DONE and not over:
        raise RaceRuleError(
            "still_racing", "you are still racing in this race: finish or resign it first"
        )


def _locked(race: Race) -> Race:
    """The race row, fresh and locked until the transaction ends."""
    return Race.objects.select_for_update(no_key=True).get(pk=race.pk)


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
    rated: bool = False,
) -> Race:
    """A new race in the lobby with the host in it (and `racers`, for a rematch).

    A seed the host chose makes the race unranked (and it cannot be rated: the host may know
    the deal); `winnable` asks for a deal the solver proved it can win (random deals only): the
    race pool's, at once, or, with the pool empty, a random deal for now, replaced at the start
    by the one a background search puts in the pool meanwhile (`races.deals`). No solver runs
    here.
    """
    check_race_settings(variant, seed, max_players, time_limit_s)
    if visibility not in Race.Visibility.values:
        raise RaceRuleError("bad_visibility", "visibility is public or link")
    name = clean_name(name, host)
    seed_chosen = seed is not None
    if rated and seed_chosen:
        raise RaceRuleError("rated_chosen_deal", "a race on a deal the host chose cannot be rated")
    proved = None
    if seed is None:
        proved = winnable_seed(variant) if winnable else None
        seed = random_seed(variant) if proved is None else proved
    race = new_race(
        host=host,
        variant=variant,
        seed=seed,
        seed_chosen=seed_chosen,
        winnable=proved is not None,
        wants_winnable=winnable and not seed_chosen,
        max_players=max_players,
        time_limit_s=time_limit_s,
        visibility=visibility,
        rated=rated,
    )
    others = [(player, racer_name) for player, racer_name in racers if player.pk != host.pk]
    with transaction.atomic():
        race = Race.objects.select_for_update(no_key=True).get(pk=race.pk)
        add_racers(race, [(host, name or host.nickname)] + others[: race.max_players - 1])
    return race


def new_race(**fields) -> Race:
    """A race row with a fresh code."""
    race = Race(**fields)
    insert_with_codes([race])
    return race


def insert_with_codes(races: list[Race]) -> None:
    """Insert new races together, each with a fresh code, in a savepoint of its own: the rare
    collision with a stored code draws the codes again."""
    for _ in range(20):
        for race in races:
            race.code = new_code()
        try:
            with transaction.atomic():
                Race.objects.bulk_create(races)
                return
        except IntegrityError:
            continue
    raise RaceRuleError("server_error", "could not allocate a race code")  # pragma: no cover


def clean_name(name: str | None, player: Player) -> str:
    """The nickname to race under: the one given (checked like a Player's, and free:
    `check_name_free`), else the player's."""
    name = (name or "").strip()
    if not name:
        return player.nickname
    try:
        Player._meta.get_field("nickname").run_validators(name)
        check_name_free(name, player)
    except ValidationError as exc:
        if exc.error_list[0].code == "taken":
            raise RaceRuleError("name_taken", exc.messages[0]) from exc
        raise RaceRuleError("bad_name", " ".join(exc.messages)) from exc
    return name


def adopt_name(player: Player, name: str | None) -> None:
    """The name a player gives to race under becomes their nickname: one name for one person,
    in the header, the races and the boards (a rematch keeps the names and changes nothing).
    Taken by another meanwhile (since `clean_name` found it free), the player keeps their own."""
    name = (name or "").strip()
    if name and name != player.nickname:
        player.nickname = name
        try:
            with transaction.atomic():
                player.save(update_fields=["nickname"])
        except IntegrityError:
            player.refresh_from_db(fields=["nickname"])


def add_racer(race: Race, player: Player, name: str) -> Racer:
    """A new racer in the locked race's lobby (and a quick race's lobby clock moved on)."""
    return add_racers(race, [(player, name)])[0]


def add_racers(race: Race, entrants: list[tuple[Player, str]]) -> list[Racer]:
    """New racers (player, name) in the locked race's lobby, in order, inserted together: a
    `joined` event each, its standings those of the racers in so far (everyone at the start:
    the order of joining), and a quick race's lobby clock moved on once."""
    before = list(race.racers.all())
    racers = Racer.objects.bulk_create(
        [Racer(race=race, player=player, name=name) for player, name in entrants]
    )
    emit_all(race, joined_events(race, before, racers))
    update_autostart(race)
    return racers


def add_late_racer(race: Race, player: Player, name: str) -> Racer:
    """A new racer in the locked race's countdown (an event's placement: an arena's lone free
    player put in a race that has room rather than left waiting for a second one): a game of
    their own on the race's deal, started with the race, playing, as the racers placed with the
    race were (`start_placed_races`), and a `joined` event, so that the sockets already open
    follow the newcomer's game too."""
    before = list(race.racers.all())
    lifecycle.check_late_join(phase_of(race), len(before), race.max_players)
    [game] = do_create_games(
        [player], race.variant, race.seed, kind=Game.Kind.RACE, started_at=race.starts_at
    )
    racer = Racer.objects.create(
        race=race,
        player=player,
        name=name,
        game=game,
        status=RacerStatus.PLAYING,
        cards=EngineGame.from_dict(game.state).foundation_count(),
    )
    emit_all(race, joined_events(race, before, [racer]))
    return racer


def joined_events(race: Race, before: list[Racer], racers: list[Racer]) -> list[tuple[str, dict]]:
    """A `joined` event for each of `racers` (in the lobby after `before`), in order: the racer,
    and the standings of the racers in so far."""
    return [
        (
            "joined",
            {"racer": racer_dict(racer, race), "standings": standing_order(before + racers[:n])},
        )
        for n, racer in enumerate(racers, 1)
    ]


def countdown_data(race: Race, racers: list[Racer]) -> dict:
    """The `countdown` event's data: the started race and every racer, playing."""
    return {
        "race": race_dict(race),
        "racers": [racer_dict(r, race) for r in racers],
        "standings": standing_order(racers),
    }


def update_autostart(race: Race) -> None:
    """A quick race's lobby clock after its racers changed (the locked row): it starts running
    when the second player arrives, ends at once when the race is full, stops below two."""
    if not race.quick:
        return
    before = epoch_ms(race.autostart_at)
    at = lifecycle.autostart_after(
        race.racers.count(),
        race.max_players,
        epoch_ms(timezone.now()),
        before,
        int(settings.QUICK_RACE_LOBBY_S * 1000),
    )
    if at != before:
        race.autostart_at = None if at is None else from_epoch_ms(at)
        race.save(update_fields=["autostart_at"])
        emit(race, "autostart", at=at)


def do_join_race(race: Race, player: Player, name: str | None = None) -> Racer:
    """Join the lobby (or, already in, be let back in and keep one's place)."""
    name = clean_name(name, player)
    with transaction.atomic():
        race = _locked(race)
        racer = racer_of(race, player)
        if racer is not None:
            return racer
        lifecycle.check_join(phase_of(race), race.racers.count(), race.max_players)
        return add_racer(race, player, name)


def do_leave_race(race: Race, player: Player) -> None:
    """Leave the lobby; the host's role passes on, and an empty lobby is cancelled (a quick
    race's stays open: the next press fills it, or its racer's reloaded page takes its seat
    back)."""
    with transaction.atomic():
        race = _locked(race)
        racer = racer_of(race, player)
        lifecycle.check_lobby_action(phase_of(race), racer is not None)
        racer_id = racer.public_id
        racer.delete()
        emit(race, "left", racer=racer_id, standings=standing_order(race.racers.all()))
        update_autostart(race)
        if race.host_id == player.pk:
            successor = race.racers.order_by("joined_at", "pk").first()
            if successor is None and race.quick:
                return
            if successor is None:
                cancel(race)
                return
            race.host_id = successor.player_id
            race.save(update_fields=["host"])
            emit(race, "host", racer=successor.public_id)


def cancel(race: Race) -> None:
    """End a lobby nobody is in (the race row locked)."""
    race.status = Race.Status.CANCELLED
    race.finished_at = timezone.now()
    race.save(update_fields=["status", "finished_at"])
    emit(race, "cancelled", race=race_dict(race))


def do_set_ready(race: Race, player: Player, ready: bool) -> None:
    """Toggle ready; when every racer (two or more) is ready the race starts (never a quick
    race's: it takes no ready)."""
    with transaction.atomic():
        race = _locked(race)
        racer = racer_of(race, player)
        lifecycle.check_ready(phase_of(race), racer is not None, race.quick)
        if racer.ready != ready:
            racer.ready = ready
            racer.save(update_fields=["ready"])
            emit(race, "ready", racer=racer.public_id, ready=ready)
        if lifecycle.should_autostart(list(race.racers.values_list("ready", flat=True))):
            _start(race)


def do_start_race(race: Race, player: Player) -> None:
    """The host starts the race (alone, too): the countdown begins on the server's clock."""
    with transaction.atomic():
        race = _locked(race)
        lifecycle.check_start(
            phase_of(race), race.host_id == player.pk, race.racers.count(), race.quick
        )
        _start(race)


def do_start_if_due(race: Race) -> bool:
    """Start a quick race whose lobby time is up (any socket's timer, the next placement, a
    page, the scheduler: whoever comes first). Idempotent: the locked row is checked again,
    so the race starts once; True if this call started it."""
    with transaction.atomic():
        race = _locked(race)
        due = race.autostart_at is not None and race.autostart_at <= timezone.now()
        if not (race.quick and due and phase_of(race) == Phase.LOBBY):
            return False
        if race.racers.count() < lifecycle.MIN_PLAYERS_TO_AUTOSTART:
            return False
        _start(race)
        return True


def start_placed_races(
    variant: str,
    time_limit_s: int,
    groups: list[list[tuple[Player, str]]],
    not_before: datetime | None = None,
    visibility: str = Race.Visibility.PUBLIC,
) -> list[Race]:
    """Rated races of players placed together (an arena's batch: each group (player, name) a
    race), listed or not as `visibility` says, each on a deal of its own and started at once:
    inserted started, with their
    racers, games and events as a lobby's joins and start would have left them, in a few
    statements for the whole batch whatever its size (under load a placement's time is its
    round trips: docs/performance.md). Nobody is on a new race's socket yet, so nothing is
    broadcast: a page that opens reads it all. They begin after the countdown, or at `not_before`
    if later (an arena's first races, placed before its start, begin with it)."""
    if not groups:
        return []
    now_ms = epoch_ms(timezone.now())
    if not_before is not None:  # the countdown runs until then (its millisecond, rounded up)
        now_ms = max(now_ms, math.ceil(not_before.timestamp() * 1000) - lifecycle.COUNTDOWN_MS)
    starts_ms, ends_ms = lifecycle.plan_start(now_ms, time_limit_s)
    starts_at, ends_at = from_epoch_ms(starts_ms), from_epoch_ms(ends_ms)
    deals = placed_deals(variant, len(groups))
    races = [
        Race(
            host=group[0][0],
            variant=variant,
            seed=seed,
            winnable=winnable,
            wants_winnable=True,
            max_players=lifecycle.MAX_PLAYERS,
            time_limit_s=time_limit_s,
            visibility=visibility,
            rated=True,
            status=Race.Status.STARTED,
            starts_at=starts_at,
            ends_at=ends_at,
            event_seq=len(group) + 1,
        )
        for group, (seed, winnable) in zip(groups, deals, strict=True)
    ]
    insert_with_codes(races)
    games = create_deal_games(
        variant,
        [
            ([player for player, _ in group], race.seed)
            for group, race in zip(groups, races, strict=True)
        ],
        kind=Game.Kind.RACE,
        started_at=starts_at,
    )
    by_race = []
    for group, race, own in zip(groups, races, games, strict=True):
        cards = EngineGame.from_dict(own[0].state).foundation_count()  # one deal, one start
        by_race.append(
            [
                Racer(
                    race=race,
                    player=player,
                    name=name,
                    game=game,
                    status=RacerStatus.PLAYING,
                    cards=cards,
                )
                for (player, name), game in zip(group, own, strict=True)
            ]
        )
    Racer.objects.bulk_create([racer for racers in by_race for racer in racers])
    now = timezone.now()
    RaceEvent.objects.bulk_create(
        [
            RaceEvent(race=race, seq=n, kind=kind, data=data, at=now)
            for race, racers in zip(races, by_race, strict=True)
            for n, (kind, data) in enumerate(placed_events(race, racers), 1)
        ]
    )
    return races


def placed_events(race: Race, racers: list[Racer]) -> list[tuple[str, dict]]:
    """A placed race's log: each racer's `joined` as they were in the lobby (waiting, nothing
    home), then the `countdown` with everyone playing."""
    lobby = [copy(racer) for racer in racers]
    for racer in lobby:
        racer.status, racer.cards = RacerStatus.WAITING, 0
    return [*joined_events(race, [], lobby), ("countdown", countdown_data(race, racers))]


def _start(race: Race) -> None:
    if pooled_winnable(race):  # the pool was empty when the race opened; else its random deal
        race.save(update_fields=["seed", "winnable"])
    starts_ms, ends_ms = lifecycle.plan_start(epoch_ms(timezone.now()), race.time_limit_s)
    race.starts_at, race.ends_at = from_epoch_ms(starts_ms), from_epoch_ms(ends_ms)
    race.status = Race.Status.STARTED
    race.save(update_fields=["status", "starts_at", "ends_at"])
    racers = list(race.racers.select_related("player"))
    games = do_create_games(
        [racer.player for racer in racers],
        race.variant,
        race.seed,
        kind=Game.Kind.RACE,
        started_at=race.starts_at,
    )
    by_cards: dict[int, list[int]] = {}
    for racer, game in zip(racers, games, strict=True):
        racer.game, racer.status = game, RacerStatus.PLAYING
        racer.cards = EngineGame.from_dict(game.state).foundation_count()
        by_cards.setdefault(racer.cards, []).append(racer.pk)
    # The racers' games set in one statement, not a save a racer (a placement under load pays
    # for each round trip: docs/performance.md); one a count of cards home, and one deal has one.
    own_game = Game.objects.filter(pk__in=[g.pk for g in games], player=OuterRef("player"))
    for cards, pks in by_cards.items():
        Racer.objects.filter(pk__in=pks).update(
            game=Subquery(own_game.values("pk")[:1]), status=RacerStatus.PLAYING, cards=cards
        )
    emit(race, "countdown", **countdown_data(race, racers))


# ------------------------------------------------------------------ racing


STILL = [RacerStatus.PLAYING, RacerStatus.STUCK, RacerStatus.WAITING]
"""A racer's statuses while their game may still take a move."""


def do_resign(
    race: Race,
    player: Player | None,
    held: Racer | None = None,
    live: LiveGame | None = None,
    resigned_for: str = "",
) -> dict | None:
    """Give up: the racer's game ends, they rank by the cards they reached. The resignation's
    numbered `progress` event's frame (the resigning socket's answer), or None when the race
    closed meanwhile and its close ranked the racer.

    The game ends first, in a transaction of its own and without the race's row: it waits for
    a move being stored into the game (the game's row lock), and the race's other racers'
    resignations, finishes and close are not held up behind that wait (in an arena, a race's
    racers give up within the same second). A move in flight is then either stored before the
    end (and counted) or refused by its compare-and-set, never lost between the two. Then,
    under the race's row, the racer's status, the numbered `progress` event and the close if
    they were the last one still racing. A resignation whose second part never committed (its
    server killed between the two) is finished by the next one: the game has ended resigned,
    the racer is still racing.

    A racer's socket gives what it holds: `held`, the racer with their game and the race as it
    read them (its seat, the race started), and `live`, a copy of the game as its process holds
    it (`games.play.held_copy`). The racer and the game's moves are then not read again: the
    game's end is a compare-and-set on the copy's `seq` (read again if another tab moved since),
    and what the seat may not know (a race closed since) is checked under the race's row.

    `resigned_for`: the server resigns a racer who left a race, or idles in it while others
    wait (`Racer.ResignedFor`, races/holdups.py); their racer object says why, and so do
    their page, the results and the replay."""
    now = timezone.now()
    racer = held if held is not None else racer_of(race, player)
    current = phase_of(race if racer is None else racer.race, now)  # no racer: refused anyway
    lifecycle.check_resign(current, None if racer is None else RacerStatus(racer.status))
    game = racer.game  # with the racer: its end is a compare-and-set on `seq`
    if game is not None and live is None:
        live = load(game, read=held is not None)  # a held row may be old; a read one is not
    end = max(now, racer.race.starts_at)  # given up in the countdown: at the start, 0 ms long
    ended = game is not None and do_end_game(game, end, loaded=live)
    with transaction.atomic():
        race = _locked(race)
        racers = list(race.racers.all())  # their games and players only if it closes (`_close`)
        mine = next((r for r in racers if r.pk == racer.pk), None)
        racer = mine if mine is not None and mine.status in STILL else None
        if racer is None and ended:  # the race closed since the game ended: the close ranked them
            return None
        if held is not None and race.status != Race.Status.STARTED:  # the seat's race was old
            lifecycle.check_resign(phase_of(race, now), mine and RacerStatus(mine.status))
        if racer is None or not (ended or _lost_half(racer)):
            raise RaceRuleError("already_finished", "you have already finished this race")
        racer.status = RacerStatus.RESIGNED
        racer.done_ms = since_start_ms(race, now)
        racer.resigned_for = resigned_for
        racer.save(update_fields=["status", "done_ms", "resigned_for"])
        return event_frame(progress_event(race, racer, racers))


def _lost_half(racer: Racer) -> bool:
    """Whether the racer's game ended resigned while they are still racing: a resignation whose
    second part never committed (its server killed between the two), which this one finishes."""
    return racer.game_id is not None and racer.game.status == Game.Status.RESIGNED


def progress_event(race: Race, racer: Racer, racers: list[Racer]) -> RaceEvent:
    """A `progress` event for a racer outside the move path (a resignation), and the close if
    that racer was the last one still racing (`racers`: all of them, as read under the race's
    lock, `racer` among them as changed and saved), its events stored with this one; the
    event."""
    progress = (
        "progress",
        {
            "racers": [racer_dict(racer, race)],
            "standings": standing_order(racers),
            "at_ms": since_start_ms(race, timezone.now()),
        },
    )
    closed = _close_if_all_done(race, racers, preceding=[progress])
    return closed[0] if closed else emit_all(race, [progress])[0]


def _close_if_all_done(
    race: Race, racers: list[Racer] | None = None, preceding: list[tuple[str, dict]] | None = None
) -> list[RaceEvent] | None:
    """Close the race if every racer is done (`racers`: all of them, as just read under the
    race's lock, or read here); the close's events (`preceding` first), or None if someone is
    still racing. The check needs the racers' rows alone: a race's racers are done one by one,
    and only the last one's check closes it, reading them again with their games and players
    (once every racer is done no move can change their rows)."""
    if racers is None:
        racers = list(race.racers.all())
    if lifecycle.is_complete([RacerStatus(r.status) for r in racers]):
        return _close(race, reason="all_done", preceding=preceding)
    return None


def close_finished(racers) -> None:
    """After a move batch's commit: the close of each race whose racer has just finished, if
    that was the last one still racing (the racer's part of the batch, races/apps.py)."""
    for race_pk in {r.race_pk for r in racers if r.status in lifecycle.DONE}:
        close_if_complete(race_pk)


def close_if_complete(race_pk: int) -> None:
    """Close a running race whose racers have all finished (after a batch in which one won)."""
    with transaction.atomic():
        race = one_or_none(Race.objects.select_for_update(no_key=True).filter(pk=race_pk))
        if race is not None and race.status == Race.Status.STARTED:
            _close_if_all_done(race)


# ------------------------------------------------------------------ the end


def do_close_if_due(race: Race) -> bool:
    """Close a race whose time is up (the scheduled check, and any late look at it).

    Idempotent: whoever comes first closes it; True if this call did. Every socket of the race
    asks at its end, nearly at once: those that find it closed already do not queue on its lock.
    """
    if phase_of(Race.objects.get(pk=race.pk)) != Phase.OVERTIME:
        return False
    with transaction.atomic():
        race = _locked(race)
        if phase_of(race) != Phase.OVERTIME:
            return False
        _close(race, reason="time_limit")
        return True


def _close(
    race: Race, reason: str, preceding: list[tuple[str, dict]] | None = None
) -> list[RaceEvent]:
    """Close the race under its row's lock: the games still playing end, the racers still racing
    stop, everyone's place, the ratings, what other apps follow it with (`ON_CLOSE`) and the
    `finished` event, its racers read here with their games and players. The events, stored in
    one write with the race's new status (`preceding` first: the last racer's resignation),
    then `finished`, then the followers'; they are returned."""
    now = timezone.now()
    closed_at = max(now, race.starts_at)  # everyone gave up in the countdown: at the start
    end = min(closed_at, race.ends_at)
    racers = list(race.racers.select_related("game", "player"))
    playing = [r.game for r in racers if r.status in STILL and r.game is not None]
    if playing:
        # Every game still playing ends first (waiting for a batch that holds its row), so the
        # racers read again hold every move that was stored, and no later move can be.
        do_end_games(playing, end)
        racers = list(race.racers.select_related("game", "player"))
    stopped = [r for r in racers if r.status in STILL]
    for racer in stopped:
        racer.status = lifecycle.status_at_close(RacerStatus(racer.status))
        racer.done_ms = since_start_ms(race, end)
    if stopped:
        update_rows(stopped, ["status", "done_ms"])
    order = standing_order(racers)
    places = {racer_id: place for place, racer_id in enumerate(order, 1)}
    for racer in racers:
        racer.place = places.get(racer.public_id)
    update_rows(racers, ["place"])
    closing = Closing(race, racers)
    rating_changes = {}
    if race.rated and race.ranked:
        rating_changes = apply_ratings(race, now, racers, closing.withheld)
    race.status = Race.Status.FINISHED
    race.finished_at = closed_at
    finished = {
        "reason": reason,
        "race": race_dict(race),
        "racers": [racer_dict(r, race) for r in racers],
        "standings": order,
        "ratings": rating_changes,
    }
    for follow in ON_CLOSE:
        follow(closing)
    events = [*(preceding or []), ("finished", finished), *closing.events]
    return emit_all(race, events, fields=["status", "finished_at"])


def do_rematch(race: Race, player: Player | None) -> Race:
    """The same racers on a new deal, in a new lobby; everyone on the old race is sent there.
    A racer the server resigned (they had left the race, or idled in it while others waited) is
    not taken along, unless they ask: they are not there, or not playing, and the others would
    wait for them in the lobby and then in the race. Back, they join it by its code.

    One click from any racer once the race is over; later clicks (anyone's) find the same
    rematch. The new race is made before the old one is locked; if someone else's click linked
    a rematch meanwhile, ours is dropped and theirs returned.
    """
    race.refresh_from_db()
    if race.rematch_id is None:
        racer = racer_of(race, player)
        if racer is None:
            raise RaceRuleError("not_in_race", "only the race's racers can ask for a rematch")
        if not race.is_over:
            raise RaceRuleError("race_not_over", "a rematch comes after the race")
        owner = owner_of(race)
        if owner is not None:
            raise RaceRuleError("no_rematch", f"the {owner.kind} places its racers in its races")
        new = do_create_race(
            player,
            variant=race.variant,
            winnable=race.winnable or race.wants_winnable,
            max_players=race.max_players,
            time_limit_s=race.time_limit_s,
            visibility=race.visibility,
            rated=race.rated,
            name=racer.name,
            racers=[
                (r.player, r.name)
                for r in race.racers.select_related("player")
                if not r.resigned_for
            ],
        )
        with transaction.atomic():
            race = _locked(race)
            if race.rematch_id is None:
                race.rematch = new
                race.save(update_fields=["rematch"])
                emit(race, "rematch", code=new.code, url=new.get_absolute_url())
                return new
        new.delete()
    return Race.objects.get(pk=race.rematch_id)


# The racer's part of every move batch (games/storage.py): its progress in the batch's statement,
# the numbered event of a finish in its transaction, the close of a race once all are done.
register(
    BatchPart(
        name="racer",
        sql=play.RACER_SQL,
        orm=play.write_racers,
        lock=events.lock_races,
        announce=events.announce_finishes,
        after_commit=close_finished,
    )
)
