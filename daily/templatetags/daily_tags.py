"""Template filters of the daily pages."""

import datetime as dt

from django import template

from daily.links import link
from daily.tables import format_ms
from games.engine import VARIANT_INFO

register = template.Library()


@register.filter
def clock(ms) -> str:
    """Milliseconds as 1:02.345 (a dash when there is no time)."""
    return format_ms(ms)


@register.filter
def ghost_url(public_id: str) -> str:
    """The address that races a run's ghost: `{% url 'daily:ghost' id %}` without resolving the
    name again on every row of a board (daily/links.py)."""
    return link("daily:ghost", public_id)


@register.filter
def variant_name(variant: str) -> str:
    info = VARIANT_INFO.get(variant)
    return info["name"] if info else variant


@register.filter
def status_label(status: str | None) -> str:
    return {
        "won": "Won",
        "playing": "Playing",
        "stuck": "Stuck",
        "resigned": "Gave up",
        None: "",
    }.get(status, status or "")


@register.filter
def when(iso_text: str | None) -> str:
    """An ISO timestamp as "2026-11-22 01:02 UTC"."""
    if not iso_text:
        return "–"

    moment = dt.datetime.fromisoformat(iso_text.replace("Z", "+00:00")).astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")
