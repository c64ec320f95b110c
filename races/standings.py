"""Race standings as one number per racer: a race's order is sorted by it (from the racer rows,
at most eight), and the daily boards keep the same numbers in Redis sorted sets
(records/scoring.py).

The order (best first): racers who won, by winning time; then everyone else by cards on
foundations, most first; then by when they reached that count, earliest first. Redis sorts
ascending by a double, which holds integers exactly up to 2**53, so the three keys are packed
into disjoint decimal fields of one integer:

    score = won_ms                                        for a winner
    score = 10**14 + (999 - cards) * 10**10 + reached_ms  for everyone else

`reached_ms` is when the current count was reached (after an undo lowered it: when it was
lowered). Times are milliseconds from the race start; the
field holds up to 10**10 ms (115 days), far beyond the longest race. Equal scores fall back to
the member name, as Redis does with a sorted set's.
"""

from dataclasses import dataclass

from races.lifecycle import RacerStatus

TIER_FACTOR = 10**14
CARDS_FACTOR = 10**10
MAX_CARDS = 999


@dataclass(frozen=True)
class Progress:
    """Where one racer stands: the facts the order is made of."""

    member: str
    cards: int
    reached_ms: int
    won_ms: int | None = None

    @property
    def score(self) -> int:
        return encode_score(cards=self.cards, reached_ms=self.reached_ms, won_ms=self.won_ms)


def encode_score(*, cards: int, reached_ms: int, won_ms: int | None = None) -> int:
    """The sort key: lower is better (Redis ranks ascending)."""
    if not 0 <= cards <= MAX_CARDS:
        raise ValueError(f"cards out of range: {cards}")
    ms = reached_ms if won_ms is None else won_ms
    if not 0 <= ms < CARDS_FACTOR:
        raise ValueError(f"time out of range: {ms} ms")
    if won_ms is not None:
        return won_ms
    return TIER_FACTOR + (MAX_CARDS - cards) * CARDS_FACTOR + reached_ms


def decode_score(score: float) -> tuple[bool, int | None, int]:
    """(won, cards, ms) back from a score as read from the sorted set; cards is None for a win."""
    value = int(score)
    if value < TIER_FACTOR:
        return True, None, value
    inverse_cards, ms = divmod(value - TIER_FACTOR, CARDS_FACTOR)
    return False, MAX_CARDS - inverse_cards, ms


def progress_of(racer) -> Progress:
    """A racer's facts for the order: a `Racer` row, or the move store's row of one (anything
    with `pk`, `cards`, `cards_at_ms`, `status` and `finish_ms`)."""
    return Progress(
        member=f"{racer.pk:012d}",
        cards=racer.cards,
        reached_ms=racer.cards_at_ms,
        won_ms=racer.finish_ms if racer.status == RacerStatus.WON else None,
    )


def standing_order(racers) -> list[str]:
    """The racers' public ids, best first (`ranked`). The member is the zero-padded row id, so
    equal scores (everyone at the start) fall back to the order of joining."""
    ids = {progress_of(r): r.public_id for r in racers}
    return [ids[p] for p in ranked(list(ids))]


def ranked(progress: list[Progress]) -> list[Progress]:
    """The racers best first: by score, then by member, as a Redis sorted set orders them."""
    return sorted(progress, key=lambda p: (p.score, p.member))
