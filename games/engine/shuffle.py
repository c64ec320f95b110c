"""The project's own shuffle: identical on every machine, Python version and release.

A SHA-256 counter stream gives 32-bit words; each Fisher–Yates index is drawn from them by
rejection sampling, so every permutation is equally likely. ``random`` is never used, because
its algorithms are not promised to stay the same across Python versions.
"""

import hashlib
import struct
from collections.abc import Sequence

MAX_SEED = 2**63 - 1
_WORD = 1 << 32
_EIGHT_WORDS = struct.Struct(">8I")


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


def words(key: bytes, count: int, start: int = 0) -> list[int]:
    """32-bit words ``start`` .. ``start+count-1`` of the stream: SHA-256(key + counter as 8
    bytes big-endian) for counter 0, 1, 2, …, each digest read as eight big-endian words."""
    first, last = start // 8, (start + count + 7) // 8
    out: list[int] = []
    for counter in range(first, last):
        out.extend(_EIGHT_WORDS.unpack(hashlib.sha256(key + counter.to_bytes(8, "big")).digest()))
    skip = start - first * 8
    return out[skip : skip + count]


def shuffled(items: Sequence[int], key: bytes) -> list[int]:
    """Fisher–Yates: for i from n-1 down to 1, swap item i with item j, j uniform in 0..i.

    j is the next word u of the stream with u < 2**32 - (2**32 mod (i+1)), taken mod (i+1);
    words at or above that bound are skipped (rejection sampling), which keeps j unbiased.
    """
    deck = list(items)
    stream = words(key, len(deck))
    used = 0
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        while True:
            if used == len(stream):
                stream += words(key, 64, used)
            u = stream[used]
            used += 1
            if u < limit:
                break
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck
