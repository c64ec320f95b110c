"""The project's own shuffle: identical on every machine, Python version and release.

A SHA-256 counter stream gives 32-bit words; each Fisher–Yates index is drawn from them by
rejection sampling, so every permutation is equally likely. ``random`` is never used, because
its algorithms are not promised to stay the same across Python versions.
"""

import hashlib
from collections.abc import Iterator, Sequence

MAX_SEED = 2**63 - 1
_WORD = 1 << 32


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an int in 0..2**63-1 (not a bool); raise ValueError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"a seed must be an integer, not {type(seed).__name__}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a seed must be between 0 and 2**63-1, not {seed}")
    return int(seed)


def stream_key(variant: str, seed: int) -> bytes:
    """The bytes the stream is keyed with: ``b"solitaire-race:<variant>:<seed in decimal>"``."""
    return f"solitaire-race:{variant}:{seed}".encode("ascii")


def words(key: bytes) -> Iterator[int]:
    """32-bit words: SHA-256(key + counter as 8 bytes big-endian), counter 0, 1, 2, …,
    each digest read as eight big-endian words."""
    counter = 0
    while True:
        digest = hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        counter += 1


def shuffled(items: Sequence[int], key: bytes) -> list[int]:
    """Fisher–Yates: for i from n-1 down to 1, swap item i with item j, j uniform in 0..i.

    j is the first word u of the stream with u < 2**32 - (2**32 mod (i+1)), taken mod (i+1);
    the words at or above that bound are skipped, which keeps j unbiased.
    """
    deck = list(items)
    stream = words(key)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        u = next(stream)
        while u >= limit:
            u = next(stream)
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck
