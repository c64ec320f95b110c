"""Write the shipped winning lines of the open built Eighty Thieves deals
(games/solver/data/eighty_thieves_built.jsonl; games.solver.proofs says what it holds):

    .venv/bin/python scripts/eighty_thieves_proofs.py

Each line is the construction's own (games.engine.built_deals) and is replayed on the engine
before it is written. Rewriting the file is only needed when OPEN_COUNT grows: the built deals
never change (tests/solver/test_built_proofs.py holds them to the shipped digests).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import new_game  # noqa: E402
from games.engine.built_deals import open_numbers  # noqa: E402
from games.solver.proofs import STORED, VARIANT, proof_row  # noqa: E402


def main() -> None:
    rows = []
    for number in open_numbers():
        row = proof_row(number)
        game = new_game(VARIANT, number)
        for move in row["line"].split():
            game.play(move)
        if not game.is_won():
            raise SystemExit(f"deal {number}: its line does not win")
        rows.append(json.dumps(row))
    STORED.parent.mkdir(exist_ok=True)
    STORED.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} proofs written to {STORED}")


if __name__ == "__main__":
    main()
