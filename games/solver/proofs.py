"""Winning lines known ahead of any search: the built Eighty Thieves deals (games.engine.built_deals).

The open built deals' lines are shipped in ``data/eighty_thieves_built.jsonl``, one JSON object a
line: ``{"deal": number, "cards": SHA-256 of the deal's cards, "line": moves joined by spaces}``
(``scripts/eighty_thieves_proofs.py`` writes it; ``tests/solver/test_built_proofs.py`` replays
every line to a win on the engine and checks each deal's cards against the digest, so a change
that dealt other cards under the same number would fail there). Any other built deal's line is
its construction's, rebuilt from the number in a few milliseconds.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from games.engine.built_deals import BUILT_FIRST, build, is_built
from games.engine.cards import NAMES

VARIANT = "eighty-thieves"
STORED = Path(__file__).with_name("data") / "eighty_thieves_built.jsonl"


def cards_digest(deck) -> str:
    """SHA-256 of a deal's cards in dealing order, as contract names joined by spaces."""
    return hashlib.sha256(" ".join(NAMES[c] for c in deck).encode("ascii")).hexdigest()


@cache
def stored() -> dict[int, dict]:
    """The shipped proofs by deal number."""
    with STORED.open(encoding="utf-8") as f:
        rows = [json.loads(text) for text in f if text.strip()]
    return {row["deal"]: row for row in rows}


def stored_line(variant: str, seed: int) -> list[str] | None:
    """The shipped winning line of an open built deal, else None."""
    row = stored().get(seed) if variant == VARIANT else None
    return row["line"].split() if row else None


def known_line(variant: str, seed: int) -> list[str] | None:
    """A winning line from the deal of (variant, seed) known without searching: the shipped one,
    or any built deal's construction line; None for every other deal."""
    line = stored_line(variant, seed)
    if line is None and variant == VARIANT and is_built(seed):
        line = list(build(seed - BUILT_FIRST)[1])
    return line


def proof_row(seed: int) -> dict:
    """The shipped form of a built deal's proof (what ``scripts/eighty_thieves_proofs.py``
    writes)."""
    deck, line = build(seed - BUILT_FIRST)
    return {"deal": seed, "cards": cards_digest(deck), "line": " ".join(line)}
