"""`{% quick_race_form %}`: the Quick race button with its choice of game, for any page."""

from django import template
from django.conf import settings

from games.engine import VARIANT_INFO, VARIANTS

register = template.Library()


@register.inclusion_tag("races/_quick_form.html")
def quick_race_form(selected: str = "any") -> dict:
    variants = [(variant, VARIANT_INFO[variant]["name"]) for variant in VARIANTS]
    return {
        "variants": variants,
        "selected": selected,
        "lobby_s": quick_lobby_seconds(),
    }


@register.simple_tag
def quick_lobby_seconds() -> int:
    """How long a quick race's lobby lasts after its second player arrives."""
    return round(settings.QUICK_RACE_LOBBY_S)
