"""The day's deal is a pure function of the variant and the UTC date."""

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from daily import dealpick

VARIANTS = ["penelopes-web", "eighty-thieves", "penguin", "spiderweb", "queenie"]
DAY = dt.date(2026, 11, 22)


def test_candidate_seeds_are_pinned():
    """The candidate seeds never change between releases: every server agrees on a day's deal."""
    assert dealpick.candidate_seed("penguin", DAY, 0) == 4565593926409776611
    assert dealpick.candidate_seed("queenie", DAY, 3) == 7989908724180822970


@given(
    variant=st.sampled_from(VARIANTS),
    day=st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2200, 1, 1)),
    n=st.integers(min_value=0, max_value=50),
)
def test_candidate_seeds_are_valid_engine_seeds(variant, day, n):
    """Every candidate is an engine seed: 0 ≤ seed < 2**63."""
    assert 0 <= dealpick.candidate_seed(variant, day, n) < 2**63


@pytest.mark.parametrize("variant", VARIANTS)
def test_days_and_variants_get_different_candidates(variant):
    """Neighbouring days and other variants do not share a deal."""
    seeds = {dealpick.candidate_seed(variant, DAY + dt.timedelta(days=i), 0) for i in range(30)}
    assert len(seeds) == 30
    others = {dealpick.candidate_seed(v, DAY, 0) for v in VARIANTS}
    assert len(others) == len(VARIANTS)


def scripted_prover(verdicts):
    """A prover answering from a list, one verdict per candidate in order, recording its calls."""
    calls = []

    def prove(variant, seed):
        verdict = verdicts[len(calls)]
        calls.append(seed)
        return verdict, (["t0-f0"] if verdict == "won" else [])

    prove.calls = calls
    return prove


def test_first_winnable_candidate_is_the_deal():
    """Candidates are tried in order and the first one proved winnable is taken."""
    prover = scripted_prover(["lost", "unknown", "won", "won"])
    pick = dealpick.pick_deal("penguin", DAY, prover)
    assert pick == dealpick.DealPick(
        dealpick.candidate_seed("penguin", DAY, 2), 2, "won", ["t0-f0"]
    )
    assert len(prover.calls) == 3


def test_unproved_day_takes_first_candidate_not_proved_lost():
    """With no proof in the budget, the first candidate not proved lost is the deal."""
    prover = scripted_prover(["lost", "unknown", "unknown"])
    pick = dealpick.pick_deal("queenie", DAY, prover, max_candidates=3)
    assert (pick.candidate, pick.verdict) == (1, "unknown")


def test_all_lost_still_gives_a_deal():
    """A day always has a deal, even if every candidate is proved lost."""
    pick = dealpick.pick_deal("queenie", DAY, scripted_prover(["lost"] * 2), max_candidates=2)
    assert (pick.candidate, pick.verdict) == (0, "lost")


def test_stand_in_prover_takes_candidate_zero():
    """Without the solver, the stand-in proves nothing and candidate 0 is the deal."""
    pick = dealpick.pick_deal("spiderweb", DAY, dealpick.unproved_prover)
    assert pick == dealpick.DealPick(dealpick.candidate_seed("spiderweb", DAY, 0), 0, "unknown")


@pytest.mark.parametrize(
    ("now", "day", "reset"),
    [
        ("2026-11-22T00:00:00+00:00", "2026-11-22", "2026-11-23T00:00:00+00:00"),
        ("2026-11-22T23:59:59.999+00:00", "2026-11-22", "2026-11-23T00:00:00+00:00"),
        ("2026-11-22T20:30:00-05:00", "2026-11-23", "2026-11-24T00:00:00+00:00"),
    ],
)
def test_day_and_reset_are_utc(now, day, reset):
    """The open day and the countdown target are taken in UTC, whatever the clock's zone."""
    moment = dt.datetime.fromisoformat(now)
    assert dealpick.utc_day(moment) == dt.date.fromisoformat(day)
    assert dealpick.next_reset(moment) == dt.datetime.fromisoformat(reset)


@pytest.mark.parametrize("variant", ["penguin", "queenie"])
def test_the_solver_picks_the_same_proved_deal_every_time(variant):
    """With the real solver and its node budget the pick repeats exactly (any machine, any
    load), and its winning line wins the deal on the engine."""
    from games.engine import new_game

    first = dealpick.pick_deal(variant, DAY, dealpick.solver_prover())
    again = dealpick.pick_deal(variant, DAY, dealpick.solver_prover())
    assert first == again and first.verdict == "won"
    game = new_game(variant, seed=first.seed)
    for move in first.moves:
        game.play(move)
    assert game.is_won()


def test_the_eighty_thieves_deal_is_a_secret_built_deal_won_by_its_line():
    """Its candidates are built deals that are not open; the first is won at once, with the
    construction's line, which wins it on the engine."""
    from games.engine import new_game
    from games.engine.built_deals import is_built, open_numbers

    pick = dealpick.pick_deal("eighty-thieves", DAY, dealpick.solver_prover())
    assert pick.verdict == "won" and pick.candidate == 0
    assert is_built(pick.seed) and pick.seed not in open_numbers()
    game = new_game("eighty-thieves", seed=pick.seed)
    for move in pick.moves:
        game.play(move)
    assert game.is_won()


def test_every_variant_has_a_node_budget():
    """Each variant's pick is bounded by candidates × nodes (never by time)."""
    from games.engine import VARIANTS as ENGINE_VARIANTS

    for variant in ENGINE_VARIANTS:
        candidates, nodes = dealpick.budget(variant)
        assert 1 <= candidates <= 48 and 1_000 <= nodes <= 100_000
