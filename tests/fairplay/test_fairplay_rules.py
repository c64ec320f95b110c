"""The fair-play rules, each as its sentence says (fairplay/rules.py). Pure: no Django."""

import subprocess
import sys
from pathlib import Path

import pytest

from fairplay import rules
from fairplay.rules import Record, Verdict


def record(thinks_ms: list[int], undo_at: set[int] = frozenset(), first_ms: int = 2000) -> Record:
    """A record whose actions are `thinks_ms` apart, the first `first_ms` after the start."""
    times = [first_ms]
    for think in thinks_ms:
        times.append(times[-1] + think)
    return Record(
        times_ms=times,
        undo=[i in undo_at for i in range(len(times))],
        finish_ms=times[-1],
    )


# A person's think times: mostly around a second or two, some quick, a pause now and then.
PERSON = [900, 1400, 400, 2600, 700, 1100, 5200, 350, 800, 1900, 600, 3100, 1200, 450, 9000,
          1000, 700, 2200, 300, 1300, 800, 4100, 650, 1500, 500]  # fmt: skip


def test_a_persons_game_is_clear():
    """Think times that vary as a person's do, none fast, are clear."""
    judgement = rules.assess(record(PERSON))
    assert judgement.verdict == Verdict.CLEAR and judgement.rule == "none"


def test_too_few_moves_are_clear():
    """Fewer than MIN_ACTIONS actions cannot be judged, however fast: clear."""
    judgement = rules.assess(record([100] * (rules.MIN_ACTIONS - 2)))
    assert judgement.verdict == Verdict.CLEAR and judgement.rule == "too_few_moves"


def test_a_whole_game_faster_than_three_moves_a_second_is_likely_a_bot():
    thinks = [100, 500, 150, 450, 200] * 6
    judgement = rules.assess(record(thinks, first_ms=300))
    assert (judgement.verdict, judgement.rule) == (Verdict.LIKELY_BOT, "inhuman_pace")


def test_half_the_moves_fast_is_likely_a_bot():
    """Half the think times under 250 ms, even with a slow game overall."""
    thinks = [200, 3000] * 15
    judgement = rules.assess(record(thinks))
    assert (judgement.verdict, judgement.rule) == (Verdict.LIKELY_BOT, "mostly_fast_moves")


def test_think_times_that_hardly_vary_are_likely_a_bot():
    """0.3-0.7 s waits (the second bot's) vary far less than a person's."""
    thinks = [300, 500, 700, 450, 600, 400, 550, 650, 350] * 3
    assert rules.figures_of(record(thinks)).think_cv < 0.3
    judgement = rules.assess(record(thinks))
    assert (judgement.verdict, judgement.rule) == (Verdict.LIKELY_BOT, "machine_regular")


def test_ten_fast_moves_in_a_row_are_reviewed():
    thinks = PERSON + [200] * 10
    judgement = rules.assess(record(thinks))
    assert (judgement.verdict, judgement.rule) == (Verdict.REVIEW, "fast_streak")


def test_nine_fast_moves_in_a_row_are_not_a_streak():
    judgement = rules.assess(record(PERSON + [200] * 9 + [1500]))
    assert judgement.rule != "fast_streak"


def test_two_fast_moves_in_five_are_reviewed():
    thinks = [200, 1500, 200, 2500, 1100] * 6
    judgement = rules.assess(record(thinks))
    assert (judgement.verdict, judgement.rule) == (Verdict.REVIEW, "many_fast_moves")


def test_a_steady_quick_pace_is_reviewed():
    """Variation between a bot's and a person's, at a quick median, is for a person to see."""
    thinks = [550, 900, 1100, 600, 1400, 800, 500, 1200, 950, 1250] * 3
    cv = rules.figures_of(record(thinks)).think_cv
    assert 0.3 <= cv < 0.35
    judgement = rules.assess(record(thinks))
    assert (judgement.verdict, judgement.rule) == (Verdict.REVIEW, "steady_pace")


def test_a_fixed_pace_broken_by_a_few_pauses_is_reviewed():
    """A bot's 1/3 s pace with one gap in ten held up a second or more (its own pauses, or a
    busy server's): the pauses lift the CV past every line above, but the middle half of the
    gaps stays narrow."""
    thinks = [333, 340, 330, 2100, 336, 329, 331, 338, 335, 332] * 3
    figures = rules.figures_of(record(thinks))
    assert figures.think_cv > 0.35 and figures.think_spread < 0.3
    judgement = rules.assess(record(thinks))
    assert (judgement.verdict, judgement.rule) == (Verdict.REVIEW, "steady_bulk")


def test_a_persons_middle_half_is_wide():
    assert rules.figures_of(record(PERSON)).think_spread > 0.3


def test_playing_the_solvers_line_is_reviewed():
    """Nine moves in ten or more the solver's choice, over at least 30 it answered."""
    base = record(PERSON * 2)
    choices = [True] * 45 + [False] * 4 + [None] * 2
    judgement = rules.assess(Record(base.times_ms, base.undo, base.finish_ms, choices))
    assert (judgement.verdict, judgement.rule) == (Verdict.REVIEW, "solver_line")
    assert judgement.figures.solver_judged == 49


def test_the_solvers_agreement_is_weighed_only_over_enough_positions():
    base = record(PERSON)
    choices = [True] * 20 + [None] * 6
    judgement = rules.assess(Record(base.times_ms, base.undo, base.finish_ms, choices))
    assert judgement.verdict == Verdict.CLEAR


def test_rows_written_at_one_moment_are_one_action():
    """An autoplay stores each card with the same time: one action, no zero think times."""
    rec = Record(times_ms=[1000, 1000, 1000, 2500], undo=[False] * 4, finish_ms=2500)
    assert rules.action_times(rec) == [1000, 2500]
    assert rules.think_times(rec) == [1500]
    figures = rules.figures_of(rec)
    assert (figures.rows, figures.actions, figures.think_min_ms) == (4, 2, 1500)


def test_the_figures():
    rec = record([100, 200, 300, 1000], undo_at={3})
    figures = rules.figures_of(rec)
    assert figures.think_median_ms == 250
    assert figures.think_min_ms == 100
    assert figures.fast_share == 0.5
    assert figures.fast_streak == 2
    assert figures.undos == 1
    assert figures.ms_per_action == round(rec.finish_ms / 5)
    assert figures.solver_agreement is None


def test_a_record_must_be_whole():
    with pytest.raises(ValueError):
        Record(times_ms=[1, 2], undo=[False])
    with pytest.raises(ValueError):
        Record(times_ms=[5, 2], undo=[False, False])


def test_every_rule_has_a_name_and_a_sentence():
    names = [rule.name for rule in rules.RULES]
    assert len(set(names)) == len(names)
    assert all(rule.says.endswith(".") for rule in rules.RULES)
    assert rules.rule_named("machine_regular").verdict == Verdict.LIKELY_BOT
    with pytest.raises(ValueError):
        rules.rule_named("nothing")


def test_the_rules_import_no_django():
    code = "import sys, fairplay.rules; sys.exit('django' in sys.modules)"
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0
