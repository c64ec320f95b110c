"""Assessing a ranked game from the server's record, off the request, once per record.

A ranked game is a daily attempt with `ranked` set (an account's), or a signed-in racer's game
in a rated, ranked race (guests race unrated).
When one ends (the move writer's batch that wins or sticks it: `games.storage.ON_END`; a save
that ends it; a race that finishes, for every racer in it; a racer's stuck game only then) its
pk is handed to the background worker (games/worker.py) after the commit, which reads the Move
rows' server times, asks the solver for its choice in each position the player chose a move in
(a small node budget a position and a total time bound, so a long game costs seconds at most),
runs the rules (fairplay/rules.py) and stores the `Assessment`. The move path never waits for
any of it, and the worker takes the next game only while the machine's cores are not contended
(live play first; `assess_games` catches up on what its queue left).

Once per record: an assessment covers the log length it read (`seq`); handing the same game
over again (a retried finish, a second process's hook) finds it made and does nothing. A game
that went on after it was assessed (a stuck daily attempt undone and played on) is assessed
again while no person has reviewed it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q

from daily.models import DailyAttempt
from fairplay import rules
from fairplay.models import Assessment, Report
from games import worker
from games.models import Game, Move
from games.play import starting_position
from games.rows import one_or_none
from games.solver import Verdict, solve
from races.models import Race, Racer

SOLVER_NODES_PER_POSITION = 3000
"""The solver's budget in each position: about 0.01-0.05 s on a Penguin position."""

SOLVER_TOTAL_SECONDS = 15.0
"""The solver's budget for a whole game, in the CPU time of the thread assessing it (not the
wall clock: a busy machine would judge fewer positions, and the same game could get another
verdict); positions past it count as no answer."""

QUEUE_LIMIT = 64
"""Games waiting for the worker at most from one process."""

ENDED = frozenset({Game.Status.WON, Game.Status.STUCK, Game.Status.RESIGNED})

ON_ASSESSED: list[Callable[[Assessment], None]] = []
"""Called in the web process with each assessment the worker stored (`after_assessment`): held
results leave the boards and the ratings (fairplay/holds.py)."""

logger = logging.getLogger(__name__)


def ranked_kind(game: Game) -> tuple[str, datetime] | None:
    """(the assessment's kind, when the game's clock started) for a ranked game that is over,
    else None.

    A stuck game in a race still running is not over: the racer may undo and play on, and every
    stuck position would be assessed again. The race's finish hands every racer's game over
    (fairplay/signals.py), as the catch-up (`waiting`) finds only finished races' games."""
    if game.kind == Game.Kind.DAILY:
        if DailyAttempt.objects.filter(game=game, ranked=True).exists():
            return Assessment.Kind.DAILY, game.started_at
    elif game.kind == Game.Kind.RACE:
        racer = one_or_none(Racer.objects.filter(game=game).select_related("race", "player"))
        rated = racer is not None and racer.race.rated and racer.race.ranked
        if not rated or racer.player.user_id is None:  # guests race unrated
            return None
        if game.status == Game.Status.STUCK and racer.race.status != Race.Status.FINISHED:
            return None
        return Assessment.Kind.RACE, racer.race.starts_at or game.started_at
    return None


def ms_between(start: datetime, at: datetime) -> int:
    return max(0, round((at - start).total_seconds() * 1000))


def solver_choices(game: Game, log: list[str], first_of_action: list[bool]) -> list[bool | None]:
    """Per log row: whether the move played was the first move of the solver's winning line from
    the position before it (None: an undo, a card an autoplay sent home, no answer in budget)."""
    engine = starting_position(game)
    started = time.thread_time()
    choices: list[bool | None] = []
    for move, chosen in zip(log, first_of_action, strict=True):
        choice = None
        if move != Move.UNDO and chosen and time.thread_time() - started < SOLVER_TOTAL_SECONDS:
            result = solve(engine.to_dict(), max_nodes=SOLVER_NODES_PER_POSITION)
            if result.verdict == Verdict.WON and result.moves:
                choice = result.moves[0] == move
        choices.append(choice)
        if move == Move.UNDO:
            engine.undo()
        else:
            engine.play(move)
    return choices


def record_of(game: Game, clock_start: datetime, with_solver: bool = True) -> rules.Record:
    """The rules' view of the game's record."""
    rows = list(game.moves.order_by("seq").values_list("move", "at"))
    times = [ms_between(clock_start, at) for _, at in rows]
    log = [move for move, _ in rows]
    first_of_action = [i == 0 or times[i] != times[i - 1] for i in range(len(times))]
    if game.finished_at is not None:
        finish = ms_between(clock_start, game.finished_at)
    else:
        finish = times[-1] if times else None
    return rules.Record(
        times_ms=times,
        undo=[move == Move.UNDO for move in log],
        finish_ms=finish,
        solver_choice=solver_choices(game, log, first_of_action) if with_solver else None,
    )


def assess(game_pk: int) -> Assessment | None:
    """Assess one ended ranked game unless its record is assessed already; the assessment made,
    or None (not ranked, not ended, or nothing new to assess)."""
    game = one_or_none(Game.objects.filter(pk=game_pk))
    if game is None or game.status not in ENDED:
        return None
    known = one_or_none(Assessment.objects.filter(game=game))
    if known is not None and (known.seq >= game.seq or known.reviewer_id is not None):
        return None
    ranked = ranked_kind(game)
    if ranked is None:
        return None
    kind, clock_start = ranked
    record = record_of(game, clock_start)
    judgement = rules.assess(record)
    reports = Report.objects.filter(game=game).count()
    values = {
        "player_id": game.player_id,
        "kind": kind,
        "seq": game.seq,
        "figures": judgement.figures.as_dict(),
        "think_ms": rules.think_times(record),
        "verdict": judgement.verdict,
        "rule": judgement.rule,
        "reports": reports,
        "status": (
            Assessment.Status.CLEARED
            if judgement.verdict == rules.Verdict.CLEAR and not reports
            else Assessment.Status.PENDING
        ),
    }
    try:
        with transaction.atomic():
            if known is None:
                assessment = Assessment.objects.create(game=game, **values)
            else:
                updated = Assessment.objects.filter(
                    pk=known.pk, seq__lt=game.seq, reviewer__isnull=True
                ).update(**values)
                if not updated:
                    return None
                assessment = Assessment.objects.get(pk=known.pk)
    except IntegrityError:  # another process assessed it meanwhile
        return None
    return assessment


def after_assessment(assessment_pk: int) -> None:
    """What follows a stored assessment (ON_ASSESSED), in this process: the boards an
    in-memory rank store keeps are this process's, not the worker's."""
    assessment = one_or_none(Assessment.objects.select_related("game").filter(pk=assessment_pk))
    for hook in ON_ASSESSED if assessment is not None else ():
        try:
            hook(assessment)
        except Exception:
            logger.exception("after the assessment of game %s", assessment.game_id)


def waiting(recent: int, limit: int) -> list[int]:
    """Among the `recent` newest games, the ended ranked ones whose record has no assessment
    yet, newest first (at most `limit`): what the worker missed (a restart, a full queue)."""
    newest = Game.objects.order_by("-pk").values_list("pk", flat=True).first()
    if newest is None:
        return []
    ranked = Q(daily_attempt__ranked=True) | Q(
        racer__race__rated=True,
        racer__race__seed_chosen=False,
        racer__race__status="finished",
        player__user__isnull=False,
    )
    rows = (
        Game.objects.filter(pk__gt=newest - recent, status__in=ENDED)
        .filter(ranked)
        .exclude(assessment__seq__gte=F("seq"))
        .order_by("-pk")
        .values_list("pk", flat=True)
    )
    return list(rows[:limit])


# ------------------------------------------------------------------ the worker


def _work(game_pk: int) -> int | None:
    """One game's assessment, in the worker: the pk of the assessment made, if one was."""
    try:
        made = assess(game_pk)
    except Exception:
        logger.exception("the fair-play assessment of game %s failed", game_pk)
        return None
    return None if made is None else made.pk


def _follow(assessment_pk: int | None) -> None:
    """After the worker's job, in this process: what follows the assessment it made."""
    if assessment_pk is not None:
        try:
            after_assessment(assessment_pk)
        finally:
            connection.close()  # the callback's thread keeps no connection


_queue = worker.JobQueue(_work, QUEUE_LIMIT, after=_follow, yields=True)
"""It yields to live play (games/worker.py): an assessment is up to `SOLVER_TOTAL_SECONDS` of
the solver, and a crowd ends some 25 games a second. What it finds later is applied later: a
hold decided after the race's close rescores its ratings and arena points (fairplay/holds.py)."""


def request(game_pks) -> None:
    """Hand games to the worker (if it is on) after the current transaction commits: each once
    while its job is in the worker, and once more after it if handed over meanwhile (that job
    may have read the game before this commit). Games that are not ranked are dropped by the
    worker."""
    if settings.FAIRPLAY_ASSESSMENT:
        _queue.request(game_pks)
