"""Placing an arena's free players in races: one transaction per arena and tick.

A player is free when they are in the arena, not paused, have its page open (a server saw it
within `SEEN_WITHIN_S`), and are in no race that is still on (of this arena or any other). While the arena runs, its free players are
placed together (those who joined before the start, in the last `FIRST_RACES_AHEAD` before it,
in races that begin with it, a batch every `BATCH_STARTS_APART`) as soon as there are two, once the first of them has waited
`ARENA_GATHER_S` (so that racers coming back from one race meet in the next) or at once when
there are enough for a full race. They are split into races of two to eight, as even as can
be, nearest in points racing together; every race starts at once (its countdown) on a fresh
deal, a winnable one from the race pool where the game has them. A player free alone joins a
race of the arena still in its countdown that has room (`join_countdown`), at once, rather than
wait for a second free player.

The arena's row is locked for the placement (a second process's tick skips it: the first is
placing), then the players' rows (as a Quick race press does: nobody is placed twice, by an
arena or a Quick race). A batch's races are inserted already started, with their racers, games
and events, in a few statements whatever the batch's size (races.actions.start_placed_races).
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.urls import reverse
from django.utils import timezone

from arenas import events
from arenas.models import Arena, ArenaPlayer, ArenaRace
from games.models import Player
from games.rows import one_or_none
from races.actions import add_late_racer, do_close_if_due, start_placed_races
from races.lifecycle import DONE, MAX_PLAYERS, MIN_PLAYERS_TO_AUTOSTART, RaceRuleError
from races.models import Race, Racer

RACE_ON = (Race.Status.LOBBY, Race.Status.STARTED)


def race_sizes(free: int, most: int = MAX_PLAYERS) -> list[int]:
    """How `free` players split into races: as few races as hold them, as even as can be."""
    if free < MIN_PLAYERS_TO_AUTOSTART:
        return []
    count = math.ceil(free / most)
    size, extra = divmod(free, count)
    return [size + 1] * extra + [size] * (count - extra)


def racing_now():
    """The racers of every race that is still on."""
    return Racer.objects.filter(race__status__in=RACE_ON)


def busy_players(player_ids) -> set[int]:
    """Those of these players who are in a race that is still on."""
    found = racing_now().filter(player_id__in=player_ids)
    return set(found.values_list("player_id", flat=True))


def close_overdue(arena: Arena) -> int:
    """Close the arena's races whose time is up that nobody's socket closed (no page of theirs
    was open at their end), as a page or socket that looks at an overdue race closes it and the
    scheduler's minute does (`close_overdue_races`): their racers are free again, and an ended
    arena's standings can be final. How many this closed."""
    overdue = Race.objects.filter(
        arena_race__arena=arena, status=Race.Status.STARTED, ends_at__lte=timezone.now()
    )
    return sum(do_close_if_due(race) for race in overdue)


SEEN_WITHIN_S = 15
"""A player counts as on the arena's page if a server saw them there this recently (the rooms
say so every `arenas.rooms.PRESENCE_EVERY_S`)."""


def present(now) -> Q:
    """An arena's player on its page now: a page of theirs open (`sockets`, counted up and down
    as their pages' sockets open and close) that a server saw within `SEEN_WITHIN_S`. A server
    killed with pages open never counts them down: their players leave the lobby's count, and
    placement, within those seconds, not never."""
    return Q(sockets__gt=0, seen_at__gte=now - timedelta(seconds=SEEN_WITHIN_S))


LATE_JOIN_LEAD_S = 1.0
"""A free player alone joins a race of the arena in its countdown only with this much of the
countdown left: their page loads the race and opens its socket before the start."""


FIRST_RACES_AHEAD = timedelta(seconds=10)
"""An arena places the players who joined before its start this long before it, in races that
begin at the start (their countdown runs until then): a crowd's placement, its race pages and
their sockets come in the last seconds before the start, not all at once with it, when 1,000
players' placements, pages and sockets on the same cores left the last of them waiting 10 s for
their first race (docs/performance-log.md, arenas' forty-seventh day)."""


BATCH_STARTS_APART = timedelta(seconds=0.5)
"""Each batch of a placement begins this long after the batch before it, at the soonest: the
start's crowd, placed ahead in one go, would otherwise begin all at once, 1,000 boards sent at
one instant and every race's end in the same few seconds after; placed as it came, batch after
batch, it spread over some 8 s."""


def placing(arena: Arena, now) -> bool:
    """Whether the arena places its free players now: while it runs, and for its first races in
    the last `FIRST_RACES_AHEAD` before its start."""
    return arena.starts_at - FIRST_RACES_AHEAD <= now < arena.ends_at


RACES_PER_TRANSACTION = 8
"""A crowd (everyone who joined before the start) is placed eight races at a time, each batch
committed and told before the next: the first racers hear of their race in a fraction of the
crowd's time, and no transaction holds a thousand players' locks."""


def free_entries(arena: Arena, now):
    """The arena's players who could be placed now: back in its lobby (`free_since`, cleared
    while they race in it), not paused, its page open. Those in another race are taken out
    after."""
    return ArenaPlayer.objects.filter(
        present(now), arena=arena, paused=False, free_since__isnull=False
    ).select_related("player")


def place(arena_pk: int, now=None) -> list[Race]:
    """Place the arena's free players in new races, if it is time, a batch of races a
    transaction; the races opened."""
    races: list[Race] = []
    later = timedelta(0)
    while True:
        batch, more = place_batch(arena_pk, now or timezone.now(), later)
        races += batch
        if not (batch and more):
            return races
        later += BATCH_STARTS_APART


def place_batch(arena_pk: int, now, later=timedelta(0)) -> tuple[list[Race], bool]:
    """Up to `RACES_PER_TRANSACTION` races of free players, in one transaction; the races, and
    whether more free players are left for the next batch. The races begin after their
    countdown, and no sooner than `later` after the arena's start."""
    with transaction.atomic():
        arena = one_or_none(
            Arena.objects.select_for_update(skip_locked=True, no_key=True).filter(pk=arena_pk)
        )
        if arena is None or not placing(arena, now):
            return [], False
        entries = list(free_entries(arena, now))
        busy = busy_players([e.player_id for e in entries])
        entries = [e for e in entries if e.player_id not in busy]
        if not entries:
            return [], False
        if len(entries) < MIN_PLAYERS_TO_AUTOSTART:  # alone: a race in its countdown, at once
            return join_countdown(arena, entries[0], now), False
        waited = (now - min(e.free_since for e in entries)).total_seconds()
        if len(entries) < MAX_PLAYERS and waited < settings.ARENA_GATHER_S:
            return [], False
        entries = held_and_free(entries)
        entries.sort(key=lambda e: (-e.points, e.free_since, e.pk))
        groups = []
        for size in race_sizes(len(entries))[:RACES_PER_TRANSACTION]:
            groups.append(entries[:size])
            entries = entries[size:]
        races = open_races(arena, groups, arena.starts_at + later)
        placements = {
            e.player_id: race.get_absolute_url()
            for race, group in zip(races, groups, strict=True)
            for e in group
        }
        mark_placed(arena, placements)
    return races, bool(entries)


def held_and_free(entries: list[ArenaPlayer]) -> list[ArenaPlayer]:
    """Those of these players whose rows this transaction now holds (in id order; a row another
    transaction holds, a Quick race press or a second placement, is passed over) and who are in
    no race that is still on, read again under the locks."""
    locked = Player.objects.select_for_update(skip_locked=True, no_key=True).filter(
        pk__in=[e.player_id for e in entries]
    )
    held = set(locked.order_by("pk").values_list("pk", flat=True))
    busy = busy_players(held)
    return [e for e in entries if e.player_id in held and e.player_id not in busy]


def mark_placed(arena: Arena, placements: dict[int, str]) -> None:
    """These players (id: their race's address) are no longer free; each is sent to their race
    once the transaction commits."""
    ArenaPlayer.objects.filter(arena=arena, player_id__in=placements).update(free_since=None)
    if placements:
        transaction.on_commit(lambda: events.placed(arena, placements))


def join_countdown(arena: Arena, entry: ArenaPlayer, now) -> list[Race]:
    """A free player alone: placed at once in a race of the arena still in its countdown, with
    room and at least `LATE_JOIN_LEAD_S` to go (the fewest racers first, then the latest),
    rather than left waiting for a second free player, who may be a race's length away. Not
    after `ARENA_GATHER_S`, as free players wait to meet: a race in its countdown with room is
    that meeting, and a crowd's last joiner who waited the gather's second missed the crowd's
    last countdowns and waited 25 s for a race's end (docs/performance-log.md, arenas' forty-third
    day). The last racer of a race is the one this finds: their own resignation
    or the clock closes the race, so their page opens the arena's socket last, and came back to
    an empty lobby just after their race's others were placed (docs/performance-log.md, arenas'
    thirty-third day). The race joined (in the list), or none: the player waits."""
    if not held_and_free([entry]):
        return []
    lead = now + timedelta(seconds=LATE_JOIN_LEAD_S)
    candidates = (
        Race.objects.filter(
            arena_race__arena=arena, status=Race.Status.STARTED, starts_at__gte=lead
        )
        .annotate(count=Count("racers"))
        .filter(count__lt=F("max_players"))
        .order_by("count", "-starts_at")
        .values_list("pk", flat=True)
    )
    for pk in candidates[:3]:
        race = one_or_none(
            Race.objects.select_for_update(skip_locked=True, no_key=True).filter(pk=pk)
        )
        if race is None:
            continue
        try:
            add_late_racer(race, entry.player, entry.player.nickname)
        except RaceRuleError:  # full or started meanwhile
            continue
        mark_placed(arena, {entry.player_id: race.get_absolute_url()})
        return [race]
    return []


def open_races(arena: Arena, groups: list[list[ArenaPlayer]], not_before) -> list[Race]:
    """Rated races of the arena, a group of its players each, started (together: a batch's
    races cost a few statements in all, not a few a racer): their countdown ends at
    `not_before` at the soonest (the arena's start, or after it). A link-only arena's races are
    link-only too: none is listed where its arena is not."""
    races = start_placed_races(
        arena.variant,
        arena.race_time_limit_s,
        [[(entry.player, entry.player.nickname) for entry in group] for group in groups],
        not_before=not_before,
        visibility=Race.Visibility(arena.visibility),  # the same two values
    )
    ArenaRace.objects.bulk_create([ArenaRace(race=race, arena=arena) for race in races])
    return races


def placing_arenas(now=None):
    """The arenas that place their free players now (`placing`)."""
    now = now or timezone.now()
    return Arena.objects.filter(starts_at__lte=now + FIRST_RACES_AHEAD, ends_at__gt=now)


DEALS_AHEAD = timedelta(hours=1)
"""How far ahead an arena's crowd asks for its races' deals (`deals_wanted`)."""


def deals_wanted(variant: str, now=None) -> int:
    """The race deals of `variant` the arenas may take together soon, for the race pool to hold
    ahead (games.winnable.RACE_DEMAND): a quarter of the players who joined its arenas running or
    starting within `DEALS_AHEAD`. Their first placement takes a deal for every race of up to
    eight, and as those races end together, the next wave as many again: each race's own
    winnable deal is then in the pool, with no search beside a crowd's play."""
    now = now or timezone.now()
    joined = ArenaPlayer.objects.filter(
        arena__variant=variant, arena__ends_at__gt=now, arena__starts_at__lte=now + DEALS_AHEAD
    ).count()
    return math.ceil(joined / 4)


def place_all(now=None) -> int:
    """A tick of every running arena (the scheduler's backstop); how many races it opened."""
    return sum(len(place(arena.pk, now)) for arena in placing_arenas(now))


def placed_since(arena: Arena, player_ids: list[int], since) -> dict[int, tuple[str, object]]:
    """These players' races of the arena placed since `since`, still on and not finished by
    them: per player, the race's address and when it was placed."""
    found = (
        Racer.objects.filter(
            player_id__in=player_ids,
            race__arena_race__arena=arena,
            race__arena_race__placed_at__gte=since,
            race__status__in=RACE_ON,
        )
        .exclude(status__in=DONE)
        .values_list("player_id", "race__code", "race__arena_race__placed_at")
        .order_by("race__arena_race__placed_at")
    )
    return {pid: (reverse("races:race", args=[code]), at) for pid, code, at in found}
