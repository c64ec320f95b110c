"""Everything a player or an organiser does to an arena (the `do_*` functions), one
transaction each: set one up, join, pause and resume, leave, and the arena page's presence.
Views and the consumer parse and check, then call one of these; placing players in races is
arenas/placement.py, a race's points arenas/results.py."""

from __future__ import annotations

import contextlib
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from arenas import board, events
from arenas.models import Arena, ArenaPlayer
from games.models import Player, Variant
from games.rows import one_or_none, touch
from races.actions import do_resign
from races.lifecycle import DONE, MAX_TIME_LIMIT_S, MIN_TIME_LIMIT_S, RaceRuleError
from races.models import Race, Racer

MIN_MINUTES = 5
MAX_MINUTES = 180
LATEST_START = timedelta(days=30)


class ArenaRuleError(ValueError):
    """A request the arena's rules refuse; `code` is the protocol's error code."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


NO_ARENA = "there is no arena with this link"
"""What a page, a socket and a button's answer say of an arena that is not (or no longer) there."""


class ArenaGone(ArenaRuleError):
    """The arena was removed between the request's reading it and its write (an admin's edit of
    a standing schedule removes its coming arenas that nobody joined): answered as an arena that
    never was, and nothing written."""

    def __init__(self):
        super().__init__("not_found", NO_ARENA)


def is_gone(arena: Arena) -> bool:
    """Whether the arena read a moment ago has been removed since (a write that found nothing
    asks, on that rare path only)."""
    return not Arena.objects.filter(pk=arena.pk).exists()


def arena_refusals(
    *,
    variant: str | None,
    starts_at,
    minutes: int | None,
    race_time_limit_s: int | None,
    visibility: str | None,
    now,
) -> list[ArenaRuleError]:
    """Every setting of a new arena that the rules refuse, each once (the set-up form says them
    all, each beside its field). A setting given as None (one the form could not read) is not
    checked; a race's limit is then held to the longest any arena allows."""
    refusals = []
    if variant is not None and variant not in Variant.values:
        refusals.append(ArenaRuleError("unknown_variant", f"unknown game {variant!r}"))
    length_ok = minutes is not None and MIN_MINUTES <= minutes <= MAX_MINUTES
    if minutes is not None and not length_ok:
        refusals.append(
            ArenaRuleError("bad_length", f"an arena lasts {MIN_MINUTES} to {MAX_MINUTES} minutes")
        )
    # The form gives the start to the minute: the minute typed as now stays "now" until the
    # next one ends (taken from `now` itself, a start typed at :59 and sent a second later was
    # refused).
    earliest = now.replace(second=0, microsecond=0) - timedelta(minutes=1)
    if starts_at is not None and starts_at < earliest:
        refusals.append(ArenaRuleError("bad_start", "the start is in the past"))
    elif starts_at is not None and starts_at > now + LATEST_START:
        refusals.append(ArenaRuleError("bad_start", "an arena starts within 30 days"))
    longest = min(MAX_TIME_LIMIT_S, minutes * 60) if length_ok else MAX_TIME_LIMIT_S
    if race_time_limit_s is not None and not MIN_TIME_LIMIT_S <= race_time_limit_s <= longest:
        refusals.append(
            ArenaRuleError(
                "bad_time_limit",
                f"a race's time limit is {MIN_TIME_LIMIT_S} s to the arena's length",
            )
        )
    if visibility is not None and visibility not in Arena.Visibility.values:
        refusals.append(ArenaRuleError("bad_visibility", "visibility is public or link"))
    return refusals


def do_create_arena(
    organiser: Player | None,
    *,
    variant: str,
    starts_at,
    minutes: int,
    visibility: str = Arena.Visibility.PUBLIC,
    name: str = "",
    race_time_limit_s: int | None = None,
    now=None,
) -> Arena:
    """A new arena (the "set up an arena" form, or the schedule with no organiser). `now`: the
    moment its settings are checked at, the call's by default; the set-up form's (which checked
    them before making its visitor a guest), so that what the form took is taken here."""
    now = now or timezone.now()
    limit = race_time_limit_s or settings.ARENA_RACE_TIME_LIMIT_S
    refusals = arena_refusals(
        variant=variant,
        starts_at=starts_at,
        minutes=minutes,
        race_time_limit_s=limit,
        visibility=visibility,
        now=now,
    )
    if refusals:
        raise refusals[0]
    name = (name or "").strip()[:64] or f"{Variant(variant).label} arena"
    return Arena.objects.create(
        name=name,
        variant=variant,
        starts_at=max(starts_at, now),
        ends_at=max(starts_at, now) + timedelta(minutes=minutes),
        visibility=visibility,
        race_time_limit_s=limit,
        created_by=organiser,
    )


def entry_of(arena: Arena, player: Player | None) -> ArenaPlayer | None:
    if player is None:
        return None
    return one_or_none(ArenaPlayer.objects.filter(arena=arena, player=player))


def do_join(arena: Arena, player: Player) -> tuple[ArenaPlayer, bool]:
    """Join an arena before or while it runs (a paused player who joins again resumes); the
    entry, and whether it is new. Joining twice changes nothing."""
    if arena.phase() == Arena.Phase.ENDED:
        raise ArenaRuleError("arena_over", "this arena has ended: its podium is final")
    # No transaction around a player's look and insert: `get_or_create` makes its own for the
    # insert (and finds the entry another tab's join made meanwhile), and a resume is one
    # update.
    try:
        entry, created = ArenaPlayer.objects.get_or_create(
            arena=arena, player=player, defaults={"free_since": timezone.now()}
        )
    except IntegrityError:
        # The insert's check of the arena's key, at its commit, waited for an admin's edit that
        # held the arena's row (arenas/schedule.py `lock_coming`), then found it removed.
        if is_gone(arena):
            raise ArenaGone() from None
        raise
    if not created and entry.paused:
        entry.paused = False
        entry.free_since = entry.free_since or timezone.now()
        resumed = ArenaPlayer.objects.filter(pk=entry.pk)
        if not resumed.update(paused=False, free_since=entry.free_since):
            raise not_in_arena(arena)  # the entry went, with its arena, since it was read
    if created:
        board.write(arena, [entry])
    events.board_changed(arena)
    return entry, created


def need_entry(arena: Arena, player: Player | None) -> ArenaPlayer:
    entry = entry_of(arena, player)
    if entry is None:
        raise not_in_arena(arena)
    return entry


def not_in_arena(arena: Arena) -> ArenaRuleError:
    """The refusal of a player the arena has no entry of: `not_in_arena`, or, if the arena
    itself is gone (its entries with it), `ArenaGone`."""
    if is_gone(arena):
        return ArenaGone()
    return ArenaRuleError("not_in_arena", "you have not joined this arena")


def do_pause(arena: Arena, player: Player | None, paused: bool) -> ArenaPlayer:
    """Sit out (no new race; a race under way plays on), or come back."""
    entry = need_entry(arena, player)
    fields = {"paused": paused}
    if not paused:
        fields["free_since"] = timezone.now()
    if not ArenaPlayer.objects.filter(pk=entry.pk).update(**fields):
        raise not_in_arena(arena)  # the entry went, with its arena, since it was read
    entry.refresh_from_db()
    events.board_changed(arena)
    return entry


def current_race(arena: Arena, player: Player) -> Race | None:
    """The player's race of this arena that is still on, if any."""
    return (
        Race.objects.filter(
            arena_race__arena=arena,
            racers__player=player,
            status__in=(Race.Status.LOBBY, Race.Status.STARTED),
        )
        .order_by("-pk")
        .first()
    )


def do_leave(arena: Arena, player: Player | None) -> ArenaPlayer:
    """Leave: paused, and a race under way is resigned (it counts as it stands). The points
    stay; joining again resumes."""
    entry = do_pause(arena, player, True)
    race = current_race(arena, player)
    if race is not None:
        racer = one_or_none(Racer.objects.filter(race=race, player=player))
        if racer is not None and racer.status not in DONE and race.status == Race.Status.STARTED:
            # In its countdown too (the player does not hold the race open); just over: nothing.
            with contextlib.suppress(RaceRuleError):
                do_resign(race, player)
    return entry


def do_present(arena: Arena, player: Player, here: bool) -> bool:
    """An arena page of the player opened (`here`) or closed: a player is placed only while
    one is open (a dropped socket is not placed until it is back). Whether the player is in
    the arena (a spectator's page changes nothing)."""
    change = 1 if here else -1
    fields = {"sockets": Greatest(F("sockets") + change, 0)}
    if here:
        fields["seen_at"] = timezone.now()
    return ArenaPlayer.objects.filter(arena=arena, player=player).update(**fields) > 0


def do_seen(arena: Arena, player_ids: list[int]) -> None:
    """These players' arena pages are still open (a room's heartbeat): a row that another
    transaction holds (a race's close adding its racers' points) is passed over, not waited for
    (`games.rows.touch`), and the next round says it again, well within
    `placement.SEEN_WITHIN_S`."""
    touch(ArenaPlayer.objects.filter(arena=arena, player_id__in=player_ids), seen_at=timezone.now())
