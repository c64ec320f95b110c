"""What pages show of fair play: a player's own held result ("pending review", and why), and
the report link beside other players' ranked results."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.http import urlencode

from fairplay.models import Assessment
from games.rows import one_or_none

register = template.Library()


def _held(game_filter: dict, viewer) -> Assessment | None:
    if viewer is None:
        return None
    found = one_or_none(Assessment.objects.filter(player=viewer, **game_filter))
    return found if found is not None and found.is_held else None


@register.inclusion_tag("fairplay/_held_notice.html", takes_context=True)
def held_notice(context, public_id: str) -> dict:
    """The viewer's own game, if its result is held for review."""
    return {"held": _held({"game__public_id": public_id}, context.get("player"))}


@register.inclusion_tag("fairplay/_held_notice.html", takes_context=True)
def race_held_notice(context, race) -> dict:
    """The viewer's own game in this race, if its result is held for review."""
    return {"held": _held({"game__racer__race": race}, context.get("player"))}


@register.simple_tag(takes_context=True)
def report_url(context, public_id: str) -> str:
    """The report form of a result, coming back to this page."""
    request = context.get("request")
    url = reverse("fairplay:report", args=[public_id])
    return f"{url}?{urlencode({'next': request.get_full_path()})}" if request else url
