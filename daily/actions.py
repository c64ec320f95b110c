"""Everything that changes the daily challenge: picking a day's deal, starting an attempt,
resigning it, and keeping each attempt's result in step with its game.

Views and consumers call these; the game itself is played through games.actions like any other.
What follows a ranked attempt's new result (the boards) belongs to whoever registers it in
`AFTER_RANKED_RESULT` (the records app does, in its apps.ready).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.utils import timezone

from daily import dealpick
from daily.models import DailyAttempt, DailyChallenge, GhostRace
from games.actions import do_create_game, elapsed_ms, load
from games.models import Game, Player
from games.play import cards_home
from games.rows import one_or_none

AFTER_RANKED_RESULT: list[Callable[[int], None]] = []
"""Called with a ranked attempt's pk after the commit that changed its result (or started it)."""


class AttemptRefused(Exception):
    """A start or resign that is not allowed; the message says why."""


def get_challenge(
    variant: str, day: dt.date, prover: dealpick.Prover | None = None
) -> DailyChallenge:
    """The day's challenge for a variant, picked and stored the first time anyone asks.

    Picking may run the solver for a while: ``manage.py precompute_daily`` does it ahead of time.
    Two servers picking at once agree on the deal (it is a pure function), and the unique
    constraint keeps one row.
    """
    found = one_or_none(DailyChallenge.objects.filter(variant=variant, day=day))
    if found is not None:
        return found
    pick = dealpick.pick_deal(variant, day, prover or dealpick.default_prover())
    try:
        with transaction.atomic():
            return DailyChallenge.objects.create(
                variant=variant,
                day=day,
                seed=pick.seed,
                candidate=pick.candidate,
                proof=pick.verdict,
                solution=pick.moves,
            )
    except IntegrityError:
        return DailyChallenge.objects.get(variant=variant, day=day)


def can_rank(player: Player, challenge: DailyChallenge, now: dt.datetime) -> bool:
    """A ranked attempt is an account's first start of the challenge, on the challenge's day.

    First of any: a guest who played the deal and then signed up (the guest's games become the
    account's) has seen it, so that day's game stays practice.
    """
    return (
        not player.is_guest
        and dealpick.utc_day(now) == challenge.day
        and not DailyAttempt.objects.filter(challenge=challenge, player=player).exists()
    )


def start_attempt(
    player: Player,
    challenge: DailyChallenge,
    ghost: Game | None = None,
    now: dt.datetime | None = None,
) -> tuple[DailyAttempt, bool]:
    """The player's attempt to play now; (attempt, created).

    An unfinished attempt is resumed (the ranked one first), so a reload or a second tab never
    starts another clock. Otherwise a new game is dealt and its clock starts now: ranked if the
    player may still rank today (an account's first), practice otherwise. A ghost race is always
    practice.
    """
    now = now or timezone.now()
    with transaction.atomic():
        # One start at a time per player: two tabs starting at once get one attempt.
        one_or_none(Player.objects.select_for_update(no_key=True).filter(pk=player.pk))
        unfinished = (
            DailyAttempt.objects.filter(challenge=challenge, player=player)
            .filter(**_same_ghost("game__", ghost))
            .exclude(game__status__in=[Game.Status.WON, Game.Status.RESIGNED])
            .select_related("game")
            .order_by("-ranked", "-created_at")
            .first()
        )
        if unfinished is not None:
            return unfinished, False
        ranked = ghost is None and can_rank(player, challenge, now)
        game = do_create_game(player, challenge.variant, challenge.seed, kind=Game.Kind.DAILY)
        attempt = DailyAttempt.objects.create(
            challenge=challenge, player=player, game=game, ranked=ranked
        )
        if ghost is not None:
            GhostRace.objects.create(game=game, ghost=ghost)
        sync_attempt(attempt, game, record=True)
    return attempt, True


def _same_ghost(prefix: str, ghost: Game | None) -> dict:
    """A filter for games raced against ``ghost`` (or against no ghost when it is None)."""
    if ghost is None:
        return {f"{prefix}ghost_race__isnull": True}
    return {f"{prefix}ghost_race__ghost": ghost}


def start_ghost_race(player: Player, recorded: Game) -> Game:
    """A game on a recorded run's deal, raced against that run; resumes an unfinished one.

    A daily run gets a practice daily attempt on its challenge; a race's run a practice game
    on the race's deal (the race is over, so its deal is no secret). Callers check first that
    the player may watch the run (records.public_replays.check_replay).
    """
    attempt = getattr(recorded, "daily_attempt", None)
    if attempt is not None:
        return start_attempt(player, attempt.challenge, ghost=recorded)[0].game
    if recorded.kind != Game.Kind.RACE:
        raise AttemptRefused("only daily and race runs can be raced as ghosts")
    with transaction.atomic():
        one_or_none(Player.objects.select_for_update(no_key=True).filter(pk=player.pk))
        unfinished = (
            Game.objects.filter(player=player, kind=Game.Kind.PRACTICE, **_same_ghost("", recorded))
            .exclude(status__in=[Game.Status.WON, Game.Status.RESIGNED])
            .first()
        )
        if unfinished is not None:
            return unfinished
        game = do_create_game(player, recorded.variant, recorded.seed, kind=Game.Kind.PRACTICE)
        GhostRace.objects.create(game=game, ghost=recorded)
    return game


def do_resign(game: Game) -> Game:
    """End an unfinished daily attempt or ghost race where it stands (stuck, or giving up).

    A daily attempt's result and boards follow through daily/signals.py.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        if game.is_over:
            raise AttemptRefused(f"the game is already {game.get_status_display().lower()}")
        game.state = load(game).engine.to_dict()  # the position it ends in: the log's
        game.status = Game.Status.RESIGNED
        game.finished_at = timezone.now()
        game.save(update_fields=["status", "finished_at", "state"])
    return game


def sync_attempt(attempt: DailyAttempt, game: Game, record: bool = False) -> None:
    """Bring an attempt's result in step with its game, and what follows a ranked result after
    the commit (AFTER_RANKED_RESULT).

    Called whenever a daily game's row is saved (daily/signals.py), whatever saved it, so a
    move played through any socket or view reaches the boards. ``record`` follows a ranked
    attempt up even if nothing changed (a fresh start).
    """
    fields = []
    home = cards_home(game.state or {})
    if home != attempt.foundations:
        attempt.foundations = home
        attempt.foundations_ms = elapsed_ms(game)
        fields += ["foundations", "foundations_ms"]
    elapsed = elapsed_ms(game) if game.is_over and game.finished_at is not None else None
    if elapsed != attempt.elapsed_ms:
        attempt.elapsed_ms = elapsed
        fields.append("elapsed_ms")
    if fields:
        attempt.save(update_fields=fields)
    if attempt.ranked and (fields or record):
        for follow in AFTER_RANKED_RESULT:
            transaction.on_commit(functools.partial(follow, attempt.pk))


def attempts_today(player, today) -> dict[str, dict]:
    """The player's attempts at today's challenges, per variant: the ranked one and any other."""
    if player is None:
        return {}
    found: dict[str, dict] = {}
    attempts = DailyAttempt.objects.filter(
        player=player, challenge__day=today, game__ghost_race__isnull=True
    ).select_related("game", "challenge")
    for attempt in attempts.order_by("created_at"):
        slot = found.setdefault(attempt.challenge.variant, {"ranked": None, "latest": None})
        if attempt.ranked:
            slot["ranked"] = attempt
        slot["latest"] = attempt
    return found
