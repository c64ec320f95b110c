"""`{% arenas_now %}`: the public arenas running now and the next to start, for the home page."""

from datetime import timedelta

from django import template
from django.db.models import Count
from django.utils import timezone
from django.utils.timesince import timeuntil

from arenas.models import Arena
from records.templatetags.record_tags import told_apart

register = template.Library()

SHOWN = 1
"""Arenas named of each kind (the busiest running, the next to start): the list has the rest."""


@register.inclusion_tag("arenas/_arenas_now.html", takes_context=True)
def arenas_now(context) -> dict:
    """The public arena running now with the most players, and the next to start (`SHOWN`);
    first, the arena the reader joined that runs now or starts next, if any (one only reachable
    by its link too: it is theirs); none they joined is named as anyone's. Each comes as
    `(arena, alike)`, `alike` as record_tags' `told_apart` says it."""
    now = timezone.now()
    player = context.get("player")
    listed = Arena.objects.listed()
    joined = []
    if player is not None:
        mine = Arena.objects.filter(players__player=player, ends_at__gt=now)
        joined = list(mine.order_by("starts_at")[:SHOWN])
        listed = listed.exclude(pk__in=mine.values("pk"))
    running = listed.running(now).annotate(joined=Count("players")).order_by("-joined", "ends_at")
    kinds = {
        "joined": joined,
        "running": list(running[:SHOWN]),
        "upcoming": list(listed.upcoming(now)[:SHOWN]),
    }
    # Each arena with which of the card's arenas of its name and start it is (its link's name
    # says it), told apart over the whole card: the reader's arena and a public one may be alike.
    card = [arena for shown in kinds.values() for arena in shown]
    told = iter(told_apart(card, "name starts_at"))
    return {kind: [next(told) for _ in shown] for kind, shown in kinds.items()} | {"now": now}


@register.filter
def time_to(moment, now) -> str:
    """How long from `now` to `moment`, as `timeuntil` says it ("4 minutes", "1 hour, 5
    minutes"), but "under a minute" where it would say "0 minutes"."""
    if moment - now < timedelta(minutes=1):
        return "under a minute"
    return timeuntil(moment, now)
