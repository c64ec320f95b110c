"""Play in a terminal: ``python -m games.engine.cli penguin 42``.

Type a move in contract notation (``t3-f0``, ``t2-t5:3``, ``deal``), or ``moves`` to list the
legal ones, ``undo``, ``help`` or ``quit``. Face-down and stock cards stay hidden, as on the
server. Red suits are drawn in red when the output is a terminal.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from . import VARIANT_INFO, VARIANTS, Game, IllegalMove, new_game
from .cards import pretty

RED = "\033[31m"
RESET = "\033[0m"
HELP = "moves: list legal moves · undo · quit · or a move such as t3-f0, t2-t5:3, deal"


def card_text(name: str | None, colour: bool) -> str:
    """A card as a player reads it: 10♥ (in red on a terminal), ▒▒ face down, · for nothing."""
    if name is None:
        return "  ·"
    if name == "??":
        return " ▒▒"
    text = pretty(name).rjust(3)
    return f"{RED}{text}{RESET}" if colour and name[1] in "DH" else text


def render(game: Game, colour: bool = False) -> str:
    """The position as the player sees it, one line per pile."""
    view = game.to_dict(view="player")
    info = VARIANT_INFO[game.variant]
    lines = [f"{info['name']} · seed {game.seed} · moves {game.move_count}"]
    founds = []
    for i, pile in enumerate(view["foundations"]):
        top = card_text(pile[-1], colour) if pile else " ·"
        founds.append(f"f{i}:{top}" + (f"({len(pile)})" if len(pile) > 1 else ""))
    per_line = 8
    for k in range(0, len(founds), per_line):
        lines.append("  ".join(founds[k : k + per_line]))
    if view["cells"]:
        lines.append("  ".join(f"c{i}:{card_text(c, colour)}" for i, c in enumerate(view["cells"])))
    if info["has_stock"]:
        stock = len(view["stock"])
        extra = f"stock: {stock} card{'' if stock == 1 else 's'}"
        if info["has_waste"]:
            waste = view["waste"]
            extra += "   waste: " + (
                f"{card_text(waste[-1], colour)} ({len(waste)})" if waste else "empty"
            )
        lines.append(extra)
    for i, pile in enumerate(view["tableau"]):
        cards = " ".join(card_text(c, colour) for c in pile)
        lines.append(f"t{i}: {cards}".rstrip())
    if game.is_won():
        lines.append("Won!")
    elif game.is_stuck():
        lines.append("Stuck: no legal move left (undo, or quit).")
    return "\n".join(lines)


def play(game: Game, stdin: TextIO, stdout: TextIO, colour: bool = False) -> None:
    """Read commands until ``quit`` or the end of input."""
    print(render(game, colour), file=stdout)
    print(HELP, file=stdout)
    while True:
        print("> ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:
            print(file=stdout)
            return
        command = line.strip()
        if not command:
            continue
        if command in ("quit", "exit", "q"):
            return
        if command in ("help", "?"):
            print(HELP, file=stdout)
            continue
        if command == "moves":
            print(" ".join(game.legal_moves()) or "no legal move", file=stdout)
            continue
        try:
            game.undo() if command == "undo" else game.play(command)
        except IllegalMove as refused:
            print(f"refused: {refused}", file=stdout)
            continue
        print(render(game, colour), file=stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Play a patience game in the terminal.")
    parser.add_argument("variant", help=", ".join(VARIANTS))
    parser.add_argument("seed", nargs="?", type=int, help="the deal (default: a random one)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**63)
    try:
        game = new_game(args.variant, seed)
    except ValueError as error:
        parser.error(str(error))
    play(game, sys.stdin, sys.stdout, colour=sys.stdout.isatty())


if __name__ == "__main__":
    main()
