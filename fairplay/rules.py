"""The fair-play rules: a finished game's server record in, its figures and a verdict out.

Plain Python, no Django (tests import it with Django absent). The record is what the server
stored of the game: when each log row was written (milliseconds since the game started), which
rows were undos, when the game finished, and, where the solver was asked, whether each move
played was the solver's choice in that position. Rows written at the same millisecond are one
action (an autoplay stores every card it sends home with the same time), so a think time is the
gap between two actions, never between two cards of one autoplay.

Each rule is a sentence and a test on the figures (`RULES`, most severe first); the first that
fires gives the verdict. The thresholds were tuned with simulated players (scripts/bots.py;
docs/fair-play.md has the measured false-hold rate and what each rule would miss).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

FAST_MS = 250
"""A think time under this is a fast move: a person manages one now and then (a card sent home
right after the move that freed it), not game after game."""

MIN_ACTIONS = 15
"""Fewer actions than this are too few to judge: the verdict is clear."""

MIN_JUDGED_BY_SOLVER = 30
"""The solver's agreement is weighed only over at least this many positions it had an answer
for."""


class Verdict(StrEnum):
    CLEAR = "clear"
    REVIEW = "review"
    LIKELY_BOT = "likely_bot"


@dataclass(frozen=True)
class Record:
    """What the server stored of one finished game.

    `times_ms`: one entry a log row, milliseconds since the game started, in log order.
    `undo`: one flag a log row, True where the row is an undo.
    `finish_ms`: when the game ended (milliseconds since its start), or None.
    `solver_choice`: None if the solver was not asked; else one entry a log row: True where the
    move played was the first move of the solver's winning line from the position before it,
    False where it was another move, None where the solver had no answer (or the row is an undo).
    """

    times_ms: Sequence[int]
    undo: Sequence[bool]
    finish_ms: int | None = None
    solver_choice: Sequence[bool | None] | None = None

    def __post_init__(self) -> None:
        if len(self.undo) != len(self.times_ms):
            raise ValueError("need one undo flag per log row")
        if self.solver_choice is not None and len(self.solver_choice) != len(self.times_ms):
            raise ValueError("need one solver flag per log row")
        if any(b < a for a, b in zip(self.times_ms, self.times_ms[1:], strict=False)):
            raise ValueError("the rows' times must not go back")


@dataclass(frozen=True)
class Figures:
    """What the rules read: every figure a reviewer sees beside the verdict."""

    rows: int
    actions: int
    undos: int
    think_median_ms: int | None
    think_min_ms: int | None
    fast_share: float | None
    think_cv: float | None
    think_spread: float | None
    fast_streak: int
    ms_per_action: int | None
    solver_judged: int
    solver_agreement: float | None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Rule:
    """One rule: its name, the verdict it gives, the sentence a player and a reviewer read, and
    its test on the figures."""

    name: str
    verdict: Verdict
    says: str
    fires: Callable[[Figures], bool]


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    rule: str
    says: str
    figures: Figures


def action_times(record: Record) -> list[int]:
    """The time of each action: log rows written at the same millisecond are one."""
    times: list[int] = []
    for at in record.times_ms:
        if not times or at != times[-1]:
            times.append(at)
    return times


def think_times(record: Record) -> list[int]:
    """The gaps between consecutive actions (the first action's wait from the start, reading
    the deal or a race's countdown, is left out)."""
    times = action_times(record)
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def quartile_spread(thinks: Sequence[int]) -> float | None:
    """The middle half's width against the median: (Q3 - Q1) / median. Unlike the CV it does
    not move with a few long gaps (a busy server, a congested network, a bot's own hiccup), so
    a machine-paced game stays narrow however many of its frames were held up on the way."""
    if len(thinks) < 4:
        return None
    q1, median, q3 = statistics.quantiles(thinks, n=4)
    return (q3 - q1) / median if median > 0 else None


def longest_fast_streak(thinks: Sequence[int]) -> int:
    """The most consecutive think times under FAST_MS."""
    longest = run = 0
    for think in thinks:
        run = run + 1 if think < FAST_MS else 0
        longest = max(longest, run)
    return longest


def figures_of(record: Record) -> Figures:
    thinks = think_times(record)
    actions = len(action_times(record))
    judged = [c for c in record.solver_choice or () if c is not None]
    mean = statistics.fmean(thinks) if thinks else 0.0
    cv = statistics.pstdev(thinks) / mean if len(thinks) >= 2 and mean > 0 else None
    return Figures(
        rows=len(record.times_ms),
        actions=actions,
        undos=sum(record.undo),
        think_median_ms=round(statistics.median(thinks)) if thinks else None,
        think_min_ms=min(thinks) if thinks else None,
        fast_share=round(sum(t < FAST_MS for t in thinks) / len(thinks), 4) if thinks else None,
        think_cv=None if cv is None else round(cv, 4),
        think_spread=None if (spread := quartile_spread(thinks)) is None else round(spread, 4),
        fast_streak=longest_fast_streak(thinks),
        ms_per_action=(
            round(record.finish_ms / actions) if record.finish_ms is not None and actions else None
        ),
        solver_judged=len(judged),
        solver_agreement=round(sum(judged) / len(judged), 4) if judged else None,
    )


def _at_least(value: float | None, bound: float) -> bool:
    return value is not None and value >= bound


def _below(value: float | None, bound: float) -> bool:
    return value is not None and value < bound


RULES: tuple[Rule, ...] = (
    Rule(
        "inhuman_pace",
        Verdict.LIKELY_BOT,
        "The whole game was played faster than 3 moves a second.",
        lambda f: _below(f.ms_per_action, 330),
    ),
    Rule(
        "mostly_fast_moves",
        Verdict.LIKELY_BOT,
        f"Half the moves or more came less than {FAST_MS} ms after the one before.",
        lambda f: _at_least(f.fast_share, 0.5),
    ),
    Rule(
        "machine_regular",
        Verdict.LIKELY_BOT,
        "The time between moves hardly varied over the game, as a program's does.",
        lambda f: _below(f.think_cv, 0.3),
    ),
    Rule(
        "fast_streak",
        Verdict.REVIEW,
        f"Ten or more moves in a row came less than {FAST_MS} ms apart.",
        lambda f: f.fast_streak >= 10,
    ),
    Rule(
        "many_fast_moves",
        Verdict.REVIEW,
        f"Two moves in five or more came less than {FAST_MS} ms after the one before.",
        lambda f: _at_least(f.fast_share, 0.4),
    ),
    Rule(
        "steady_pace",
        Verdict.REVIEW,
        "The time between moves varied less than a person's does over a whole game.",
        lambda f: _below(f.think_cv, 0.35) and _below(f.think_median_ms, 1500),
    ),
    Rule(
        "steady_bulk",
        Verdict.REVIEW,
        "Most times between moves were nearly the same, apart from a few pauses.",
        lambda f: _below(f.think_spread, 0.3) and _below(f.think_median_ms, 1500),
    ),
    Rule(
        "solver_line",
        Verdict.REVIEW,
        "Nearly every move was the one the solver would have played.",
        lambda f: f.solver_judged >= MIN_JUDGED_BY_SOLVER and _at_least(f.solver_agreement, 0.9),
    ),
)

TOO_FEW = Rule("too_few_moves", Verdict.CLEAR, "Too few moves to judge.", lambda f: True)
NOTHING_FIRED = Rule("none", Verdict.CLEAR, "Nothing unusual.", lambda f: True)


def judge(figures: Figures) -> Judgement:
    """The first rule that fires (most severe first), or clear."""
    if figures.actions < MIN_ACTIONS:
        rule = TOO_FEW
    else:
        rule = next((r for r in RULES if r.fires(figures)), NOTHING_FIRED)
    return Judgement(verdict=rule.verdict, rule=rule.name, says=rule.says, figures=figures)


def assess(record: Record) -> Judgement:
    """The record's figures and verdict."""
    return judge(figures_of(record))


def rule_named(name: str) -> Rule:
    """A rule by its name (the stored verdict's), for the sentence shown with it."""
    for rule in (*RULES, TOO_FEW, NOTHING_FIRED):
        if rule.name == name:
            return rule
    raise ValueError(f"no fair-play rule is named {name!r}")
