"""Move strings: strict parsing, and precomputed move names for listing legal moves.

``SRC-DST`` or ``SRC-DST:N`` (N >= 1, ``:1`` the same as no suffix) or ``deal``. Piles are
``t<i>``, ``f<i>``, ``c<i>`` with no leading zeros, or ``w``. No white space, and source and
destination differ. Whether the piles exist in a variant is checked by the variant.
"""

import re

from .errors import IllegalMove

DEAL = "deal"
MAX_MOVE_LENGTH = 24
"""Longer strings are malformed without being looked at (no real move is this long)."""

_MOVE_RE = re.compile(
    r"(?:([tfc])(0|[1-9][0-9]{0,2})|(w))-(?:([tfc])(0|[1-9][0-9]{0,2})|(w))(?::([1-9][0-9]{0,3}))?"
)

Parsed = tuple[str, int, str, int, int, str]
"""(source kind, source index, destination kind, destination index, count, canonical text);
kinds are "t", "f", "c" or "w" (the waste, index 0)."""

_cache: dict[str, Parsed | str] = {}
_CACHE_LIMIT = 50_000


def parse(move: object) -> Parsed | str:
    """``DEAL`` for "deal", else the parsed move; IllegalMove for anything malformed."""
    parsed = _cache.get(move) if type(move) is str else None
    if parsed is not None:
        return parsed
    parsed = _parse(move)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[move] = parsed
    return parsed


def _parse(move: object) -> Parsed | str:
    if not isinstance(move, str):
        raise IllegalMove(f"a move must be a string, not {type(move).__name__}")
    if move == DEAL:
        return DEAL
    m = _MOVE_RE.fullmatch(move) if len(move) <= MAX_MOVE_LENGTH else None
    if m is None:
        raise IllegalMove(f"malformed move {move!r}: expected e.g. 't3-f0', 't2-t5:3' or 'deal'")
    sk, si, sw, dk, di, dw, n = m.groups()
    src = ("w", 0) if sw else (sk, int(si))
    dst = ("w", 0) if dw else (dk, int(di))
    if src == dst:
        raise IllegalMove(f"malformed move {move!r}: source and destination are the same pile")
    count = int(n) if n else 1
    return (src[0], src[1], dst[0], dst[1], count, name(src[0], src[1], dst[0], dst[1], count))


def pile_name(kind: str, index: int) -> str:
    """``("t", 3)`` -> ``"t3"``; the waste is just ``"w"``."""
    return "w" if kind == "w" else f"{kind}{index}"


def name(src_kind: str, src: int, dst_kind: str, dst: int, count: int = 1) -> str:
    """The canonical text of a move: no suffix for a single card."""
    text = f"{pile_name(src_kind, src)}-{pile_name(dst_kind, dst)}"
    return text if count == 1 else f"{text}:{count}"


def _table(src_kind: str, n_src: int, dst_kind: str, n_dst: int) -> list[list[str]]:
    return [[name(src_kind, i, dst_kind, j) for j in range(n_dst)] for i in range(n_src)]


# Precomputed names, indexed [source][destination] (a same-pile entry exists but is never used).
TT = _table("t", 10, "t", 10)
TF = _table("t", 10, "f", 16)
TC = _table("t", 10, "c", 7)
CT = _table("c", 7, "t", 10)
CC = _table("c", 7, "c", 7)
CF = _table("c", 7, "f", 16)
FT = _table("f", 16, "t", 10)
WT = _table("w", 1, "t", 10)[0]
WF = _table("w", 1, "f", 16)[0]
SUFFIX = ["", ""] + [f":{k}" for k in range(2, 209)]
"""``SUFFIX[k]`` is what a k-card move adds to its name: nothing for one card."""
