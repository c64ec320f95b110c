"""One colour per name: a custom property the site's :root defines (base.html's inline basics,
the stylesheets) is defined once, so a page that loads one more stylesheet keeps the colours
of the others (board.css once made the header lighter on the board pages, 4.09:1 for its gold)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"


def root_blocks(css: str) -> list[str]:
    return re.findall(r":root\s*\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S))


def test_each_root_custom_property_is_defined_once():
    """No two :root blocks of the site define the same custom property."""
    sources = {path: path.read_text() for path in sorted(FRONTEND.rglob("*.css"))}
    sources |= {path: path.read_text() for path in sorted(FRONTEND.rglob("*.html"))}
    defined = defaultdict(list)
    for path, text in sources.items():
        for block in root_blocks(text):
            for name in re.findall(r"(--[\w-]+)\s*:", block):
                defined[name].append(str(path.relative_to(FRONTEND)))
    assert "--felt-dark" in defined  # the header's colour is among them
    twice = {name: where for name, where in defined.items() if len(where) > 1}
    assert not twice, f"custom properties defined in more than one :root: {twice}"
