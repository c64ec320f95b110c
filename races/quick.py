"""Quick races: the Quick race button puts a player in the next open quick race of a variant.

The placement is one transaction on the database, so it holds over any number of server
processes and keeps no lobby in memory: the player's row is locked (two clicks place once),
then the variant's `QuickLobby` row (placements of one variant queue there, a few milliseconds
each, so a crowd fills races one after another instead of opening many half-empty ones), then
the chosen race's row (leaving and starting lock only that one). An open quick race is one in
its lobby, with a seat, whose lobby time is not up; a rated player goes to the one whose
players' rating is nearest theirs (races/matching.py).

A quick race starts by itself (races/actions.py, `do_start_if_due`): its lobby clock
(`autostart_at`) starts when its second player arrives and ends at once when it is full. Whoever
sees the time up first starts it: the placement that filled it, any racer's socket (a timer at
`autostart_at`), the next placement in the variant, a page, or `close_overdue_races`.

The deal is a winnable one from the race pool where the variant has them (taken when the race
opens, or at its start if the pool was empty then: the opening hands the search to the
background worker), never searched for while the player waits.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from games.deals import random_seed
from games.models import Player, Variant
from races import matching
from races.actions import add_racer, cancel, do_leave_race, do_start_if_due, new_race
from races.deals import pooled_winnable
from races.lifecycle import MAX_PLAYERS, RaceRuleError
from races.models import QuickLobby, Race, Racer, Rating

ANY = "any"


def open_races(variants: list[str], now=None):
    """Quick races still taking players, oldest first."""
    now = now or timezone.now()
    return (
        Race.objects.filter(quick=True, status=Race.Status.LOBBY, variant__in=variants)
        .filter(Q(autostart_at__isnull=True) | Q(autostart_at__gt=now))
        .annotate(seats_taken=Count("racers"))
        .filter(seats_taken__lt=MAX_PLAYERS)
        .order_by("created_at", "pk")
    )


def due_races(variants: list[str], now=None):
    """Quick races whose lobby time is up but which nobody has started yet."""
    now = now or timezone.now()
    return Race.objects.filter(
        quick=True, status=Race.Status.LOBBY, variant__in=variants, autostart_at__lte=now
    )


def start_due(variants: list[str] | None = None) -> int:
    """Start every quick race whose lobby time is up; how many this call started."""
    return sum(do_start_if_due(race) for race in due_races(variants or Variant.values))


EMPTY_KEPT_S = 60
"""How long a quick race its last racer left stays open (a reloaded page comes back sooner)."""


def cancel_abandoned(now=None) -> int:
    """Cancel quick races that have stood empty in the lobby for `EMPTY_KEPT_S` (the
    scheduler's job); how many this call cancelled."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=EMPTY_KEPT_S)
    stale = (
        Race.objects.filter(quick=True, status=Race.Status.LOBBY)
        .annotate(seats_taken=Count("racers"), last_event=Max("events__at"))
        .filter(seats_taken=0, last_event__lt=cutoff)
    )
    return sum(do_cancel_if_empty(race) for race in stale)


def do_cancel_if_empty(race: Race) -> bool:
    """Cancel the quick race if it is still in the lobby with nobody in it (checked again
    under its row's lock: someone may have come back)."""
    with transaction.atomic():
        race = Race.objects.select_for_update(no_key=True).get(pk=race.pk)
        if race.status != Race.Status.LOBBY or race.racers.exists():
            return False
        cancel(race)
        return True


def rating_of(player: Player, variant: str) -> float | None:
    """The player's rating for pairing: None for a guest (unrated)."""
    if player.user_id is None:
        return None
    found = Rating.objects.filter(player=player, variant=variant).values_list("mu", flat=True)
    return next(iter(found), matching.START_MU)


def candidates(races: list[Race], player: Player) -> list[matching.OpenRace]:
    """The open races as the matching rule sees them: their racers' ratings and the player's."""
    ratings: dict[int, list[float | None]] = {race.pk: [] for race in races}
    variant_of = {race.pk: race.variant for race in races}
    known = {
        (r.player_id, r.variant): r.mu
        for r in Rating.objects.filter(player__racers__race__in=races)
    }
    for racer in Racer.objects.filter(race__in=races).only("race_id", "player_id"):
        ratings[racer.race_id].append(known.get((racer.player_id, variant_of[racer.race_id])))
    own = {variant: rating_of(player, variant) for variant in set(variant_of.values())}
    return [
        matching.OpenRace(key=race.pk, ratings=tuple(ratings[race.pk]), own=own[race.variant])
        for race in races
    ]


def choose_variant(player: Player, choice: str) -> str:
    """The variant to place the player in: the one chosen, or for "any" the variant of the
    open race the matching rule picks over all variants (a random variant when none is open)."""
    if choice != ANY:
        if choice not in Variant.values:
            raise RaceRuleError("unknown_variant", f"unknown variant {choice!r}")
        return choice
    races = list(open_races(Variant.values))
    if not races:
        return secrets.choice(Variant.values)
    key = matching.pick(candidates(races, player))
    return next(race.variant for race in races if race.pk == key)


def ensure_lobby(variant: str) -> None:
    """The lock row of a variant, or of "any" (made once, by whoever needs it first)."""
    if not QuickLobby.objects.filter(variant=variant).exists():
        QuickLobby.objects.get_or_create(variant=variant)  # a concurrent make is read back


def do_quick_race(player: Player, choice: str = ANY) -> Race:
    """Place the player in the next open quick race (`choice`: a variant, or "any"), and return
    it; a player already waiting in an open quick race is sent back there.

    "Any" is chosen under a lock of its own (the `QuickLobby` row "any", taken before the
    variant's): two players pressing "any" at once when nothing is open would otherwise open
    races of two different variants and each wait alone."""
    if choice != ANY:
        choose_variant(player, choice)  # refuses an unknown variant
    start_due(None if choice == ANY else [choice])  # what others left due
    ensure_lobby(choice)
    with transaction.atomic():
        Player.objects.select_for_update(no_key=True).get(pk=player.pk)
        waiting = (
            Racer.objects.filter(player=player, race__quick=True, race__status=Race.Status.LOBBY)
            .select_related("race")
            .first()
        )
        if waiting is not None:
            return waiting.race
        QuickLobby.objects.select_for_update(no_key=True).get(variant=choice)
        variant = choose_variant(player, choice)
        if variant != choice:
            ensure_lobby(variant)
            QuickLobby.objects.select_for_update(no_key=True).get(variant=variant)
        race = _open_race_for(player, variant)
        if race is None:
            race = open_rated_race(player, variant, settings.QUICK_RACE_TIME_LIMIT_S, quick=True)
        add_racer(race, player, player.nickname)
    if race.autostart_at is not None and race.autostart_at <= timezone.now():
        do_start_if_due(race)  # full: it starts now
    return race


def open_rated_race(host: Player, variant: str, time_limit_s: int, **fields) -> Race:
    """A new public rated race of up to eight (a quick race's, an arena's), on a winnable deal
    from the race pool where the game has them, else on a random one (an empty pool starts a
    search: the race takes its deal at the start if it has come)."""
    race = new_race(
        host=host,
        variant=variant,
        seed=random_seed(variant),
        max_players=MAX_PLAYERS,
        time_limit_s=time_limit_s,
        visibility=Race.Visibility.PUBLIC,
        rated=True,
        **fields,
    )
    if pooled_winnable(race, search_if_empty=True):
        race.save(update_fields=["seed", "winnable"])
    return race


def _open_race_for(player: Player, variant: str) -> Race | None:
    """The open race the player goes to, its row locked (inside the lobby's lock, so no other
    placement changes it; a leave or a start may have, and is checked for)."""
    races = list(open_races([variant]))
    while races:
        # One open race (a crowd's usual case): no ratings to read, it is the one.
        key = races[0].pk if len(races) == 1 else matching.pick(candidates(races, player))
        race = Race.objects.select_for_update(no_key=True).get(pk=key)
        now = timezone.now()
        still_open = race.status == Race.Status.LOBBY and (
            race.autostart_at is None or race.autostart_at > now
        )
        if still_open and race.racers.count() < race.max_players:
            return race
        races = [r for r in races if r.pk != key]
    return None


def leave_before_start(race: Race, player: Player) -> bool:
    """A racer whose page closed before the quick race started leaves it; False when it had
    started already (or the player was not in it)."""
    try:
        do_leave_race(race, player)
    except RaceRuleError:
        return False
    return True
