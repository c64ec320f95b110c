"""The terminal front end and the benchmark, driven the way a person would run them."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import VARIANTS, new_game
from games.engine.bench import run
from games.engine.cli import play, render

ROOT = Path(__file__).resolve().parents[2]


def session(variant: str, seed: int, commands: list[str], colour: bool = False) -> str:
    out = io.StringIO()
    play(new_game(variant, seed), io.StringIO("".join(c + "\n" for c in commands)), out, colour)
    return out.getvalue()


def test_the_cli_shows_the_position_with_suit_symbols():
    """The board is drawn with ♠♥♦♣ and 10 for tens, one line per pile."""
    text = render(new_game("penguin", 42))
    assert "t6:" in text and "c0:" in text and "f3:" in text
    assert any(s in text for s in "♠♥♦♣") and "T" not in text.split("\n", 1)[1]


def test_the_cli_hides_face_down_and_stock_cards():
    """Spiderweb's face-down cards are drawn as blocks; the stock only as a count."""
    g = new_game("spiderweb", 1)
    text = render(g)
    assert "stock: 25 cards" in text
    hidden_card = g.to_dict()["tableau"][0][0]
    assert text.count("▒▒") == 22
    assert hidden_card not in text


def test_the_cli_counts_one_card_in_the_stock_as_one():
    """A stock of one card reads '1 card'; any other number 'cards'."""
    g = new_game("spiderweb", 1)
    assert "stock: 25 cards" in render(g)
    g.stock[:] = g.stock[-1:]
    assert re.search(r"stock: 1 card\b", render(g))
    g.stock.clear()
    assert "stock: 0 cards" in render(g)


def test_the_cli_plays_lists_undoes_and_refuses():
    """moves lists the legal moves, a move plays, undo takes it back, nonsense is refused."""
    g = new_game("penguin", 42)
    first = g.legal_moves()[0]
    out = session("penguin", 42, ["moves", first, "undo", "t9-t0", "undo", "quit"])
    assert " ".join(g.legal_moves()) in out
    assert "moves 1" in out and out.count("moves 0") >= 2
    assert "refused: there is no pile t9" in out
    assert "refused: nothing to undo" in out


def test_the_cli_colours_red_suits_on_a_terminal():
    """With colour on, hearts and diamonds are wrapped in the red ANSI code."""
    text = render(new_game("queenie", 3), colour=True)
    assert "\033[31m" in text and "\033[0m" in text
    assert "\033[31m" not in render(new_game("queenie", 3), colour=False)


def test_the_cli_runs_as_a_module():
    """``python -m games.engine.cli penguin 42`` reads moves from stdin until quit."""
    out = subprocess.run(
        [sys.executable, "-m", "games.engine.cli", "penguin", "42"],
        input="moves\nquit\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert out.startswith("Penguin · seed 42 · moves 0")


def test_the_cli_refuses_an_unknown_variant():
    """An unknown variant is a usage error naming the known ones."""
    result = subprocess.run(
        [sys.executable, "-m", "games.engine.cli", "klondike", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2 and "unknown variant" in result.stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_bench_measures_steps_per_second(variant):
    """A short run reports positive wall-clock and CPU-time rates."""
    wall, cpu = run(variant, seconds=0.05)
    assert wall > 0 and cpu > 0
