"""What a good result is, where a win is rare: ``{% good_result variant_id %}``."""

from django import template
from django.utils.html import format_html

from games.engine import VARIANT_INFO
from games.solver.variants.eighty_thieves import TYPICAL_BEST_HOME

register = template.Library()

TYPICAL_BEST = {"eighty-thieves": TYPICAL_BEST_HOME}
"""Per variant, the cards home of the solver's typical best line on a random deal (the median
in docs/solvability.md); only variants whose random deals are seldom won have one."""


@register.simple_tag
def good_result(variant: str) -> str:
    """A paragraph saying how far good play typically gets on a random deal, or nothing."""
    home = TYPICAL_BEST.get(variant)
    if home is None:
        return ""
    cards = 52 * VARIANT_INFO[variant]["decks"]
    return format_html(
        '<p class="muted good-result">A good result: on a random deal, a typical best line the '
        "solver finds sends {} of {} cards home.</p>",
        home,
        cards,
    )
