"""Eighty Thieves deals built backwards from a won game, so that each comes with a winning line.

No random Eighty Thieves deal was ever proved won (docs/solvability.md), so the deals offered as
winnable are built: deal numbers ``BUILT_FIRST`` … ``BUILT_FIRST + BUILT_COUNT - 1`` deal the
built deal of index ``number - BUILT_FIRST`` instead of a shuffle; every other number keeps its
shuffled deal. A built deal is an ordinary layout (ten piles of eight face up, 128 cards in the
stock, an empty waste, four full decks), so the rules and the engine treat it like any other.

How one is built, a pure function of its index (the project's SHA-256 stream keyed with
``solitaire-race:eighty-thieves:built:<index>``, never ``random``): start from the won game
(every card home, the suits spread over the sixteen foundations at random) and play it
backwards, each step the reverse of a legal move:

- a foundation's top card back to the front of a pile (forwards: ``tI-fK``) or onto the waste
  (``w-fK``);
- a pile's front card that sits on the card of its suit one rank higher, or is alone in its
  pile, onto another pile's front (forwards ``tI-tJ``: onto its successor, or into an empty
  pile) or onto the waste (``w-tJ``);
- the waste's top card back under the stock (forwards ``deal``).

Piles never hold more than eight cards, and a step is only taken when the foundations still
hold enough cards to fill the tableau up to eighty, so the walk always ends at a deal: every
pile at eight, the waste empty, the stock at 128. Read forwards, the walk is a winning line.
Only ``ACTIVE`` foundations give cards at a time, each with a weight of its own, and an emptied
one is replaced by another: so the suits are put away at different times (forwards: built up at
different times) and a pile mixes high and low cards, as a shuffled deal does.
"""

from __future__ import annotations

from functools import lru_cache

from .shuffle import words

BUILT_FIRST = 80_000_000_000
"""The first built deal's number. 80,000,000,000 + i is built deal i."""
BUILT_COUNT = 1_000_000_000
"""How many numbers are built deals (indexes 0 … BUILT_COUNT - 1)."""
OPEN_COUNT = 200
"""Built deals 0 … OPEN_COUNT - 1 are the open ones: practice offers them, and their winning
lines are shipped with the code. Races and daily challenges take the others (``secret_number``),
whose numbers stay unknown until they are played: a racer who recognised an open deal would
know its stock and a winning line."""

PILES = 10
PILE_SIZE = 8
TABLEAU_CARDS = PILES * PILE_SIZE

# Step weights of the backward walk (relative): undeal, foundation to waste, foundation to a
# pile, pile to pile, pile to waste. Undealing seldom keeps the waste deep (forwards: long runs
# of deals before the waste unwinds, 39-89 cards at the deepest in deals 0-199, median 67), as
# good play on a shuffled deal meets it; with undeal at 6 (and pile to pile at 6) the waste
# stayed under 40 and the solver won each of the six deals tried in 0.4-2 s. These weights are
# part of every built deal: changing them changes the deals (the tests pin some).
W_UNDEAL = 3
W_HOME_TO_WASTE = 5
W_HOME_TO_PILE = 4
W_PILE_TO_PILE = 8
W_PILE_TO_WASTE = 3
MAX_PILE_TO_PILE = 400
"""Backward pile-to-pile steps per deal at most (each is a forward move onto a successor or
into an empty pile): bounds the walk, which otherwise could shuffle cards back and forth."""
ACTIVE = 4
"""Foundations giving cards at a time; an emptied one is replaced by one drawn from the rest.
With all sixteen at once the ranks fall together, so a deal's piles were low in front and its
stock low first (rank against dealing order correlated 0.1-0.35; shuffled deals about 0)."""
FOUNDATION_WEIGHTS = (1, 1, 2, 3, 5, 8)
"""An active foundation's weight is drawn from these, so the suits empty at different paces."""


def is_built(seed: int) -> bool:
    """Whether this deal number is a built deal's."""
    return BUILT_FIRST <= seed < BUILT_FIRST + BUILT_COUNT


def secret_number(draw: int) -> int:
    """The number of a built deal that is not open, from any non-negative ``draw``."""
    return BUILT_FIRST + OPEN_COUNT + draw % (BUILT_COUNT - OPEN_COUNT)


def open_numbers() -> range:
    """The numbers of the open built deals."""
    return range(BUILT_FIRST, BUILT_FIRST + OPEN_COUNT)


class _Stream:
    """Uniform draws from the project's SHA-256 word stream (rejection sampling, no bias)."""

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.buf: list[int] = []
        self.used = 0

    def below(self, n: int) -> int:
        limit = (1 << 32) - (1 << 32) % n
        while True:
            if not self.buf:
                self.buf = words(self.key, 64, self.used)
                self.buf.reverse()
            u = self.buf.pop()
            self.used += 1
            if u < limit:
                return u % n

    def pick(self, items: list):
        return items[self.below(len(items))]

    def weighted(self, weights: list[int]) -> int:
        """An index drawn with probability proportional to its weight (weights > 0 summed)."""
        r = self.below(sum(weights))
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise AssertionError("weights must have a positive sum")


@lru_cache(maxsize=64)
def build(index: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Built deal ``index``: (the deck in dealing order, as ``Game.from_seed`` lays a shuffled
    one out; a winning line from the deal in contract notation). About 1.2 ms of CPU."""
    if not 0 <= index < BUILT_COUNT:
        raise ValueError(f"built deals are numbered 0 to {BUILT_COUNT - 1}, not {index}")
    rng = _Stream(f"solitaire-race:eighty-thieves:built:{index}".encode("ascii"))
    suits = [s for s in range(4) for _ in range(4)]
    for i in range(len(suits) - 1, 0, -1):  # which foundation holds which suit
        j = rng.below(i + 1)
        suits[i], suits[j] = suits[j], suits[i]
    height = [13] * 16  # cards on each foundation; its top is suits[k] * 13 + height[k] - 1
    weight = [0] * 16  # only the ACTIVE foundations give cards; an empty one is replaced
    waiting = list(range(16))
    for _ in range(ACTIVE):
        weight[waiting.pop(rng.below(len(waiting)))] = rng.pick(list(FOUNDATION_WEIGHTS))
    piles: list[list[int]] = [[] for _ in range(PILES)]
    waste: list[int] = []
    undealt: list[int] = []  # the stock, last dealt first
    back: list[str] = []  # the forward moves, last first
    left = 208  # cards still home
    in_piles = 0
    sideways = 0
    while left or waste:
        room = TABLEAU_CARDS - in_piles
        loose = [
            j
            for j, p in enumerate(piles)
            if p and (len(p) == 1 or (p[-2] == p[-1] + 1 and p[-1] % 13 != 12))
        ]
        open_piles = [i for i, p in enumerate(piles) if len(p) < PILE_SIZE]
        options = [
            W_UNDEAL if waste else 0,
            W_HOME_TO_WASTE if left - 1 >= room and left else 0,
            W_HOME_TO_PILE if left and room else 0,
            W_PILE_TO_PILE if loose and open_piles and sideways < MAX_PILE_TO_PILE else 0,
            W_PILE_TO_WASTE if loose and left >= room + 1 else 0,
        ]
        step = rng.weighted(options)
        if step == 0:
            undealt.append(waste.pop())
            back.append("deal")
        elif step in (1, 2):
            full = [k for k in range(16) if height[k]]
            k = full[rng.weighted([weight[k] for k in full])] if any(weight) else full[0]
            card = suits[k] * 13 + height[k] - 1
            height[k] -= 1
            if not height[k]:
                weight[k] = 0
                if waiting:
                    weight[waiting.pop(rng.below(len(waiting)))] = rng.pick(
                        list(FOUNDATION_WEIGHTS)
                    )
            left -= 1
            if step == 1:
                waste.append(card)
                back.append(f"w-f{k}")
            else:
                i = rng.pick(open_piles)
                piles[i].append(card)
                in_piles += 1
                back.append(f"t{i}-f{k}")
        else:
            j = rng.pick(loose)
            card = piles[j].pop()
            if step == 3:
                targets = [i for i in open_piles if i != j]
                if not targets:
                    piles[j].append(card)
                    sideways = MAX_PILE_TO_PILE  # a full tableau but for this pile: stop
                    continue
                i = rng.pick(targets)
                piles[i].append(card)
                sideways += 1
                back.append(f"t{i}-t{j}")
            else:
                waste.append(card)
                in_piles -= 1
                back.append(f"w-t{j}")
    deck = [piles[i][r] for r in range(PILE_SIZE) for i in range(PILES)]
    deck.extend(reversed(undealt))
    return tuple(deck), tuple(reversed(back))
