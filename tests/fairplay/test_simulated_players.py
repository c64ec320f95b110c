"""People are not held, bots are: the rules against simulated players (scripts/bots.py), the
server's record as the players' sends plus the network's transit. Pure and seeded."""

import random
from collections import Counter

import pytest

from fairplay import rules
from fairplay.rules import Verdict
from scripts import bots

GAMES = 1000
EXPERT_GAMES = 300
BOT_GAMES = 300


def held(record) -> bool:
    return rules.assess(record).verdict != Verdict.CLEAR


@pytest.mark.slow
def test_people_are_held_in_at_most_one_game_in_a_hundred():
    """Over 1,000 games of people (one in four a fast expert), at most 10 held."""
    rng = random.Random(26)
    outcomes = Counter(rules.assess(bots.simulated_human_record(rng)).rule for _ in range(GAMES))
    holds = sum(n for rule, n in outcomes.items() if rule not in ("none", "too_few_moves"))
    assert holds <= GAMES // 100, outcomes


def test_a_fast_expert_at_a_move_and_a_half_a_second_is_not_held():
    """300 games of the fast expert, who keeps about 1.5 moves a second over the whole game."""
    rng = random.Random(261)
    records = [bots.simulated_human_record(rng, bots.fast_expert(rng)) for _ in range(EXPERT_GAMES)]
    pace = sorted(len(rules.action_times(r)) / (r.finish_ms / 1000) for r in records)
    assert 1.35 <= pace[len(pace) // 2] <= 1.65
    assert sum(held(r) for r in records) <= EXPERT_GAMES // 100


def test_undos_are_in_the_simulated_games():
    rng = random.Random(262)
    records = [bots.simulated_human_record(rng) for _ in range(100)]
    assert sum(any(r.undo) for r in records) >= 40


@pytest.mark.parametrize("bot", sorted(bots.BOTS))
def test_every_bot_is_held_in_every_game(bot):
    """300 games each, from 15 actions (the fewest judged) to 120."""
    rng = random.Random(bot)
    verdicts = Counter(
        rules.assess(bots.simulated_bot_record(bot, rng, actions=rng.randint(15, 120))).verdict
        for _ in range(BOT_GAMES)
    )
    assert verdicts[Verdict.CLEAR] == 0, verdicts


@pytest.mark.parametrize("bot", ["greedy", "solver_fastest"])
def test_a_machine_pace_with_pauses_of_its_own_is_held(bot):
    """A fixed pace that hides behind pauses (one wait in ten 1-5 s longer): at least 97 games in
    a hundred held, 15 to 120 actions each."""
    pace, agreement = bots.BOTS[bot]
    rng = random.Random(f"{bot}/pauses")
    records = [
        bots.simulated_record(
            bots.moves_only(bots.with_pauses(pace), rng), rng.randint(15, 120), rng, agreement
        )
        for _ in range(BOT_GAMES)
    ]
    assert sum(held(r) for r in records) >= BOT_GAMES * 97 // 100


@pytest.mark.parametrize("bot", ["greedy", "solver_fastest"])
def test_a_machine_pace_is_held_through_a_busy_server(bot):
    """One frame in fifteen held up 0.3-1.5 s on its way (a loaded machine, a congested
    network): games of 40 to 200 actions, at least 98 in a hundred held."""
    rng = random.Random(f"{bot}/held-up")
    records = [
        bots.simulated_bot_record(
            bot, rng, actions=rng.randint(40, 200), transit=bots.held_up_transit_s
        )
        for _ in range(BOT_GAMES)
    ]
    assert sum(held(r) for r in records) >= BOT_GAMES * 98 // 100


def test_the_fastest_bot_keeps_inside_the_frame_budget():
    """The first bot sends 29 frames in 5 s: the socket's budget is 30 (games/sockets.py)."""
    from games.sockets import FrameBudget

    assert FrameBudget().limit > bots.FRAMES_PER_WINDOW
    assert FrameBudget().window == bots.FRAME_WINDOW_S
