"""`{% arenas_now %}`: the public arenas running now and the next to start, for the home page."""

from django import template
from django.db.models import Count
from django.utils import timezone

from arenas.models import Arena

register = template.Library()

SHOWN = 1
"""Arenas named of each kind (the busiest running, the next to start): the list has the rest."""


@register.inclusion_tag("arenas/_arenas_now.html")
def arenas_now() -> dict:
    """The public arena running now with the most players, and the next to start (`SHOWN`)."""
    now = timezone.now()
    listed = Arena.objects.listed()
    running = listed.running(now).annotate(joined=Count("players")).order_by("-joined", "ends_at")
    return {
        "running": list(running[:SHOWN]),
        "upcoming": list(listed.upcoming(now)[:SHOWN]),
        "now": now,
    }
