"""The text on the card table that axe-core cannot judge (docs/frontend.md, "Accessibility"):
its contrast, computed from the page's own colours, meets WCAG 1.4.3 in every game at both
widths."""

from __future__ import annotations

import pytest

from games.engine import VARIANTS
from tests.browser_support import WIDTHS
from tests.contrast import BOARD_TEXTS, required, worst_contrast

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", WIDTHS)
def test_text_on_the_table_is_readable(make_page, live_url, width):
    """Every card index and court letter, every placeholder and count on the felt, and
    Penguin's beak line reach 4.5:1 (3:1 when large) against the felt at its lightest and its
    darkest, and against the card face."""
    page = make_page(*WIDTHS[width])
    failures = []
    seen = 0
    for variant in VARIANTS:
        page.goto(f"{live_url}/play/{variant}/1/")
        page.wait_for_selector('body[data-ws-ready="1"]')
        for text in page.evaluate(BOARD_TEXTS):
            seen += 1
            worst, needed = worst_contrast(text), required(text)
            if worst < needed:
                failures.append(
                    f"{variant} {text['where']} {text['text']!r}: {worst:.2f} < {needed}"
                )
    assert seen > 100
    assert not failures, "\n".join(sorted(set(failures)))
