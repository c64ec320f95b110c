"""Template filters of the boards, player pages and replays."""

import datetime as dt

from django import template

from records.links import link

register = template.Library()


@register.filter
def ghost_url(public_id: str) -> str:
    """The address that races a run's ghost: `{% url 'records:ghost' id %}` without resolving
    the name again on every row of a board (records/links.py)."""
    return link("records:ghost", public_id)


@register.filter
def when(iso_text: str | None, to: str = "minute") -> str:
    """An ISO timestamp as "2026-11-22 01:02 UTC"; `when:"second"` "2026-11-22 01:02:03 UTC"
    (what tells apart two games a player started within one minute)."""
    if not iso_text:
        return "–"

    moment = dt.datetime.fromisoformat(iso_text.replace("Z", "+00:00")).astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC" if to == "second" else "%Y-%m-%d %H:%M UTC")
