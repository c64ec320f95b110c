"""Template filters of the boards, player pages and replays."""

import datetime as dt

from django import template
from django.utils.html import format_html

from records.links import link

register = template.Library()


@register.filter
def ghost_url(public_id: str) -> str:
    """The address that races a run's ghost: `{% url 'records:ghost' id %}` without resolving
    the name again on every row of a board (records/links.py)."""
    return link("records:ghost", public_id)


def _moment(iso_text: str) -> dt.datetime:
    """An ISO timestamp (a `Z` too) in UTC, to the second."""
    moment = dt.datetime.fromisoformat(iso_text.replace("Z", "+00:00"))
    return moment.astimezone(dt.UTC).replace(microsecond=0)


@register.filter
def when(iso_text: str | None, to: str = "minute") -> str:
    """An ISO timestamp as "2026-11-22 01:02 UTC"; `when:"second"` "2026-11-22 01:02:03 UTC"
    (what tells apart two games a player started within one minute)."""
    if not iso_text:
        return "–"
    return _moment(iso_text).strftime(
        "%Y-%m-%d %H:%M:%S UTC" if to == "second" else "%Y-%m-%d %H:%M UTC"
    )


@register.filter
def local_time(iso_text: str | None) -> str:
    """An ISO timestamp as a player's page writes a moment, "2026-11-22 01:02": in UTC, as a page
    without scripts shows it, in a `<time data-local="date">` that js/local-times.js writes again
    in the reader's own zone (a column's `<span data-zone>` says which)."""
    if not iso_text:
        return "–"
    moment = _moment(iso_text)
    return format_html(
        '<time data-local="date" datetime="{}">{}</time>',
        moment.isoformat(),
        moment.strftime("%Y-%m-%d %H:%M"),
    )
