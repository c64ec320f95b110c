"""Which deal is a day's challenge: a pure function of the variant and the UTC date.

Every server must agree on the deal without talking to the others, so the pick uses nothing but
the date, the variant and a deterministic search. Candidate seeds come from SHA-256 of
``"daily:<variant>:<YYYY-MM-DD>:<n>"`` (the first 8 bytes, big-endian, cut to 63 bits) for
n = 0, 1, 2, …; the first candidate the prover shows winnable is the day's deal.

The prover is given a *node* budget, never a time budget: a time budget would let a fast machine
prove a deal that a slow one gives up on, and the servers would disagree. If no candidate is
proved within the variant's budget (``BUDGETS``: candidates to try, nodes for each), the first
candidate that was not proved lost is taken (and recorded as unproved), so a day always has a
deal. The budgets bound a day's pick to well under a minute per variant on one core, in
practice: Penguin and Queenie deals are proved within a few hundred nodes; Penelope's Web
candidates are mostly proved lost at once, and one in four or five is won within some thousands
of nodes; Spiderweb's wins mostly take under 20,000 nodes.

Eighty Thieves' candidates are built deals (games.engine.built_deals: no random deal of it was
ever proved won): the candidate number maps onto a built deal that is not open
(``secret_number``), and the prover answers with its construction's winning line at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from games.engine import new_game
from games.engine.built_deals import secret_number
from games.solver import solve
from games.solver.proofs import known_line

SEED_MASK = (1 << 63) - 1
# variant: (candidates to try, solver nodes for each)
BUDGETS: dict[str, tuple[int, int]] = {
    "penguin": (8, 100_000),
    "queenie": (8, 100_000),
    # About 1 Penelope's Web deal in 4 is winnable and most of the rest are proved lost in a few
    # nodes: with 8 candidates, 4 of 10 days (2026-11-22 to 12-01) had no proved deal.
    "penelopes-web": (48, 100_000),
    # Most Spiderweb wins take under 20,000 nodes (about half a second); more tries are cheap.
    "spiderweb": (16, 25_000),
    # Built deals: the first candidate is won by its known line, without a search.
    "eighty-thieves": (4, 25_000),
}
BUILT_CANDIDATES = frozenset({"eighty-thieves"})
"""Variants whose candidates are built deals (see the module's docstring)."""
DEFAULT_BUDGET = (8, 100_000)


def budget(variant: str) -> tuple[int, int]:
    return BUDGETS.get(variant, DEFAULT_BUDGET)


# A prover answers "won" (with the winning moves), "lost" or "unknown" for (variant, seed).
Proof = tuple[str, list[str]]
Prover = Callable[[str, int], Proof]


@dataclass(frozen=True)
class DealPick:
    """The chosen deal and how it was chosen."""

    seed: int
    candidate: int  # index n of the candidate seed that was taken
    verdict: str  # the prover's verdict on it: "won" or, if nothing was proved, "unknown"/"lost"
    moves: list[str] = field(default_factory=list)  # a winning line when verdict == "won"


def candidate_seed(variant: str, day: dt.date, n: int) -> int:
    """The n-th candidate seed for a variant's deal on a day."""
    text = f"daily:{variant}:{day.isoformat()}:{n}".encode()
    draw = int.from_bytes(hashlib.sha256(text).digest()[:8], "big") & SEED_MASK
    return secret_number(draw) if variant in BUILT_CANDIDATES else draw


def pick_deal(
    variant: str, day: dt.date, prover: Prover, max_candidates: int | None = None
) -> DealPick:
    """The day's deal: the first candidate the prover wins, else the first not proved lost."""
    if max_candidates is None:
        max_candidates = budget(variant)[0]
    fallback: DealPick | None = None
    for n in range(max_candidates):
        seed = candidate_seed(variant, day, n)
        verdict, moves = prover(variant, seed)
        if verdict == "won":
            return DealPick(seed, n, "won", list(moves))
        if fallback is None and verdict != "lost":
            fallback = DealPick(seed, n, verdict)
    return fallback or DealPick(candidate_seed(variant, day, 0), 0, "lost")


def solver_prover(max_nodes: int | None = None) -> Prover:
    """A prover backed by ``games.solver`` with a deterministic node budget (the variant's own
    unless ``max_nodes`` is given); a built deal's known line first (games.solver.proofs)."""

    def prove(variant: str, seed: int) -> Proof:
        line = known_line(variant, seed)
        if line is not None:
            return "won", line
        nodes = max_nodes if max_nodes is not None else budget(variant)[1]
        result = solve(new_game(variant, seed=seed), max_nodes=nodes, max_seconds=None)
        return result.verdict, list(result.moves) if result.verdict == "won" else []

    return prove


def unproved_prover(variant: str, seed: int) -> Proof:
    """What stands in while ``games.solver`` is absent: no proof, so candidate 0 is taken."""
    return "unknown", []


def default_prover() -> Prover:
    """The solver when it is installed, else the stand-in (recorded as an unproved pick)."""
    try:
        return solver_prover()
    except ImportError:
        return unproved_prover


def utc_day(now: dt.datetime) -> dt.date:
    """The UTC calendar day of an aware datetime: the day whose challenge is open."""
    return now.astimezone(dt.UTC).date()


def day_start(day: dt.date) -> dt.datetime:
    """Midnight UTC at the start of a day."""
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


def next_reset(now: dt.datetime) -> dt.datetime:
    """When the next day's challenges open (the countdown's target)."""
    return day_start(utc_day(now) + dt.timedelta(days=1))
